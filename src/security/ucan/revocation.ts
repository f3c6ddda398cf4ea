/**
 * UCAN revocation messages (UCAN 0.10 §6.6): `{iss, revoke, challenge}`, where `challenge`
 * is the unpadded base64url Ed25519 signature by `iss` of the UTF-8 text `REVOKE:<cid>`.
 * Whether `iss` may revoke that token (it must be an issuer in the token's chain) is decided
 * where the chain is known: by the chain verifier, and by the node when it records one.
 */
import { parseCid } from '../../core/cid.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { fromBase64Url, toBase64Url } from '../base64url.js';
import { clip, publicKeyFromDidKey } from '../did-key.js';
import { sign, verify, type Ed25519KeyPair } from '../ed25519.js';
import { identityFromPublicKey } from '../identity.js';

/** A signed revocation. */
export interface UcanRevocation {
  /** The revoker's did:key. */
  readonly iss: string;
  /** The canonical CID of the revoked token. */
  readonly revoke: string;
  /** base64url signature of `REVOKE:<cid>` by `iss`. */
  readonly challenge: string;
}

function challengeBytes(cid: string): Buffer {
  return Buffer.from(`REVOKE:${cid}`, 'utf8');
}

/**
 * Signs a revocation of the token `cid` with `key`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `cid` is not a canonical CID.
 */
export function createRevocation(key: Ed25519KeyPair, cid: string): UcanRevocation {
  const canonical = parseCid(cid).cid;
  if (canonical !== cid) {
    throw new PlexusError('INVALID_PARAMS', `revoke the canonical CID ${canonical}, not ${cid}`);
  }
  return {
    iss: identityFromPublicKey(key.publicKey).did,
    revoke: cid,
    challenge: toBase64Url(sign(challengeBytes(cid), key)),
  };
}

/**
 * Checks a revocation message's shape and signature and returns it typed.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad shape, a non-canonical CID or an issuer that
 *   is not an Ed25519 did:key; `UNAUTHORIZED` when the challenge does not verify.
 */
export function verifyRevocation(value: unknown): UcanRevocation {
  if (!isJsonObject(value)) {
    throw new PlexusError('INVALID_PARAMS', 'a revocation is an object {iss, revoke, challenge}');
  }
  const { iss, revoke, challenge } = value;
  if (typeof iss !== 'string' || typeof revoke !== 'string' || typeof challenge !== 'string') {
    throw new PlexusError('INVALID_PARAMS', 'a revocation needs string fields iss, revoke and challenge');
  }
  const publicKey = publicKeyFromDidKey(iss);
  if (parseCid(revoke).cid !== revoke) {
    throw new PlexusError('INVALID_PARAMS', `revocation of ${clip(revoke)}: give the canonical base32 CID`);
  }
  const signature = fromBase64Url(challenge, 64, 'challenge');
  if (!verify(challengeBytes(revoke), signature, publicKey)) {
    throw new PlexusError(
      'UNAUTHORIZED',
      `the revocation of ${revoke} is not signed by ${iss}: its challenge does not verify`,
      { details: { reason: 'signature' } },
    );
  }
  return { iss, revoke, challenge };
}
