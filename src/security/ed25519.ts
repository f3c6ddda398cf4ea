/**
 * Ed25519 keys, signatures and verification through `node:crypto` (DESIGN D2, §7: native
 * speed; no pure-JS curve code).
 *
 * Keys cross Plexus boundaries as raw bytes: the 32-byte public key and the 32-byte secret
 * key (RFC 8032's "secret key", the seed from which the signing scalar is derived). Inside
 * the process they are `KeyObject`s, which is what `crypto.sign` / `crypto.verify` need.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as cryptoSign,
  verify as cryptoVerify,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { PlexusError } from '../core/errors.js';
import { LruCache } from './lru-cache.js';

/** Length of a raw Ed25519 public key, in bytes. */
export const ED25519_PUBLIC_KEY_LENGTH = 32;
/** Length of a raw Ed25519 secret key (the RFC 8032 seed), in bytes. */
export const ED25519_SECRET_KEY_LENGTH = 32;
/** Length of an Ed25519 signature, in bytes. */
export const ED25519_SIGNATURE_LENGTH = 64;

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410), followed by the 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** DER prefix of an SPKI Ed25519 public key (RFC 8410), followed by the 32 raw bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX_SEED = /^[0-9a-fA-F]{64}$/;

/** One Ed25519 key pair, as raw bytes and as ready-to-use `KeyObject`s. */
export interface Ed25519KeyPair {
  /** The 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** The 32-byte secret key (RFC 8032 seed). Keep it secret. */
  readonly secretKey: Uint8Array;
  /** The private `KeyObject`, for `crypto.sign`. */
  readonly privateKeyObject: KeyObject;
  /** The public `KeyObject`, for `crypto.verify`. */
  readonly publicKeyObject: KeyObject;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function assertLength(bytes: Uint8Array, length: number, what: string): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new PlexusError('INVALID_PARAMS', `${what} must be a Uint8Array of ${length} bytes`);
  }
  if (bytes.byteLength !== length) {
    throw new PlexusError('INVALID_PARAMS', `${what} must be ${length} bytes, got ${bytes.byteLength}`);
  }
}

/**
 * Returns the raw 32-byte public key of a public (or private) Ed25519 `KeyObject`.
 *
 * @throws PlexusError `INVALID_PARAMS` when the key is not an Ed25519 key.
 */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') {
    throw new PlexusError('INVALID_PARAMS', `expected an Ed25519 key, got ${String(pub.asymmetricKeyType)}`);
  }
  const der = pub.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(SPKI_PREFIX.length));
}

function rawSecretKey(key: KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'pkcs8' });
  return new Uint8Array(der.subarray(PKCS8_PREFIX.length));
}

/**
 * Builds a key pair from a 32-byte secret key (seed), given as bytes or as 64 hex characters.
 * The same seed always yields the same key pair (RFC 8032 §5.1.5).
 *
 * @throws PlexusError `INVALID_PARAMS` when the seed is not 32 bytes / 64 hex characters.
 */
export function keyPairFromSeed(seed: Uint8Array | string): Ed25519KeyPair {
  let bytes: Uint8Array;
  if (typeof seed === 'string') {
    if (!HEX_SEED.test(seed)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `an Ed25519 seed in hex must be exactly 64 hex characters (32 bytes), got ${seed.length} characters`,
      );
    }
    bytes = new Uint8Array(Buffer.from(seed, 'hex'));
  } else {
    assertLength(seed, ED25519_SECRET_KEY_LENGTH, 'Ed25519 seed');
    bytes = new Uint8Array(seed);
  }
  const privateKeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, bytes]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKeyObject = createPublicKey(privateKeyObject);
  return { publicKey: rawPublicKey(publicKeyObject), secretKey: bytes, privateKeyObject, publicKeyObject };
}

/** Generates a fresh random Ed25519 key pair (the CSPRNG of `node:crypto`). */
export function generateKeyPair(): Ed25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: rawPublicKey(publicKey),
    secretKey: rawSecretKey(privateKey),
    privateKeyObject: privateKey,
    publicKeyObject: publicKey,
  };
}

const publicKeyObjects = new LruCache<string, KeyObject>(4096);

/**
 * Returns the `KeyObject` of a raw 32-byte public key. Results are kept in a bounded LRU
 * cache (4,096 keys), because `createPublicKey` costs far more than a lookup.
 *
 * @throws PlexusError `INVALID_PARAMS` when `raw` is not 32 bytes or not a valid key encoding.
 */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  assertLength(raw, ED25519_PUBLIC_KEY_LENGTH, 'Ed25519 public key');
  const cacheKey = asBuffer(raw).toString('base64url');
  let key = publicKeyObjects.get(cacheKey);
  if (key === undefined) {
    try {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    } catch (cause) {
      throw new PlexusError('INVALID_PARAMS', 'the bytes are not a valid Ed25519 public key', { cause });
    }
    publicKeyObjects.set(cacheKey, key);
  }
  return key;
}

/**
 * Signs `message` (any length; Plexus signs 32-byte digests) with pure Ed25519 (RFC 8032).
 * Returns the 64-byte signature.
 *
 * @throws never for a key pair made by this module.
 */
export function sign(message: Uint8Array, key: Ed25519KeyPair): Uint8Array {
  return new Uint8Array(cryptoSign(null, message, key.privateKeyObject));
}

/**
 * Checks an Ed25519 signature. A signature of the wrong length is simply invalid (false).
 *
 * @param publicKey the raw 32-byte public key or its `KeyObject`.
 * @throws PlexusError `INVALID_PARAMS` when a raw `publicKey` is not 32 bytes.
 */
export function verify(
  message: Uint8Array,
  signature: Uint8Array,
  publicKey: Uint8Array | KeyObject,
): boolean {
  if (signature.byteLength !== ED25519_SIGNATURE_LENGTH) return false;
  const key = publicKey instanceof Uint8Array ? publicKeyFromRaw(publicKey) : publicKey;
  return cryptoVerify(null, message, key, signature);
}
