import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { didKeyFromPublicKey, isDidKey, publicKeyFromDidKey } from '../../src/security/did-key.js';
import { keyPairFromSeed } from '../../src/security/ed25519.js';
import { naiveBase58, naiveBase58Decode } from './base58.js';
import { expectPlexusError } from './expect-error.js';

// Test vectors of the did:key method (w3c-ccg/did-method-key, test-vectors/ed25519-x25519.json):
// Ed25519 seed → did:key, with the key's publicKeyBase58.
const W3C_VECTORS = [
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000000',
    did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    publicKeyBase58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000001',
    did: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
    publicKeyBase58: '6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000002',
    did: 'did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
    publicKeyBase58: '8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000003',
    did: 'did:key:z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ',
    publicKeyBase58: 'HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000004',
    did: 'did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL',
    publicKeyBase58: 'J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x',
  },
];

// From the Aries Cloud Agent test suite (did:key document with its publicKeyBase58).
const ACAPY_VECTOR = {
  did: 'did:key:z6MkmjY8GnV5i9YTDtPETC2uUAW6ejw3nk5mXF5yci5ab7th',
  publicKeyBase58: '8HH5gYEeNc3z7PYXmd54d4x6qAfCNrqQqEB3nS7Zfu7K',
};

const RFC8032_TEST1_PK = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

describe('didKeyFromPublicKey', () => {
  for (const v of W3C_VECTORS) {
    it(`derives ${v.did.slice(0, 20)}… from seed …${v.seed.slice(-2)} (did:key spec vector)`, () => {
      const key = keyPairFromSeed(v.seed);
      expect(naiveBase58(key.publicKey)).toBe(v.publicKeyBase58);
      expect(didKeyFromPublicKey(key.publicKey)).toBe(v.did);
    });
  }

  it('encodes the ACA-Py vector key', () => {
    expect(didKeyFromPublicKey(naiveBase58Decode(ACAPY_VECTOR.publicKeyBase58))).toBe(ACAPY_VECTOR.did);
  });

  it('matches an independent computation for the RFC 8032 test-1 key', () => {
    const pk = Buffer.from(RFC8032_TEST1_PK, 'hex');
    const expected = 'did:key:z' + naiveBase58(Buffer.concat([Buffer.from([0xed, 0x01]), pk]));
    expect(didKeyFromPublicKey(pk)).toBe(expected);
    expect(expected.startsWith('did:key:z6Mk')).toBe(true);
  });

  it('rejects a key that is not 32 bytes', () => {
    expectPlexusError(() => didKeyFromPublicKey(new Uint8Array(31)), 'INVALID_PARAMS');
    expectPlexusError(() => didKeyFromPublicKey(new Uint8Array(33)), 'INVALID_PARAMS');
  });
});

describe('publicKeyFromDidKey', () => {
  for (const v of [...W3C_VECTORS, ACAPY_VECTOR]) {
    it(`decodes ${v.did.slice(0, 20)}… to its publicKeyBase58`, () => {
      expect(naiveBase58(publicKeyFromDidKey(v.did))).toBe(v.publicKeyBase58);
    });
  }

  it('round-trips every 32-byte key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (pk) => {
        const did = didKeyFromPublicKey(pk);
        expect(did.startsWith('did:key:z6Mk')).toBe(true);
        expect(publicKeyFromDidKey(did)).toEqual(pk);
        expect(isDidKey(did)).toBe(true);
      }),
    );
  });

  const pk = Buffer.from(RFC8032_TEST1_PK, 'hex');
  const cases: [string, string, RegExp][] = [
    ['another DID method', 'did:web:example.com', /must start with "did:key:"/],
    ['no scheme', 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', /must start with "did:key:"/],
    [
      'a fragment',
      'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
      /DID URL/,
    ],
    [
      'a base64 multibase',
      'did:key:m7QF1mpgBgrEKt9VLtPJZAc6DuFy89qmIyWvAhpo9wdRGg',
      /base58btc \(prefix "z"\)/,
    ],
    ['characters outside base58', 'did:key:z6Mk0OIl', /not valid base58btc/],
    [
      'the x25519-pub multicodec',
      'did:key:z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW',
      /not an Ed25519 key: multicodec prefix 0xec01/,
    ],
    [
      'the secp256k1-pub multicodec',
      'did:key:z' + naiveBase58(Buffer.concat([Buffer.from([0xe7, 0x01, 0x02]), pk])),
      /multicodec prefix 0xe701/,
    ],
    [
      'a 31-byte key',
      'did:key:z' + naiveBase58(Buffer.concat([Buffer.from([0xed, 0x01]), pk.subarray(1)])),
      /31-byte key/,
    ],
    [
      'a 33-byte key',
      'did:key:z' + naiveBase58(Buffer.concat([Buffer.from([0xed, 0x01]), pk, Buffer.from([0])])),
      /33-byte key/,
    ],
    ['nothing after the multibase prefix', 'did:key:z', /not an Ed25519 key|not valid base58btc/],
  ];
  for (const [what, did, message] of cases) {
    it(`rejects ${what} with a clear message`, () => {
      const error = expectPlexusError(() => publicKeyFromDidKey(did), 'INVALID_PARAMS');
      expect(error.message).toMatch(message);
      expect(isDidKey(did)).toBe(false);
    });
  }

  it('rejects a value that is not a string', () => {
    expectPlexusError(() => publicKeyFromDidKey(42 as unknown as string), 'INVALID_PARAMS');
    expect(isDidKey(42)).toBe(false);
  });
});
