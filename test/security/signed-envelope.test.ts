import { createHash, verify as cryptoVerify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlexusError, type PlexusErrorCode } from '../../src/core/errors.js';
import type { JsonValue } from '../../src/core/json.js';
import { keyPairFromSeed } from '../../src/security/ed25519.js';
import { envelopeVerifier, DEFAULT_WINDOW_MS } from '../../src/security/envelope-verifier.js';
import { identityFromPublicKey } from '../../src/security/identity.js';
import { replayCache } from '../../src/security/replay-cache.js';
import {
  assertSignedEnvelopeShape,
  signEnvelope,
  type SignedEnvelope,
} from '../../src/security/signed-envelope.js';
import { rpcDomain } from '../../src/security/signing-digest.js';
import { expectPlexusError } from './expect-error.js';

const TS = 1735689600000;
const TOPIC = 'hyperspace/tasks/web-research';
const KEY = keyPairFromSeed('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const OTHER = keyPairFromSeed('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const NONCE = new Uint8Array(Array.from({ length: 16 }, (_, i) => i));
const at = (t: number) => () => t;

function signAt(d: JsonValue, overrides: Partial<Parameters<typeof signEnvelope>[1]> = {}): SignedEnvelope {
  return signEnvelope(d, { key: KEY, domain: TOPIC, now: at(TS), ...overrides });
}

function verifierAt(t = TS, windowMs?: number) {
  return envelopeVerifier({ now: at(t), ...(windowMs === undefined ? {} : { windowMs }) });
}

function withField(env: SignedEnvelope, field: string, value: unknown): unknown {
  return { ...env, [field]: value };
}

function without(env: SignedEnvelope, field: string): unknown {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k !== field));
}

// Pinned once (and reproduced by signing the independently built digest with node:crypto):
// a change here means the signed bytes changed, which is a protocol break.
const PINNED_SIG = 'g86RXS2kfMFVwACmZRW5uhx3TyrzsCmEeSNX9sNDYCAXZW7zuvJg9QrtkaREbDO5fN8VzQVF628NOuBx73XoAw';

describe('signEnvelope', () => {
  it('produces the D3 fields, with dom, and a payload left as given', () => {
    const d = { task: 'summarise', n: 3 };
    const env = signAt(d, { nonce: NONCE });
    expect(Object.keys(env)).toEqual(['_v', 'ts', 'nonce', 'from', 'pk', 'sig', 'dom', 'd']);
    expect(env._v).toBe(2);
    expect(env.ts).toBe(TS);
    expect(env.nonce).toBe(Buffer.from(NONCE).toString('base64url'));
    expect(env.from).toBe(identityFromPublicKey(KEY.publicKey).did);
    expect(Buffer.from(env.pk, 'base64url')).toEqual(Buffer.from(KEY.publicKey));
    expect(Buffer.from(env.sig, 'base64url')).toHaveLength(64);
    expect(env.dom).toBe(TOPIC);
    expect(env.d).toBe(d);
  });

  it('uses the PeerId as from when asked, and omits dom when asked', () => {
    const env = signAt(null, { from: 'peerId', includeDomain: false });
    expect(env.from).toMatch(/^12D3KooW/);
    expect('dom' in env).toBe(false);
    expect(verifierAt().verify(env, TOPIC).signer.peerId).toBe(env.from);
  });

  it('draws a fresh random nonce each time', () => {
    expect(signAt(1).nonce).not.toBe(signAt(1).nonce);
  });

  it('reproduces the pinned vector, whose signature node:crypto accepts over the independently built digest', () => {
    const env = signAt({ hello: 'mesh' }, { nonce: NONCE });
    // Pinned: RFC 8032 test-1 key, nonce 00…0f, ts 2025-01-01T00:00:00Z. Ed25519 is deterministic.
    expect(env).toEqual({
      _v: 2,
      ts: 1735689600000,
      nonce: 'AAECAwQFBgcICQoLDA0ODw',
      from: 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw',
      pk: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      sig: PINNED_SIG,
      dom: TOPIC,
      d: { hello: 'mesh' },
    });
    const dom = Buffer.from(TOPIC);
    const from = Buffer.from(env.from);
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(env.ts));
    const dHash = createHash('sha256').update('{"hello":"mesh"}').digest();
    const preimage = Buffer.concat([
      Buffer.from([dom.length]),
      dom,
      ts,
      Buffer.from([16]),
      NONCE,
      Buffer.from([from.length]),
      from,
      dHash,
    ]);
    const digest = createHash('sha256').update(preimage).digest();
    expect(cryptoVerify(null, digest, KEY.publicKeyObject, Buffer.from(env.sig, 'base64url'))).toBe(true);
  });

  it('rejects a payload that is not I-JSON and a nonce that is not 16 bytes', () => {
    expectPlexusError(() => signAt({ x: Number.POSITIVE_INFINITY }), 'INVALID_PARAMS');
    expectPlexusError(() => signAt(1, { nonce: new Uint8Array(8) }), 'INVALID_PARAMS');
    expectPlexusError(() => signAt(1, { now: at(-5) }), 'INVALID_PARAMS');
  });
});

