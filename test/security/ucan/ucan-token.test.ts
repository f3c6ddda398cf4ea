import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { artifactCid, parseCid } from '../../../src/core/cid.js';
import { sign } from '../../../src/security/ed25519.js';
import {
  MAX_UCAN_LENGTH,
  UCAN_VERSION,
  decodeUcan,
  signUcan,
  ucanCid,
  verifyUcanSignature,
} from '../../../src/security/ucan/ucan-token.js';
import { expectPlexusError } from '../expect-error.js';
import { ALL, T0, alice, expectRefusal, node, root, token } from './fixtures.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token with a hand-made header and payload, signed by `root`. */
function forge(header: unknown, payload: unknown): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${Buffer.from(sign(Buffer.from(input), root.key)).toString('base64url')}`;
}

const goodPayload = () => ({
  ucv: '0.10.0',
  iss: root.did,
  aud: alice.did,
  exp: Math.floor(T0 / 1000) + 3600,
  cap: ALL,
  prf: [],
});

describe('signUcan / decodeUcan', () => {
  it('writes the UCAN 0.10 header and payload and reads them back', () => {
    const t = token(
      root,
      alice,
      { 'agentese:session/*': { 'soul/read': [{}] } },
      { nonce: 'n1', facts: { a: 1 } },
    );
    const [h, p] = t.jwt.split('.') as [string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'EdDSA', typ: 'JWT' });
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(payload).toEqual({
      ucv: UCAN_VERSION,
      iss: root.did,
      aud: alice.did,
      exp: Math.floor(T0 / 1000) + 3600,
      nnc: 'n1',
      fct: { a: 1 },
      cap: { 'agentese:session/*': { 'soul/read': [{}] } },
      prf: [],
    });
    const decoded = decodeUcan(t.jwt);
    expect(decoded.payload).toEqual(payload);
    expect(verifyUcanSignature(decoded)).toBe(true);
  });

  it('names a token by its canonical CID: raw codec, SHA-256, base32', () => {
    const t = token(root, alice, ALL);
    expect(t.cid).toBe(ucanCid(t.jwt));
    expect(t.cid).toBe(artifactCid(Buffer.from(t.jwt)));
    expect(t.cid.startsWith('bafkrei')).toBe(true);
    expect(parseCid(t.cid).codec).toBe('raw');
  });

  it('writes exp null for a token that never expires, and nbf when asked', () => {
    const t = token(root, alice, ALL, { expiresAt: null, notBefore: T0 + 500 });
    expect(t.payload.exp).toBeNull();
    expect(t.payload.nbf).toBe(Math.ceil((T0 + 500) / 1000));
  });

  it('gives every token a fresh random nonce by default', () => {
    expect(token(root, alice, ALL).payload.nnc).not.toBe(token(root, alice, ALL).payload.nnc);
  });

  it('refuses to issue a malformed token', () => {
    expectPlexusError(() => token(root, 'alice', ALL), 'INVALID_PARAMS');
    expectPlexusError(() => token(root, alice, { 'no scheme': { 'a/b': [{}] } }), 'INVALID_PARAMS');
    expectPlexusError(() => token(root, alice, { 'agentese:*': { read: [{}] } }), 'INVALID_PARAMS');
    expectPlexusError(() => token(root, alice, ALL, { proofs: ['not-a-cid'] }), 'INVALID_PARAMS');
    expectPlexusError(() => token(root, alice, ALL, { notBefore: T0 + 7200_000 }), 'INVALID_PARAMS');
  });

  it('detects any change to a signed token', () => {
    const t = token(root, alice, ALL);
    const [h, , s] = t.jwt.split('.') as [string, string, string];
    const altered = `${h}.${b64({ ...t.payload, aud: node.did })}.${s}`;
    expect(verifyUcanSignature(decodeUcan(altered))).toBe(false);
  });

  it('round-trips arbitrary capability maps and facts', () => {
    const ability = fc.constantFrom('*', 'soul/read', 'effect/writes', 'atelier/*', 'crud/update');
    const resource = fc.stringMatching(/^[a-z_/*]{1,12}$/).map((r) => `agentese:${r}`);
    const caveat = fc.dictionary(fc.constantFrom('tenant', 'session', 'x'), fc.string({ maxLength: 8 }), {
      maxKeys: 2,
    });
    const cap = fc.dictionary(
      resource,
      fc.dictionary(ability, fc.array(caveat, { minLength: 1, maxLength: 3 }), { minKeys: 1 }),
    );
    fc.assert(
      fc.property(cap, fc.string({ maxLength: 20 }), (c, nonce) => {
        const t = signUcan({ key: root.key, audience: alice.did, capabilities: c, nonce, now: () => T0 });
        const back = decodeUcan(t.jwt);
        expect(back.payload.cap).toEqual(c);
        expect(back.payload.nnc).toBe(nonce);
        expect(verifyUcanSignature(back)).toBe(true);
      }),
      { numRuns: 60, seed: 1010 },
    );
  });
});

describe('decodeUcan refuses bad tokens', () => {
  it('that are not three base64url JSON parts', () => {
    for (const bad of [
      '',
      'a.b',
      'a.b.c.d',
      '!!.e30.sig',
      `${b64({ alg: 'EdDSA', typ: 'JWT' })}.notjson.c`,
    ]) {
      expectRefusal(() => decodeUcan(bad), 'UNAUTHORIZED', 'malformed');
    }
    expectRefusal(() => decodeUcan(`${'a'.repeat(MAX_UCAN_LENGTH)}.b.c`), 'UNAUTHORIZED', 'malformed');
  });

  it('signed with another algorithm, or none', () => {
    expectRefusal(
      () => decodeUcan(forge({ alg: 'none', typ: 'JWT' }, goodPayload())),
      'UNAUTHORIZED',
      'algorithm',
    );
    expectRefusal(
      () => decodeUcan(forge({ alg: 'HS256', typ: 'JWT' }, goodPayload())),
      'UNAUTHORIZED',
      'algorithm',
    );
    expectRefusal(
      () => decodeUcan(forge({ alg: 'EdDSA', typ: 'JWE' }, goodPayload())),
      'UNAUTHORIZED',
      'malformed',
    );
    expectRefusal(
      () => decodeUcan(forge({ alg: 'EdDSA', typ: 'JWT', crit: ['x'] }, goodPayload())),
      'UNAUTHORIZED',
      'malformed',
    );
  });

  it('of another UCAN version', () => {
    for (const ucv of ['0.9.1', '1.0.0', 10, undefined]) {
      expectRefusal(
        () => decodeUcan(forge({ alg: 'EdDSA', typ: 'JWT' }, { ...goodPayload(), ucv })),
        'UNAUTHORIZED',
        'version',
      );
    }
  });

  it('with a payload field of the wrong type', () => {
    const bad = [
      { iss: 'did:web:example.com' },
      { aud: 42 },
      { exp: undefined },
      { exp: 1.5 },
      { nbf: -1 },
      { nbf: Math.floor(T0 / 1000) + 7200 },
      { nnc: 5 },
      { fct: [] },
      { cap: [] },
      { cap: { 'agentese:*': {} } },
      { cap: { 'agentese:*': { 'soul/read': {} } } },
      { cap: { 'agentese:*': { 'soul/read': ['x'] } } },
      { prf: 'bafk' },
      { prf: [artifactCid(Buffer.from('x')).toUpperCase()] },
    ];
    for (const change of bad) {
      const payload: Record<string, unknown> = { ...goodPayload(), ...change };
      if ('exp' in change && change.exp === undefined) delete payload['exp'];
      expectRefusal(
        () => decodeUcan(forge({ alg: 'EdDSA', typ: 'JWT' }, payload)),
        'UNAUTHORIZED',
        'malformed',
      );
    }
  });

  it('whose signature is not 64 bytes', () => {
    const t = token(root, alice, ALL);
    const [h, p] = t.jwt.split('.') as [string, string];
    expectRefusal(() => decodeUcan(`${h}.${p}.`), 'UNAUTHORIZED', 'malformed');
    expectRefusal(() => decodeUcan(`${h}.${p}.AAAA`), 'UNAUTHORIZED', 'malformed');
  });
});
