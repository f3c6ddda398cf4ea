import { readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  generateKeyPair,
  keyPairFromSeed,
  publicKeyFromRaw,
  rawPublicKey,
  sign,
  verify,
} from '../../src/security/ed25519.js';
import { expectPlexusError } from './expect-error.js';

interface Vector {
  name: string;
  secretKey: string;
  publicKey: string;
  message: string;
  signature: string;
}

const fixture = JSON.parse(
  readFileSync(
    new URL('../fixtures/ed25519-rfc8032/rfc8032_section7.1_ed25519.json', import.meta.url),
    'utf8',
  ),
) as { vectors: Vector[] };

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('ed25519 RFC 8032 §7.1 vectors', () => {
  it('has the four vectors of the fixture', () => {
    expect(fixture.vectors.map((v) => v.name)).toHaveLength(4);
  });

  for (const v of fixture.vectors) {
    describe(v.name, () => {
      const key = keyPairFromSeed(v.secretKey);

      it('derives the public key from the secret key', () => {
        expect(toHex(key.publicKey)).toBe(v.publicKey);
        expect(toHex(key.secretKey)).toBe(v.secretKey);
      });

      it('signs to exactly the expected signature', () => {
        expect(toHex(sign(hex(v.message), key))).toBe(v.signature);
      });

      it('verifies the expected signature with the raw public key', () => {
        expect(verify(hex(v.message), hex(v.signature), hex(v.publicKey))).toBe(true);
      });

      it('rejects the signature with any one bit flipped', () => {
        const sig = hex(v.signature);
        for (const bit of [0, 7, 100, 255, 256, 511]) {
          const bad = new Uint8Array(sig);
          bad[bit >> 3]! ^= 1 << (bit & 7);
          expect(verify(hex(v.message), bad, hex(v.publicKey))).toBe(false);
        }
      });

      it('rejects a changed message', () => {
        const msg = hex(v.message);
        const changed = msg.length === 0 ? new Uint8Array([0]) : new Uint8Array(msg);
        if (msg.length > 0) changed[0]! ^= 1;
        expect(verify(changed, hex(v.signature), hex(v.publicKey))).toBe(false);
      });
    });
  }
});

describe('keyPairFromSeed', () => {
  it('accepts upper-case hex and bytes alike', () => {
    const v = fixture.vectors[0]!;
    expect(keyPairFromSeed(v.secretKey.toUpperCase()).publicKey).toEqual(
      keyPairFromSeed(hex(v.secretKey)).publicKey,
    );
  });

  it('rejects hex of the wrong length or with non-hex characters', () => {
    expectPlexusError(() => keyPairFromSeed('00'.repeat(31)), 'INVALID_PARAMS');
    expectPlexusError(() => keyPairFromSeed('00'.repeat(33)), 'INVALID_PARAMS');
    expectPlexusError(() => keyPairFromSeed('zz'.repeat(32)), 'INVALID_PARAMS');
    expectPlexusError(() => keyPairFromSeed(''), 'INVALID_PARAMS');
  });

  it('rejects byte seeds that are not 32 bytes', () => {
    expectPlexusError(() => keyPairFromSeed(new Uint8Array(31)), 'INVALID_PARAMS');
    expectPlexusError(() => keyPairFromSeed(new Uint8Array(64)), 'INVALID_PARAMS');
  });

  it('is deterministic and matches what node:crypto derives', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
        const a = keyPairFromSeed(seed);
        const b = keyPairFromSeed(Buffer.from(seed).toString('hex'));
        expect(a.publicKey).toEqual(b.publicKey);
        expect(rawPublicKey(a.privateKeyObject)).toEqual(a.publicKey);
      }),
      { numRuns: 50 },
    );
  });

  it('does not alias the caller’s seed buffer', () => {
    const seed = new Uint8Array(32).fill(7);
    const key = keyPairFromSeed(seed);
    seed.fill(0);
    expect(key.secretKey[0]).toBe(7);
  });
});

describe('generateKeyPair', () => {
  it('gives distinct keys whose seed reproduces the pair', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.publicKey).toHaveLength(32);
    expect(a.secretKey).toHaveLength(32);
    expect(a.publicKey).not.toEqual(b.publicKey);
    expect(keyPairFromSeed(a.secretKey).publicKey).toEqual(a.publicKey);
  });

  it('signs what verify accepts, for any message', () => {
    const key = generateKeyPair();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (msg) => {
        expect(verify(msg, sign(msg, key), key.publicKey)).toBe(true);
        expect(verify(msg, sign(msg, key), key.publicKeyObject)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('verify', () => {
  it('is false for a signature of the wrong length', () => {
    const key = generateKeyPair();
    const sig = sign(new Uint8Array([1]), key);
    expect(verify(new Uint8Array([1]), sig.subarray(0, 63), key.publicKey)).toBe(false);
    expect(verify(new Uint8Array([1]), new Uint8Array(65), key.publicKey)).toBe(false);
  });

  it('is false under another key', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(verify(new Uint8Array([1]), sign(new Uint8Array([1]), a), b.publicKey)).toBe(false);
  });
});

describe('publicKeyFromRaw', () => {
  it('returns the same cached KeyObject for the same bytes', () => {
    const key = generateKeyPair();
    const first = publicKeyFromRaw(key.publicKey);
    expect(publicKeyFromRaw(new Uint8Array(key.publicKey))).toBe(first);
    expect(rawPublicKey(first)).toEqual(key.publicKey);
  });

  it('rejects raw keys that are not 32 bytes', () => {
    expectPlexusError(() => publicKeyFromRaw(new Uint8Array(31)), 'INVALID_PARAMS');
    expectPlexusError(() => publicKeyFromRaw(new Uint8Array(33)), 'INVALID_PARAMS');
  });
});

describe('rawPublicKey', () => {
  it('rejects a key that is not Ed25519', () => {
    const { publicKey } = generateKeyPairSync('x25519');
    expectPlexusError(() => rawPublicKey(publicKey), 'INVALID_PARAMS');
  });
});
