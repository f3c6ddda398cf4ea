/**
 * The mesh topic validator (issue 15 item 2): every rejection it must make, one by one, and
 * the acceptance of a well-signed message.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import {
  envelopeVerifier,
  generateKeyPair,
  identityFromPublicKey,
  signEnvelope,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import { gossipValidator } from '../../../src/transports/mesh/gossip-validator.js';
import {
  MESH_TOPIC_PATTERNS,
  capabilitiesTopic,
  isMeshTopic,
} from '../../../src/transports/mesh/mesh-topics.js';

const key = generateKeyPair();
const peerId = identityFromPublicKey(key.publicKey).peerId;
const TOPIC = 'hyperspace/crdt/sync/memory';
const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const signed = (d: JsonValue, domain = TOPIC, signer: Ed25519KeyPair = key, now?: () => number) =>
  signEnvelope(d, { key: signer, domain, from: 'peerId', ...(now === undefined ? {} : { now }) });
const fresh = () => gossipValidator({ verifier: envelopeVerifier(), maxMessageBytes: 4096 });

describe('the gossip validator', () => {
  it('accepts a message signed for its topic by its originator', () => {
    const verdict = fresh().validate(TOPIC, bytes(signed({ hello: 'mesh' })));
    expect(verdict.result).toBe('accept');
  });

  it('rejects a bad signature (a changed payload)', () => {
    const env = { ...signed({ n: 1 }), d: { n: 2 } };
    expect(fresh().validate(TOPIC, bytes(env))).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('rejects a message signed for another topic, with dom and without', () => {
    const other = 'hyperspace/reputation/x';
    expect(fresh().validate(TOPIC, bytes(signed(1, other)))).toMatchObject({
      code: 'SIGNATURE_DOMAIN_MISMATCH',
    });
    const bare = signEnvelope(1, { key, domain: other, from: 'peerId', includeDomain: false });
    expect(fresh().validate(TOPIC, bytes(bare))).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('rejects a ts outside the window, either way', () => {
    const old = signed(1, TOPIC, key, () => Date.now() - 10 * 60_000);
    const ahead = signed(1, TOPIC, key, () => Date.now() + 10 * 60_000);
    expect(fresh().validate(TOPIC, bytes(old))).toMatchObject({ code: 'SIGNATURE_EXPIRED' });
    expect(fresh().validate(TOPIC, bytes(ahead))).toMatchObject({ code: 'SIGNATURE_EXPIRED' });
  });

  it('ignores (never accepts, never rejects) a valid message signed before its start (MESH-32)', () => {
    const started = Date.now();
    const validator = gossipValidator({
      verifier: envelopeVerifier(),
      maxMessageBytes: 4096,
      notBefore: started,
    });
    const before = bytes(signed({ n: 1 }, TOPIC, key, () => started - 1000));
    expect(validator.validate(TOPIC, before)).toMatchObject({
      result: 'ignore',
      code: 'SIGNATURE_EXPIRED',
    });
    // its nonce is remembered: the same message again is a replay
    expect(validator.validate(TOPIC, before)).toMatchObject({
      result: 'reject',
      code: 'SIGNATURE_REPLAYED',
    });
    // a forged or foreign one signed before the start is still rejected, so scored
    expect(
      validator.validate(TOPIC, bytes({ ...signed({ n: 2 }, TOPIC, key, () => started - 1000), d: 3 })),
    ).toMatchObject({ result: 'reject', code: 'SIGNATURE_INVALID' });
    const stranger = identityFromPublicKey(generateKeyPair().publicKey).peerId;
    const lying = { ...signed({ n: 4 }, TOPIC, key, () => started - 1000), from: stranger };
    expect(validator.validate(TOPIC, bytes(lying))).toMatchObject({
      result: 'reject',
      code: 'SIGNER_MISMATCH',
    });
    // what is signed from the start on is accepted
    expect(validator.validate(TOPIC, bytes(signed({ n: 5 }, TOPIC, key, () => started))).result).toBe(
      'accept',
    );
  });

  it('rejects a replayed nonce', () => {
    const validator = fresh();
    const env = bytes(signed({ once: true }));
    expect(validator.validate(TOPIC, env).result).toBe('accept');
    expect(validator.validate(TOPIC, env)).toMatchObject({ code: 'SIGNATURE_REPLAYED' });
  });

  it('rejects a from that is not the key’s; the signer is the originator (MESH-48)', () => {
    const strangerKey = generateKeyPair();
    const stranger = identityFromPublicKey(strangerKey.publicKey).peerId;
    const lying = { ...signed(1), from: stranger };
    expect(fresh().validate(TOPIC, bytes(lying))).toMatchObject({ code: 'SIGNER_MISMATCH' });
    // the from of a did:key signer is the same key's PeerId: the verdict names the PeerId
    const asDid = signEnvelope(2, { key, domain: TOPIC, from: 'did' });
    expect(fresh().validate(TOPIC, bytes(asDid))).toMatchObject({ result: 'accept', signer: { peerId } });
    // gossipsub carries no originator: whoever forwards it, a message is its signer's
    expect(fresh().validate(TOPIC, bytes(signed(3, TOPIC, strangerKey)))).toMatchObject({
      result: 'accept',
      signer: { peerId: stranger },
    });
  });

  it('rejects cards on another peer’s capability topic', () => {
    const other = generateKeyPair();
    const otherId = identityFromPublicKey(other.publicKey).peerId;
    const topic = capabilitiesTopic(otherId);
    expect(fresh().validate(topic, bytes(signed(1, topic)))).toMatchObject({
      code: 'SIGNER_MISMATCH',
    });
    expect(fresh().validate(topic, bytes(signed(1, topic, other))).result).toBe('accept');
  });

  it('rejects oversized, non-JSON and malformed messages, and unknown topics', () => {
    const big = bytes(signed('x'.repeat(5000)));
    expect(fresh().validate(TOPIC, big)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(fresh().validate(TOPIC, new Uint8Array([0xff, 0xfe]))).toMatchObject({
      code: 'PARSE_ERROR',
    });
    expect(fresh().validate(TOPIC, bytes({ hello: 1 }))).toMatchObject({
      code: 'MALFORMED_ENVELOPE',
    });
    expect(fresh().validate('plexus/other', bytes(signed(1, 'plexus/other')))).toMatchObject({
      result: 'reject',
    });
  });

  it('knows the six seed topics by their exact names', () => {
    expect(MESH_TOPIC_PATTERNS).toHaveLength(6);
    for (const topic of [
      capabilitiesTopic(peerId),
      'hyperspace/tasks/web-research',
      'hyperspace/trajectories/web-research',
      `hyperspace/reputation/${peerId}`,
      'hyperspace/crdt/sync/memory',
      'hyperspace/settlements/42',
    ]) {
      expect(isMeshTopic(topic), topic).toBe(true);
    }
    for (const topic of ['hyperspace/capabilities/', 'hyperspace/crdt/sync/other', 'hyperspace/tasks/a/b']) {
      expect(isMeshTopic(topic), topic).toBe(false);
    }
  });
});
