import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyPairFromSeed } from '../../src/security/ed25519.js';
import { isPeerId, peerIdFromPublicKey, publicKeyFromPeerId } from '../../src/security/peer-id.js';
import { naiveBase58 } from './base58.js';
import { expectPlexusError } from './expect-error.js';

// The libp2p peer-ids spec test vector (Ed25519 private key protobuf
// 080112407e08…fce27e, public key protobuf 080112201ed1…fce27e) and the PeerId that
// go-libp2p, rust-libp2p and others derive from it.
const LIBP2P_VECTOR = {
  seed: '7e0830617c4a7de83925dfb2694556b12936c477a0e1feb2e148ec9da60fee7d',
  publicKey: '1ed1e8fae2c4a144b8be8fd4b47bf3d3b34b871c3cacf6010f0e42d474fce27e',
  publicKeyProtobuf: '080112201ed1e8fae2c4a144b8be8fd4b47bf3d3b34b871c3cacf6010f0e42d474fce27e',
  peerId: '12D3KooWBtg3aaRMjxwedh83aGiUkwSxDwUZkzuJcfaqUmo7R3pq',
};

describe('peerIdFromPublicKey', () => {
  it('gives the libp2p spec vector’s PeerId', () => {
    const key = keyPairFromSeed(LIBP2P_VECTOR.seed);
    expect(Buffer.from(key.publicKey).toString('hex')).toBe(LIBP2P_VECTOR.publicKey);
    expect(peerIdFromPublicKey(key.publicKey)).toBe(LIBP2P_VECTOR.peerId);
  });

  it('is base58btc of the identity multihash of the PublicKey protobuf', () => {
    const protobuf = Buffer.from(LIBP2P_VECTOR.publicKeyProtobuf, 'hex');
    const multihash = Buffer.concat([Buffer.from([0x00, protobuf.length]), protobuf]);
    expect(naiveBase58(multihash)).toBe(LIBP2P_VECTOR.peerId);
  });

  it('starts with 12D3KooW and round-trips for every key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (pk) => {
        const peerId = peerIdFromPublicKey(pk);
        expect(peerId.startsWith('12D3KooW')).toBe(true);
        expect(publicKeyFromPeerId(peerId)).toEqual(pk);
        expect(isPeerId(peerId)).toBe(true);
      }),
    );
  });

  it('rejects a key that is not 32 bytes', () => {
    expectPlexusError(() => peerIdFromPublicKey(new Uint8Array(16)), 'INVALID_PARAMS');
  });
});

describe('publicKeyFromPeerId', () => {
  it('decodes the libp2p spec vector', () => {
    expect(Buffer.from(publicKeyFromPeerId(LIBP2P_VECTOR.peerId)).toString('hex')).toBe(
      LIBP2P_VECTOR.publicKey,
    );
  });

  const pk = Buffer.from(LIBP2P_VECTOR.publicKey, 'hex');
  const secp256k1 = Buffer.from(
    '002508021221039481269fe831799b1a0f1d521c1395b4831514859e4559c44d155eae46f03819',
    'hex',
  );
  const cases: [string, string, RegExp][] = [
    [
      'an RSA (sha2-256 multihash) PeerId',
      'QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N',
      /not an identity multihash/,
    ],
    ['a secp256k1 PeerId', naiveBase58(secp256k1), /wrong length|does not hold an Ed25519/],
    ['characters outside base58', '12D3KooW0OIl', /not valid base58btc/],
    ['a multibase-prefixed PeerId', 'z' + LIBP2P_VECTOR.peerId, /not an identity multihash|wrong length/],
    [
      'a truncated key',
      naiveBase58(Buffer.concat([Buffer.from([0x00, 0x23, 0x08, 0x01, 0x12, 0x1f]), pk.subarray(1)])),
      /wrong length/,
    ],
    [
      'a wrong protobuf key type',
      naiveBase58(Buffer.concat([Buffer.from([0x00, 0x24, 0x08, 0x02, 0x12, 0x20]), pk])),
      /does not hold an Ed25519 public key/,
    ],
    ['the empty string', '', /not an identity multihash|not valid base58btc/],
  ];
  for (const [what, peerId, message] of cases) {
    it(`rejects ${what}`, () => {
      const error = expectPlexusError(() => publicKeyFromPeerId(peerId), 'INVALID_PARAMS');
      expect(error.message).toMatch(message);
      expect(isPeerId(peerId)).toBe(false);
    });
  }
});
