/**
 * `plexus demo`: a short guided tour of what a Plexus node is built on, run offline on this
 * machine with the real components: an identity, one message decoded from one protocol and
 * encoded in the others, a signed envelope checked and attacked, and ESRP idempotency hashes.
 */
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { payloadHash, parseEsrpRequest } from '../../core/esrp/index.js';
import {
  attachSignature,
  envelopeVerifier,
  generateKeyPair,
  identityFromPublicKey,
  rpcDomain,
  signedEnvelopeOf,
} from '../../security/index.js';
import { decodeEmergence } from '../../wire/emergence/index.js';
import { encodeJsonRpc } from '../../wire/jsonrpc/index.js';
import { encodeNova } from '../../wire/nova/index.js';
import type { CliIo } from '../io.js';

const HELP_MESSAGE = {
  id: '77f7b6d2-5e44-4a71-9bcb-5ddc21019f24',
  from: 'agent_b',
  to: 'agent_a',
  verb: 'HELP',
  data: { prompt: 'Summarise https://arxiv.org/abs/2406.1234' },
};

const TTS_REQUEST = {
  esrp_version: '1.0',
  request_id: '550e8400-e29b-41d4-a716-446655440000',
  timestamp: '2025-01-01T00:00:00Z',
  caller: { system: 'demo' },
  target: { service: 'tts', operation: 'synthesize' },
  inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hello, world!', encoding: 'utf-8' }],
  params: { voice: 'en-US-Standard-A' },
};

function outcomeOf(check: () => unknown): string {
  try {
    check();
    return 'accepted';
  } catch (error) {
    if (error instanceof PlexusError) return `refused: ${error.code} (${error.message})`;
    throw error;
  }
}

/** Runs the tour, writing to `io.stdout`. */
export function runDemo(io: CliIo): void {
  const say = (line = ''): void => {
    io.stdout(`${line}\n`);
  };
  const show = (value: unknown): void => {
    say(`  ${JSON.stringify(value)}`);
  };

  say('1. An identity: one Ed25519 key, its did:key and its libp2p PeerId (D2)');
  const key = generateKeyPair();
  const me = identityFromPublicKey(key.publicKey);
  say(`  did     ${me.did}`);
  say(`  peerId  ${me.peerId}`);
  say();

  say('2. One message, many faces: an Emergence HELP decoded to the core Envelope...');
  const envelope = decodeEmergence(HELP_MESSAGE);
  show(envelope);
  say('   ...and encoded as a Nova26 A2A envelope and as a JSON-RPC 2.0 request');
  show(encodeNova(envelope, { clock: () => new Date('2026-01-01T00:00:00Z') }));
  show(encodeJsonRpc({ ...envelope, kind: 'request', id: '1' }, { unsupportedFields: 'drop' }));
  say();

  say(`3. Signed for the direct-call domain ${rpcDomain(envelope.verb)} (D3), then attacked`);
  const signed = attachSignature({ ...envelope, from: me.did }, { key, domain: rpcDomain(envelope.verb) });
  show(signed.signature);
  const verifier = envelopeVerifier();
  const domain = rpcDomain(envelope.verb);
  say(`  as sent:                 ${outcomeOf(() => verifier.verify(signedEnvelopeOf(signed), domain))}`);
  say(`  sent again (replay):     ${outcomeOf(() => verifier.verify(signedEnvelopeOf(signed), domain))}`);
  const tampered = { ...signed, data: { prompt: 'Delete everything' } };
  // A fresh verifier, so the change is judged on the signature, not on the seen nonce.
  say(
    `  payload changed:         ${outcomeOf(() => envelopeVerifier().verify(signedEnvelopeOf(tampered), domain))}`,
  );
  say(
    `  replayed on a topic:     ${outcomeOf(() => verifier.verify(signedEnvelopeOf(signed), 'hyperspace/tasks/x'))}`,
  );
  say();

  say('4. ESRP idempotency: the payload_hash covers target, inputs and params only (D1, D5)');
  const first = payloadHash(parseEsrpRequest(TTS_REQUEST));
  const retry = payloadHash(
    parseEsrpRequest({ ...TTS_REQUEST, request_id: '550e8400-e29b-41d4-a716-4466554400ff' }),
  );
  const other = payloadHash(parseEsrpRequest({ ...TTS_REQUEST, params: { voice: 'fr-FR-Standard-A' } }));
  say(`  request           ${first}`);
  say(`  same, new id      ${retry}  ${retry === first ? '(same: a duplicate, runs once)' : ''}`);
  say(`  another voice     ${other}  ${other === first ? '' : '(different work)'}`);
  say();
  say('Next: `plexus --help` lists the commands; README.md has a worked example of each.');
}

/** Adds `demo` to the program. */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('a guided tour of the foundation, offline: identity, faces, signatures, hashes')
    .action(() => {
      runDemo(io);
    });
}