describe('envelopeVerifier', () => {
  it('accepts a good envelope and returns the signer', () => {
    const env = signAt({ q: 'agent meshes' });
    const result = verifierAt().verify(env, TOPIC);
    expect(result.envelope).toBe(env);
    expect(result.domain).toBe(TOPIC);
    expect(result.signer.did).toBe(env.from);
    expect(result.signer.publicKey).toEqual(KEY.publicKey);
  });

  it('accepts an envelope that went through JSON text and back', () => {
    const env = signAt({ list: [1, 2.5, 'x', null, { z: true, a: false }] });
    expect(() => verifierAt().verify(JSON.parse(JSON.stringify(env)), TOPIC)).not.toThrow();
  });

  it('accepts direct-call domains built by rpcDomain', () => {
    const env = signAt({ query: 'x' }, { domain: rpcDomain('memory.search') });
    expect(verifierAt().verify(env, 'plexus/rpc/memory.search').domain).toBe('plexus/rpc/memory.search');
  });

  describe('a changed payload', () => {
    it('is SIGNATURE_INVALID', () => {
      const env = signAt({ amount: 1 });
      const e = expectPlexusError(
        () => verifierAt().verify({ ...env, d: { amount: 1000 } }, TOPIC),
        'SIGNATURE_INVALID',
      );
      expect(e.message).toMatch(/"sig"/);
      expect(e.details).toEqual({ field: 'sig' });
    });

    it('is SIGNATURE_INVALID when only a header field signed over changes (ts inside the window)', () => {
      const env = signAt(1);
      expectPlexusError(() => verifierAt().verify({ ...env, ts: TS + 1 }, TOPIC), 'SIGNATURE_INVALID');
      const otherNonce = Buffer.alloc(16, 9).toString('base64url');
      expectPlexusError(() => verifierAt().verify({ ...env, nonce: otherNonce }, TOPIC), 'SIGNATURE_INVALID');
      const peerId = identityFromPublicKey(KEY.publicKey).peerId;
      expectPlexusError(() => verifierAt().verify({ ...env, from: peerId }, TOPIC), 'SIGNATURE_INVALID');
    });

    it('does not burn the nonce: the genuine envelope still verifies after a forged one', () => {
      const env = signAt({ amount: 1 });
      const verifier = verifierAt();
      expectPlexusError(() => verifier.verify({ ...env, d: { amount: 2 } }, TOPIC), 'SIGNATURE_INVALID');
      expect(() => verifier.verify(env, TOPIC)).not.toThrow();
    });
  });

  describe('a signature made for another domain', () => {
    it('is SIGNATURE_DOMAIN_MISMATCH when dom names the other domain', () => {
      const env = signAt(1, { domain: 'hyperspace/reputation/12D3KooWx' });
      const e = expectPlexusError(() => verifierAt().verify(env, TOPIC), 'SIGNATURE_DOMAIN_MISMATCH');
      expect(e.message).toContain('hyperspace/reputation/12D3KooWx');
      expect(e.message).toContain(TOPIC);
      expect(e.details).toEqual({ field: 'dom' });
    });

    it('is SIGNATURE_INVALID when dom is absent or was rewritten to the expected domain', () => {
      const env = signAt(1, { domain: 'hyperspace/reputation/12D3KooWx' });
      expectPlexusError(() => verifierAt().verify(without(env, 'dom'), TOPIC), 'SIGNATURE_INVALID');
      expectPlexusError(() => verifierAt().verify({ ...env, dom: TOPIC }, TOPIC), 'SIGNATURE_INVALID');
    });

    it('is SIGNATURE_DOMAIN_MISMATCH between a topic and an RPC verb domain', () => {
      const env = signAt(1, { domain: rpcDomain('tool.invoke') });
      expectPlexusError(() => verifierAt().verify(env, rpcDomain('tool.list')), 'SIGNATURE_DOMAIN_MISMATCH');
    });
  });

  describe('a stale or future ts', () => {
    it('is SIGNATURE_EXPIRED just past the default five-minute window, either way', () => {
      const env = signAt(1);
      expect(DEFAULT_WINDOW_MS).toBe(300_000);
      const e = expectPlexusError(
        () => verifierAt(TS + DEFAULT_WINDOW_MS + 1).verify(env, TOPIC),
        'SIGNATURE_EXPIRED',
      );
      expect(e.message).toMatch(/"ts".*in the past/);
      const f = expectPlexusError(
        () => verifierAt(TS - DEFAULT_WINDOW_MS - 1).verify(env, TOPIC),
        'SIGNATURE_EXPIRED',
      );
      expect(f.message).toMatch(/in the future/);
    });

    it('is accepted exactly at the window’s edges', () => {
      expect(() => verifierAt(TS + DEFAULT_WINDOW_MS).verify(signAt(1), TOPIC)).not.toThrow();
      expect(() => verifierAt(TS - DEFAULT_WINDOW_MS).verify(signAt(1), TOPIC)).not.toThrow();
    });

    it('is SIGNATURE_EXPIRED before notBefore (a node start), inside the window or not', () => {
      const verifier = envelopeVerifier({ now: at(TS + 1000), notBefore: TS + 1 });
      const e = expectPlexusError(() => verifier.verify(signAt(1), TOPIC), 'SIGNATURE_EXPIRED');
      expect(e.message).toMatch(/"ts".*before this verifier started/);
      expect(e.details).toEqual({ field: 'ts' });
      expect(() => verifier.verify(signAt(2, { now: at(TS + 1) }), TOPIC)).not.toThrow();
    });

    it('honours a configured window', () => {
      const env = signAt(1);
      expectPlexusError(() => verifierAt(TS + 1001, 1000).verify(env, TOPIC), 'SIGNATURE_EXPIRED');
      expect(() => verifierAt(TS + 1000, 1000).verify(env, TOPIC)).not.toThrow();
      expectPlexusError(() => envelopeVerifier({ windowMs: -1 }), 'INVALID_PARAMS');
    });
  });

  describe('a repeated nonce', () => {
    it('is SIGNATURE_REPLAYED inside the window', () => {
      const env = signAt(1);
      let now = TS;
      const verifier = envelopeVerifier({ now: () => now });
      verifier.verify(env, TOPIC);
      now = TS + DEFAULT_WINDOW_MS;
      const e = expectPlexusError(() => verifier.verify(env, TOPIC), 'SIGNATURE_REPLAYED');
      expect(e.details).toEqual({ field: 'nonce' });
      now = TS + DEFAULT_WINDOW_MS + 1;
      expectPlexusError(() => verifier.verify(env, TOPIC), 'SIGNATURE_EXPIRED');
    });

    it('is tracked per signer: another key may use the same nonce', () => {
      const verifier = verifierAt();
      verifier.verify(signAt(1, { nonce: NONCE }), TOPIC);
      expect(() => verifier.verify(signAt(1, { nonce: NONCE, key: OTHER }), TOPIC)).not.toThrow();
    });

    it('is caught across verifiers that share a replay cache', () => {
      const cache = replayCache();
      const env = signAt(1);
      envelopeVerifier({ now: at(TS), replayCache: cache }).verify(env, TOPIC);
      expectPlexusError(
        () => envelopeVerifier({ now: at(TS), replayCache: cache }).verify(env, TOPIC),
        'SIGNATURE_REPLAYED',
      );
    });

    it('fails closed (SIGNATURE_EXPIRED) for envelopes older than a full cache can vouch for', () => {
      let now = TS;
      const verifier = envelopeVerifier({
        now: () => now,
        replayCache: replayCache({ maxEntries: 4, bucketMs: 10 }),
      });
      const old = signAt(1);
      for (let i = 0; i < 8; i++) {
        now = TS + i * 100;
        verifier.verify(signAt(i, { now: () => now }), TOPIC);
      }
      const e = expectPlexusError(() => verifier.verify(old, TOPIC), 'SIGNATURE_EXPIRED');
      expect(e.message).toMatch(/replay cache/);
      expect(() => verifier.verify(signAt('new', { now: () => now }), TOPIC)).not.toThrow();
    });
  });

  describe('a from that does not match pk', () => {
    it('is SIGNER_MISMATCH for another key’s did:key or PeerId', () => {
      const env = signAt(1);
      const other = identityFromPublicKey(OTHER.publicKey);
      for (const from of [other.did, other.peerId]) {
        const e = expectPlexusError(() => verifierAt().verify({ ...env, from }, TOPIC), 'SIGNER_MISMATCH');
        expect(e.details).toEqual({ field: 'from' });
      }
    });

    it('is SIGNER_MISMATCH when pk is swapped for another key', () => {
      const env = signAt(1);
      const pk = identityFromPublicKey(OTHER.publicKey).publicKeyBase64Url;
      expectPlexusError(() => verifierAt().verify({ ...env, pk }, TOPIC), 'SIGNER_MISMATCH');
    });

    it('is MALFORMED_ENVELOPE when from is no identity at all', () => {
      const e = expectPlexusError(
        () => verifierAt().verify({ ...signAt(1), from: 'alice' }, TOPIC),
        'MALFORMED_ENVELOPE',
      );
      expect(e.details).toEqual({ field: 'from' });
    });
  });

  describe('a malformed field', () => {
    const env = signAt({ ok: true });
    const good64 = Buffer.alloc(64, 1).toString('base64url');
    const cases: [string, unknown, string][] = [
      ['not an object', 'hello', ''],
      ['null', null, ''],
      ['an array', [env], ''],
      ['_v missing', without(env, '_v'), '_v'],
      ['_v 1', withField(env, '_v', 1), '_v'],
      ['_v "2"', withField(env, '_v', '2'), '_v'],
      ['ts missing', without(env, 'ts'), 'ts'],
      ['ts as a string', withField(env, 'ts', String(TS)), 'ts'],
      ['ts fractional', withField(env, 'ts', TS + 0.5), 'ts'],
      ['ts negative', withField(env, 'ts', -1), 'ts'],
      ['nonce missing', without(env, 'nonce'), 'nonce'],
      ['nonce of 15 bytes', withField(env, 'nonce', Buffer.alloc(15).toString('base64url')), 'nonce'],
      [
        'nonce in standard base64 with padding',
        withField(env, 'nonce', Buffer.alloc(16, 250).toString('base64')),
        'nonce',
      ],
      ['nonce not canonical', withField(env, 'nonce', 'A'.repeat(21) + 'B'), 'nonce'],
      ['nonce a number', withField(env, 'nonce', 42), 'nonce'],
      ['from missing', without(env, 'from'), 'from'],
      ['from empty', withField(env, 'from', ''), 'from'],
      ['from too long', withField(env, 'from', 'x'.repeat(257)), 'from'],
      ['from an object', withField(env, 'from', { did: env.from }), 'from'],
      ['pk missing', without(env, 'pk'), 'pk'],
      ['pk of 33 bytes', withField(env, 'pk', Buffer.alloc(33).toString('base64url')), 'pk'],
      ['pk with a bad character', withField(env, 'pk', '*' + env.pk.slice(1)), 'pk'],
      ['sig missing', without(env, 'sig'), 'sig'],
      ['sig of 63 bytes', withField(env, 'sig', Buffer.alloc(63).toString('base64url')), 'sig'],
      ['sig with padding', withField(env, 'sig', good64 + '=='), 'sig'],
      ['dom empty', withField(env, 'dom', ''), 'dom'],
      ['dom a number', withField(env, 'dom', 7), 'dom'],
      ['d missing', without(env, 'd'), 'd'],
      ['an unknown field', withField(env, 'extra', 1), 'extra'],
      ['a field set to undefined', withField(env, 'dom', undefined), 'dom'],
      ['d not I-JSON', withField(env, 'd', { x: Number.NaN }), 'd'],
    ];
    for (const [what, value, field] of cases) {
      it(`is MALFORMED_ENVELOPE naming "${field}": ${what}`, () => {
        const e = expectPlexusError(() => verifierAt().verify(value, TOPIC), 'MALFORMED_ENVELOPE');
        expect(e.details).toEqual({ field });
        if (field !== '') expect(e.message).toContain(`"${field}"`);
      });
    }
  });

  it('rejects an invalid expected domain as a caller error', () => {
    expectPlexusError(() => verifierAt().verify(signAt(1, { includeDomain: false }), ''), 'INVALID_PARAMS');
  });
});

