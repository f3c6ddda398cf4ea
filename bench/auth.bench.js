// Bearer authentication (issue 3, item 4 "Auth (D14)"): what a request pays to prove who it is.
//
// 1. A node-issued EdDSA JWT through the authenticator, after its first use (served from the
//    verified-token cache), against the baseline of a full jose `jwtVerify` per request (one
//    Ed25519 signature check each time). A third line shows the authenticator's own uncached
//    path (pre-checks + jose) so its overhead over bare jose is visible. 1,000 distinct tokens
//    are cycled so the cache lookups are not all the same entry. Target: cached >= 100x.
// 2. API keys: `authenticate('Bearer plx_…')` per second (header parse, format check, SHA-256,
//    lookup, constant-time compare), beside a bare SHA-256 of the same key as the floor.
//
// Every subject is awaited one call at a time, as a request handler would.
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import { median, report } from './lib.js';
import { keyPairFromSeed, identityFromPublicKey } from '../dist/security/index.js';
import { authenticator, generateApiKey, issueToken, tokenVerifier } from '../dist/security/auth/index.js';

const TOKENS = 1000;

/** Awaits `fn` repeatedly for about `ms` milliseconds; returns operations per second. */
async function opsPerSecondAsync(fn, ms) {
  let ops = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 50; i++) await fn();
    ops += 50;
    elapsed = process.hrtime.bigint() - start;
  }
  return (ops * 1e9) / Number(elapsed);
}

/** The async twin of lib.js `compare`: interleaved rounds, median ops/s of each subject. */
async function compareAsync(subjects, { rounds = 7, ms = 300, warmupMs = 200 } = {}) {
  const names = Object.keys(subjects);
  for (const name of names) await opsPerSecondAsync(subjects[name], warmupMs);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(await opsPerSecondAsync(subjects[name], ms));
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
}

const nodeKey = keyPairFromSeed('42'.repeat(32));
const did = identityFromPublicKey(nodeKey.publicKey).did;
const tokens = [];
for (let i = 0; i < TOKENS; i++) {
  const { token } = await issueToken({
    key: nodeKey,
    subject: `agent:${i}`,
    scopes: ['jobs:read', 'jobs:write'],
    ttl: '1h',
  });
  tokens.push(token);
}
const headers = tokens.map((t) => `Bearer ${t}`);

const apiKey = generateApiKey();
const auth = authenticator({
  jwt: { issuerKeys: [nodeKey] },
  apiKeys: {
    keys: [
      { hash: apiKey.hash, subject: 'ci', scopes: 'jobs:write' },
      ...Array.from({ length: 99 }, (_, i) => ({ hash: generateApiKey().hash, subject: `k${i}` })),
    ],
  },
});
for (const h of headers) await auth.authenticate(h); // the one signature check per token
const uncached = tokenVerifier({ issuerKeys: [nodeKey] });
const joseOptions = { algorithms: ['EdDSA'], issuer: did, audience: did };

let a = 0;
let b = 0;
let c = 0;
const jwtResults = await compareAsync({
  'authenticate(), cached JWT': () => auth.authenticate(headers[a++ % TOKENS]),
  'jose jwtVerify per request (baseline)': () =>
    jwtVerify(tokens[b++ % TOKENS], nodeKey.publicKeyObject, joseOptions),
  'tokenVerifier.verify, uncached': () => uncached.verify(tokens[c++ % TOKENS]),
});
report('Bearer JWT: cached authenticate vs a full verify per request', jwtResults, {
  subject: 'authenticate(), cached JWT',
  baseline: 'jose jwtVerify per request (baseline)',
  target: '>= 100x',
  pass: (r) => r >= 100,
});
const stats = auth.stats();
console.log(
  `\nsignature checks by the authenticator: ${stats.verifications} for ${TOKENS} tokens (${stats.cacheHits.toLocaleString('en-US')} cache hits)`,
);

const apiHeader = `Bearer ${apiKey.key}`;
const keyResults = await compareAsync({
  'authenticate(), API key (100 configured)': () => auth.authenticate(apiHeader),
  'bare SHA-256 of the key (floor)': async () => createHash('sha256').update(apiKey.key).digest('hex'),
});
report('API keys: authentications per second', keyResults, {
  subject: 'authenticate(), API key (100 configured)',
  baseline: 'bare SHA-256 of the key (floor)',
  target: '>= 0.25x',
  pass: (r) => r >= 0.25,
});
