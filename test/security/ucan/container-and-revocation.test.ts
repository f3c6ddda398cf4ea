import { describe, expect, it } from 'vitest';
import {
  encodeCapabilityCollection,
  encodeCapabilityContainer,
  leafOf,
  parseCapabilityContainer,
  proofStore,
} from '../../../src/security/ucan/chain-container.js';
import { createRevocation, verifyRevocation } from '../../../src/security/ucan/revocation.js';
import { expectPlexusError } from '../expect-error.js';
import { ALL, alice, bob, expectRefusal, root, token } from './fixtures.js';

describe('capability containers', () => {
  const r = token(root, alice, ALL);
  const a = token(alice, bob, ALL, { proofs: [r.cid] });

  it('writes and reads the comma form, dropping duplicates and ignoring spaces', () => {
    const text = encodeCapabilityContainer(a, [r, r.jwt]);
    expect(text).toBe(`${a.jwt},${r.jwt}`);
    expect(parseCapabilityContainer(` ${a.jwt} , ${r.jwt} `)).toEqual({ leaf: a.jwt, proofs: [r.jwt] });
    expect(leafOf(text)).toBe(a.jwt);
    expect(leafOf(a.jwt)).toBe(a.jwt);
  });

  it('writes and reads the UCAN JSON collection', () => {
    const text = encodeCapabilityCollection(a, [r]);
    expect(JSON.parse(text)).toEqual({ '/': a.jwt, [r.cid]: r.jwt });
    expect(parseCapabilityContainer(text)).toEqual({ leaf: a.jwt, proofs: [r.jwt] });
    expect(leafOf(text)).toBe(a.jwt);
  });

  it('refuses malformed containers', () => {
    for (const bad of [
      '',
      ',',
      `${a.jwt},`,
      '{',
      '{"a":"b"}',
      '{"/":1}',
      `{"/":"x","y":2}`,
      'x'.repeat(200_000),
    ]) {
      expectRefusal(() => parseCapabilityContainer(bad), 'UNAUTHORIZED', 'malformed');
    }
    expectPlexusError(() => encodeCapabilityContainer('a b'), 'INVALID_PARAMS');
  });

  it('keeps tokens by CID in a bounded proof store', () => {
    const store = proofStore(4);
    expect(store.add(r.jwt)).toBe(r.cid);
    expect(store.resolve(r.cid)).toBe(r.jwt);
    expect(store.resolve(a.cid)).toBeUndefined();
    for (let i = 0; i < 6; i++) store.add(token(root, alice, ALL).jwt);
    expect(store.size).toBeLessThanOrEqual(4);
  });
});

describe('revocation messages', () => {
  const t = token(root, alice, ALL);

  it('signs REVOKE:<cid> with the issuer key and verifies it', () => {
    const message = createRevocation(root.key, t.cid);
    expect(message.iss).toBe(root.did);
    expect(message.revoke).toBe(t.cid);
    expect(verifyRevocation(JSON.parse(JSON.stringify(message)))).toEqual(message);
  });

  it('refuses a forged, altered or malformed revocation', () => {
    const message = createRevocation(root.key, t.cid);
    const other = token(root, bob, ALL).cid;
    expectPlexusError(() => verifyRevocation({ ...message, revoke: other }), 'UNAUTHORIZED');
    expectPlexusError(() => verifyRevocation({ ...message, iss: alice.did }), 'UNAUTHORIZED');
    expectPlexusError(() => verifyRevocation({ ...message, challenge: 'AAAA' }), 'INVALID_PARAMS');
    expectPlexusError(() => verifyRevocation({ ...message, revoke: 'nope' }), 'INVALID_PARAMS');
    expectPlexusError(() => verifyRevocation('x'), 'INVALID_PARAMS');
    expectPlexusError(() => createRevocation(root.key, t.cid.toUpperCase()), 'INVALID_PARAMS');
  });
});