describe('assertSignedEnvelopeShape', () => {
  it('returns a well-formed envelope unchanged', () => {
    const env = signAt([1, 2, 3]);
    expect(assertSignedEnvelopeShape(env)).toBe(env);
  });
});

describe('signed envelopes (properties)', () => {
  const domain = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 });
  const payload = fc.jsonValue() as fc.Arbitrary<JsonValue>;

  it('sign → verify holds for arbitrary JSON payloads and domains, through JSON text too', () => {
    fc.assert(
      fc.property(payload, domain, fc.boolean(), (d, dom, peer) => {
        const env = signEnvelope(d, { key: KEY, domain: dom, now: at(TS), from: peer ? 'peerId' : 'did' });
        verifierAt().verify(env, dom);
        verifierAt().verify(JSON.parse(JSON.stringify(env)), dom);
      }),
      { numRuns: 150 },
    );
  });

  type Mutation = [field: string, mutate: (env: SignedEnvelope) => unknown, codes: PlexusErrorCode[]];
  const mutations: Mutation[] = [
    ['_v', (e) => ({ ...e, _v: 1 }), ['MALFORMED_ENVELOPE']],
    ['ts', (e) => ({ ...e, ts: e.ts + 1 }), ['SIGNATURE_INVALID']],
    ['nonce', (e) => ({ ...e, nonce: flipBase64Url(e.nonce, 16) }), ['SIGNATURE_INVALID']],
    [
      'from',
      (e) => ({
        ...e,
        from: e.from.startsWith('did:')
          ? identityFromPublicKey(KEY.publicKey).peerId
          : identityFromPublicKey(KEY.publicKey).did,
      }),
      ['SIGNATURE_INVALID'],
    ],
    [
      'pk',
      (e) => ({ ...e, pk: identityFromPublicKey(OTHER.publicKey).publicKeyBase64Url }),
      ['SIGNER_MISMATCH'],
    ],
    ['sig', (e) => ({ ...e, sig: flipBase64Url(e.sig, 64) }), ['SIGNATURE_INVALID']],
    ['dom', (e) => ({ ...e, dom: `${String(e.dom)}/x` }), ['SIGNATURE_DOMAIN_MISMATCH']],
    ['d', (e) => ({ ...e, d: [e.d] }), ['SIGNATURE_INVALID']],
    ['extra', (e) => ({ ...e, extra: null }), ['MALFORMED_ENVELOPE']],
    ['missing', (e) => without(e, 'sig'), ['MALFORMED_ENVELOPE']],
  ];

  it('rejects any single-field mutation, each with its own code', () => {
    fc.assert(
      fc.property(
        payload,
        domain,
        fc.boolean(),
        fc.integer({ min: 0, max: mutations.length - 1 }),
        (d, dom, peer, m) => {
          const env = signEnvelope(d, { key: KEY, domain: dom, now: at(TS), from: peer ? 'peerId' : 'did' });
          const [, mutate, codes] = mutations[m]!;
          let thrown: unknown;
          try {
            verifierAt().verify(mutate(env), dom);
          } catch (err) {
            thrown = err;
          }
          expect(thrown).toBeInstanceOf(PlexusError);
          expect(codes).toContain((thrown as PlexusError).code);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Flips one bit of the decoded bytes and re-encodes (always canonical, always different). */
function flipBase64Url(text: string, length: number): string {
  const bytes = Buffer.from(text, 'base64url');
  expect(bytes).toHaveLength(length);
  bytes[bytes.length >> 1]! ^= 0x10;
  return bytes.toString('base64url');
}
