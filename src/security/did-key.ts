/**
 * `did:key` identifiers for Ed25519 public keys (DESIGN D2; W3C CCG did:key method).
 *
 * `did:key:` + multibase base58btc (`z`) of the multicodec `ed25519-pub` prefix (0xed as an
 * unsigned varint: 0xed 0x01) followed by the 32 raw key bytes. Every such id starts with
 * `did:key:z6Mk`.
 */
import { base58btc } from 'multiformats/bases/base58';
import { PlexusError } from '../core/errors.js';
import { ED25519_PUBLIC_KEY_LENGTH } from './ed25519.js';

/** The scheme and method prefix of every did:key. */
export const DID_KEY_PREFIX = 'did:key:';
/** The multicodec `ed25519-pub` (0xed) as an unsigned varint. */
const ED25519_PUB_MULTICODEC = [0xed, 0x01] as const;

/**
 * Returns the `did:key` of a raw 32-byte Ed25519 public key.
 *
 * @throws PlexusError `INVALID_PARAMS` when `publicKey` is not 32 bytes.
 * @example didKeyFromPublicKey(pk) // 'did:key:z6Mk…'
 */
export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.byteLength !== ED25519_PUBLIC_KEY_LENGTH) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an Ed25519 public key must be ${ED25519_PUBLIC_KEY_LENGTH} bytes, got ${publicKey.byteLength}`,
    );
  }
  const bytes = new Uint8Array(2 + ED25519_PUBLIC_KEY_LENGTH);
  bytes[0] = ED25519_PUB_MULTICODEC[0];
  bytes[1] = ED25519_PUB_MULTICODEC[1];
  bytes.set(publicKey, 2);
  return DID_KEY_PREFIX + base58btc.encode(bytes);
}

/**
 * Returns the raw 32-byte Ed25519 public key a `did:key` names.
 *
 * @throws PlexusError `INVALID_PARAMS` with a message saying which part is wrong: not a
 *   string, not `did:key:`, a DID URL (path, query or fragment), a multibase other than
 *   base58btc (`z`), bad base58, a multicodec other than ed25519-pub, or a key that is not
 *   32 bytes.
 */
export function publicKeyFromDidKey(did: string): Uint8Array {
  if (typeof did !== 'string') {
    throw new PlexusError('INVALID_PARAMS', `a did:key must be a string, got ${typeof did}`);
  }
  if (!did.startsWith(DID_KEY_PREFIX)) {
    throw new PlexusError('INVALID_PARAMS', `"${clip(did)}" is not a did:key: it must start with "did:key:"`);
  }
  const id = did.slice(DID_KEY_PREFIX.length);
  if (/[/?#]/.test(id)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `"${clip(did)}" is a DID URL; give the bare did:key without path, query or fragment`,
    );
  }
  if (!id.startsWith('z')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `did:key "${clip(did)}" must use multibase base58btc (prefix "z"), got prefix "${id.slice(0, 1)}"`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(id);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `did:key "${clip(did)}" is not valid base58btc`, { cause });
  }
  if (bytes[0] !== ED25519_PUB_MULTICODEC[0] || bytes[1] !== ED25519_PUB_MULTICODEC[1]) {
    const seen = Buffer.from(bytes.subarray(0, 2)).toString('hex');
    throw new PlexusError(
      'INVALID_PARAMS',
      `did:key "${clip(did)}" is not an Ed25519 key: multicodec prefix 0x${seen}, expected ed25519-pub (0xed01)`,
    );
  }
  const keyLength = bytes.byteLength - 2;
  if (keyLength !== ED25519_PUBLIC_KEY_LENGTH) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `did:key "${clip(did)}" holds a ${keyLength}-byte key; an Ed25519 public key is ${ED25519_PUBLIC_KEY_LENGTH} bytes`,
    );
  }
  return bytes.slice(2);
}

/** True when `value` is a well-formed Ed25519 `did:key`. */
export function isDidKey(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    publicKeyFromDidKey(value);
    return true;
  } catch {
    return false;
  }
}

/** Shortens a user-supplied string for an error message. */
export function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
