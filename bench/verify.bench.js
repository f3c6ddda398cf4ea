// Signed-envelope verify through Plexus against a bare node:crypto Ed25519 verify of the same
// 32-byte digest (issue 2, item 10; target: Plexus costs <= 1.2x the bare verify).
//
// The Plexus side does the whole job on an already-parsed envelope object: field checks,
// from/pk check, ts window, replay-cache lookup and insert, JCS + SHA-256 of `d`, the
// signing digest, and Ed25519 verify. The baseline gets the digest, the signature bytes and
// a ready KeyObject. Both walk the same pre-signed envelopes in the same order; the replay
// cache is cleared whenever the walk wraps (every 8,192 envelopes), since a nonce may only
// pass once.
//
// A third line, "floor", does only the work D3 makes unavoidable around the signature
// (JCS + SHA-256 of `d`, SHA-256 of a ~130-byte preimage, Ed25519 verify): the distance
// between it and Plexus is what the envelope handling itself costs.
import { verify as cryptoVerify } from 'node:crypto';
import { compare, report } from './lib.js';
import { canonicalizeJcs } from '../dist/core/canonical/jcs.js';
import { sha256Bytes } from '../dist/core/hash.js';
import {
  envelopeVerifier,
  identityFromPublicKey,
  keyPairFromSeed,
  payloadDigest,
  replayCache,
  signEnvelope,
  signingDigest,
} from '../dist/security/index.js';

const COUNT = 8192;
const SIGNERS = 8;
const DOMAIN = 'hyperspace/tasks/web-research';

// A realistic payload of about 500 bytes of JSON.
function payload(i) {
  return {
    taskId: `a1b2c3d4-e5f6-4a7b-8c9d-${String(i).padStart(12, '0')}`,
    type: 'research',
    query: 'Compare the latency and throughput of gossip meshes for agent coordination',
    constraints: { maxTokens: 12000, deadlineMs: 30000, sources: ['arxiv', 'news', 'blogs'] },
    budget: { currency: 'USDC', microUnits: 450000 },
    requester: { agentName: 'web-researcher', tier: 'L2', session: 'sess-7f3a9c' },
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    tags: ['market-analysis', 'p2p', 'benchmark'],
    priority: 3,
    retry: false,
  };
}

const keys = Array.from({ length: SIGNERS }, (_, i) => keyPairFromSeed(String(i + 1).padStart(64, '0')));
const envelopes = [];
const digests = [];
const signatures = [];
const keyObjects = [];
for (let i = 0; i < COUNT; i++) {
  const key = keys[i % SIGNERS];
  const env = signEnvelope(payload(i), { key, domain: DOMAIN });
  envelopes.push(env);
  digests.push(
    signingDigest({
      domain: DOMAIN,
      ts: env.ts,
      nonce: Buffer.from(env.nonce, 'base64url'),
      from: env.from,
      payloadDigest: payloadDigest(env.d),
    }),
  );
  signatures.push(Buffer.from(env.sig, 'base64url'));
  keyObjects.push(identityFromPublicKey(key.publicKey).keyObject);
}
const payloadBytes = JSON.stringify(envelopes[0].d).length;

const cache = replayCache();
const verifier = envelopeVerifier({ replayCache: cache });
let p = 0;
let b = 0;
let f = 0;
const preimage = Buffer.alloc(130, 7);
let failures = 0;

const results = compare(
  {
    'plexus verify (full envelope)': () => {
      if (p === COUNT) {
        p = 0;
        cache.clear();
      }
      verifier.verify(envelopes[p++], DOMAIN);
    },
    'node:crypto verify (32-byte digest)': () => {
      if (b === COUNT) b = 0;
      if (!cryptoVerify(null, digests[b], keyObjects[b], signatures[b])) failures++;
      b++;
    },
    'floor: JCS+SHA(d), SHA(preimage), verify': () => {
      if (f === COUNT) f = 0;
      sha256Bytes(canonicalizeJcs(envelopes[f].d));
      sha256Bytes(preimage);
      if (!cryptoVerify(null, digests[f], keyObjects[f], signatures[f])) failures++;
      f++;
    },
  },
  { rounds: 15, ms: 250 },
);
console.log(`payload d: ${payloadBytes} bytes of JSON; ${SIGNERS} signers; ${COUNT} distinct envelopes`);
if (failures > 0) console.log(`baseline failures: ${failures} (a bug)`);
const ratio = report('signed-envelope verify', results, {
  subject: 'node:crypto verify (32-byte digest)',
  baseline: 'plexus verify (full envelope)',
  target: 'cost <= 1.2x, i.e. throughput ratio bare / plexus <= 1.20',
  pass: (r) => r <= 1.2,
});
const floor =
  results['node:crypto verify (32-byte digest)'] / results['floor: JCS+SHA(d), SHA(preimage), verify'];
console.log(
  `Plexus verify costs ${ratio.toFixed(3)}x a bare node:crypto verify; the unavoidable floor is ${floor.toFixed(3)}x`,
);
