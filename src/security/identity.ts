/**
 * One Ed25519 key, its two names (DESIGN D2): the agent id `did:key:z6Mk…` and the libp2p
 * PeerId `12D3KooW…`. Both derive from the public key, so either names the same signer.
 */
import type { KeyObject } from 'node:crypto';
import { PlexusError } from '../core/errors.js';
import { toBase64Url } from './base64url.js';
import { DID_KEY_PREFIX, clip, didKeyFromPublicKey, publicKeyFromDidKey } from './did-key.js';
import { publicKeyFromRaw } from './ed25519.js';
import { LruCache } from './lru-cache.js';
import { peerIdFromPublicKey, publicKeyFromPeerId } from './peer-id.js';

/** The names and verification key of one Ed25519 public key. */
export interface KeyIdentity {
  /** The raw 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** The public key as unpadded base64url (the `pk` of a signed envelope). */
  readonly publicKeyBase64Url: string;
  /** The `did:key` of the key. */
  readonly did: string;
  /** The libp2p PeerId of the key. */
  readonly peerId: string;
  /** The `KeyObject` for `crypto.verify`. */
  readonly keyObject: KeyObject;
}

/** Which name a signer uses as `from`. */
export type IdentityForm = 'did' | 'peerId';

const identities = new LruCache<string, KeyIdentity>(4096);

function build(publicKey: Uint8Array, publicKeyBase64Url: string): KeyIdentity {
  return {
    publicKey,
    publicKeyBase64Url,
    did: didKeyFromPublicKey(publicKey),
    peerId: peerIdFromPublicKey(publicKey),
    keyObject: publicKeyFromRaw(publicKey),
  };
}

/**
 * Returns the identity of a raw 32-byte public key. Derivations are cached (bounded LRU of
 * 4,096 keys), so repeated calls for the same key cost one map lookup.
 *
 * @throws PlexusError `INVALID_PARAMS` when `publicKey` is not 32 bytes.
 */
export function identityFromPublicKey(publicKey: Uint8Array): KeyIdentity {
  const b64 = toBase64Url(publicKey);
  let identity = identities.get(b64);
  if (identity === undefined) {
    identity = build(new Uint8Array(publicKey), b64);
    identities.set(b64, identity);
  }
  return identity;
}

/**
 * Returns the identity of a public key given as canonical unpadded base64url, as carried in
 * a signed envelope's `pk`. The caller must have checked the text (see `base64UrlProblem`);
 * `bytes` may be passed when already decoded. Cached like {@link identityFromPublicKey}.
 *
 * @throws PlexusError `INVALID_PARAMS` when the text does not decode to 32 bytes.
 */
export function identityFromBase64Url(publicKeyBase64Url: string, bytes?: Uint8Array): KeyIdentity {
  let identity = identities.get(publicKeyBase64Url);
  if (identity === undefined) {
    const raw = bytes ?? new Uint8Array(Buffer.from(publicKeyBase64Url, 'base64url'));
    identity = build(raw, publicKeyBase64Url);
    identities.set(publicKeyBase64Url, identity);
  }
  return identity;
}

/**
 * Returns the public key named by a `did:key` or an Ed25519 PeerId.
 *
 * @throws PlexusError `INVALID_PARAMS` when `id` is neither, with the reason.
 */
export function publicKeyFromIdentity(id: string): Uint8Array {
  if (typeof id !== 'string') {
    throw new PlexusError('INVALID_PARAMS', `an identity must be a string, got ${typeof id}`);
  }
  const known = named.get(id);
  if (known !== undefined) return new Uint8Array(known.publicKey);
  if (id.startsWith('did:')) return publicKeyFromDidKey(id);
  if (/^[1-9A-HJ-NP-Za-km-z]+$/.test(id)) return publicKeyFromPeerId(id);
  throw new PlexusError(
    'INVALID_PARAMS',
    `"${clip(id)}" is neither a did:key ("${DID_KEY_PREFIX}z6Mk…") nor an Ed25519 PeerId ("12D3KooW…")`,
  );
}

/** Identities by the name they were asked for (a did:key or a PeerId). */
const named = new LruCache<string, KeyIdentity>(4096);

/**
 * Returns the identity a `did:key` or an Ed25519 PeerId names. Cached by the name (bounded LRU
 * of 4,096 names), so a name met on every call — a `p2p://` target, a mesh peer — is decoded
 * once, not base58-decoded and re-encoded each time.
 *
 * @throws PlexusError `INVALID_PARAMS` when `id` is neither, with the reason (never cached).
 */
export function identityFromName(id: string): KeyIdentity {
  let identity = named.get(id);
  if (identity === undefined) {
    identity = identityFromPublicKey(publicKeyFromIdentity(id));
    named.set(id, identity);
  }
  return identity;
}

/** Returns the name of `identity` in the requested form. */
export function identityName(identity: KeyIdentity, form: IdentityForm): string {
  return form === 'did' ? identity.did : identity.peerId;
}
