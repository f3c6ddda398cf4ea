import { describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/security/ed25519.js';
import {
  identityFromBase64Url,
  identityFromName,
  identityFromPublicKey,
  identityName,
  publicKeyFromIdentity,
} from '../../src/security/identity.js';
import { expectPlexusError } from './expect-error.js';

describe('identityFromPublicKey', () => {
  it('names one key by its did:key and its PeerId', () => {
    const key = generateKeyPair();
    const id = identityFromPublicKey(key.publicKey);
    expect(id.did).toMatch(/^did:key:z6Mk/);
    expect(id.peerId).toMatch(/^12D3KooW/);
    expect(id.publicKey).toEqual(key.publicKey);
    expect(Buffer.from(id.publicKeyBase64Url, 'base64url')).toEqual(Buffer.from(key.publicKey));
    expect(publicKeyFromIdentity(id.did)).toEqual(key.publicKey);
    expect(publicKeyFromIdentity(id.peerId)).toEqual(key.publicKey);
    expect(identityName(id, 'did')).toBe(id.did);
    expect(identityName(id, 'peerId')).toBe(id.peerId);
  });

  it('caches: the same key gives the same identity object, by bytes or by base64url', () => {
    const key = generateKeyPair();
    const a = identityFromPublicKey(key.publicKey);
    expect(identityFromPublicKey(new Uint8Array(key.publicKey))).toBe(a);
    expect(identityFromBase64Url(a.publicKeyBase64Url)).toBe(a);
  });

  it('is not changed when the caller later changes its buffer', () => {
    const key = generateKeyPair();
    const bytes = new Uint8Array(key.publicKey);
    const id = identityFromPublicKey(bytes);
    bytes.fill(0);
    expect(id.publicKey).toEqual(key.publicKey);
  });
});

describe('publicKeyFromIdentity', () => {
  it('rejects strings that are neither a did:key nor a PeerId', () => {
    expect(
      expectPlexusError(() => publicKeyFromIdentity('alice@example.com'), 'INVALID_PARAMS').message,
    ).toMatch(/neither a did:key/);
    expectPlexusError(() => publicKeyFromIdentity('did:web:example.com'), 'INVALID_PARAMS');
    expectPlexusError(
      () => publicKeyFromIdentity('QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N'),
      'INVALID_PARAMS',
    );
    expectPlexusError(() => publicKeyFromIdentity(7 as unknown as string), 'INVALID_PARAMS');
  });
});

describe('identityFromName', () => {
  it('gives the identity of a did:key or a PeerId, the same object each time', () => {
    const key = generateKeyPair();
    const id = identityFromPublicKey(key.publicKey);
    expect(identityFromName(id.did)).toBe(id);
    expect(identityFromName(id.peerId)).toBe(id);
    expect(identityFromName(id.did)).toBe(id); // from the cache
  });

  it('hands out copies of the cached key: changing one changes nothing cached', () => {
    const key = generateKeyPair();
    const { did } = identityFromName(identityFromPublicKey(key.publicKey).did);
    const bytes = publicKeyFromIdentity(did);
    bytes.fill(0);
    expect(publicKeyFromIdentity(did)).toEqual(key.publicKey);
    expect(identityFromName(did).publicKey).toEqual(key.publicKey);
  });

  it('refuses a name that is neither, every time (refusals are not cached)', () => {
    for (let i = 0; i < 2; i++) {
      expect(
        expectPlexusError(() => identityFromName('did:key:zNotBase58!'), 'INVALID_PARAMS').message,
      ).toMatch(/did:key/);
      expectPlexusError(() => identityFromName('alice@example.com'), 'INVALID_PARAMS');
    }
  });
});
