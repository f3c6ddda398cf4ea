/**
 * libp2p PeerIds of Ed25519 keys (DESIGN D2; libp2p peer-ids spec).
 *
 * The key is wrapped in the libp2p `PublicKey` protobuf { Type = Ed25519 (1), Data = 32
 * bytes }, i.e. `08 01 12 20 <key>` (36 bytes). Being at most 42 bytes, it is embedded
 * verbatim in an identity multihash (`00 24 <36 bytes>`), and the PeerId is the bare
 * base58btc text of that multihash (no multibase prefix). Every such id starts with
 * `12D3KooW`. The CIDv1 (`libp2p-key`) spelling of PeerIds is not accepted here.
 */
import { base58btc } from 'multiformats/bases/base58';
import { PlexusError } from '../core/errors.js';
import { clip } from './did-key.js';
import { ED25519_PUBLIC_KEY_LENGTH } from './ed25519.js';

/** The identity multihash header (code 0x00, length 36) + the Ed25519 `PublicKey` protobuf header. */
const HEADER = [0x00, 0x24, 0x08, 0x01, 0x12, 0x20] as const;
const PEER_ID_BYTES = HEADER.length + ED25519_PUBLIC_KEY_LENGTH;

/**
 * Returns the libp2p PeerId (`12D3KooW…`) of a raw 32-byte Ed25519 public key.
 *
 * @throws PlexusError `INVALID_PARAMS` when `publicKey` is not 32 bytes.
 */
export function peerIdFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.byteLength !== ED25519_PUBLIC_KEY_LENGTH) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an Ed25519 public key must be ${ED25519_PUBLIC_KEY_LENGTH} bytes, got ${publicKey.byteLength}`,
    );
  }
  const bytes = new Uint8Array(PEER_ID_BYTES);
  bytes.set(HEADER, 0);
  bytes.set(publicKey, HEADER.length);
  return base58btc.baseEncode(bytes);
}

/**
 * Returns the raw 32-byte Ed25519 public key embedded in a PeerId.
 *
 * @throws PlexusError `INVALID_PARAMS` when `peerId` is not base58btc, not an identity
 *   multihash (e.g. an RSA `Qm…` PeerId, which holds only a hash of the key), not an Ed25519
 *   key, or the wrong length.
 */
export function publicKeyFromPeerId(peerId: string): Uint8Array {
  if (typeof peerId !== 'string') {
    throw new PlexusError('INVALID_PARAMS', `a PeerId must be a string, got ${typeof peerId}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = base58btc.baseDecode(peerId);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `PeerId "${clip(peerId)}" is not valid base58btc`, { cause });
  }
  if (bytes[0] !== HEADER[0]) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `PeerId "${clip(peerId)}" is not an identity multihash (code 0x${hexByte(bytes[0])}); only Ed25519 PeerIds (12D3KooW…) carry their key`,
    );
  }
  if (bytes[1] !== HEADER[1] || bytes.byteLength !== PEER_ID_BYTES) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `PeerId "${clip(peerId)}" has the wrong length: ${bytes.byteLength} bytes, an Ed25519 PeerId is ${PEER_ID_BYTES}`,
    );
  }
  if (bytes[2] !== HEADER[2] || bytes[3] !== HEADER[3] || bytes[4] !== HEADER[4] || bytes[5] !== HEADER[5]) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `PeerId "${clip(peerId)}" does not hold an Ed25519 public key (protobuf header ${Buffer.from(bytes.subarray(2, 6)).toString('hex')}, expected 08011220)`,
    );
  }
  return bytes.slice(HEADER.length);
}

/** True when `value` is a well-formed Ed25519 PeerId. */
export function isPeerId(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    publicKeyFromPeerId(value);
    return true;
  } catch {
    return false;
  }
}

function hexByte(byte: number | undefined): string {
  return (byte ?? 0).toString(16).padStart(2, '0');
}
