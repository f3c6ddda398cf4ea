/**
 * UCAN 0.10 tokens (DESIGN D7; UCAN spec v0.10.0 §3): compact JWTs signed with EdDSA
 * (Ed25519, `node:crypto`) by the `did:key` in `iss`.
 *
 * Header `{"alg":"EdDSA","typ":"JWT"}`. Payload `{ucv:"0.10.0", iss, aud, nbf?, exp, nnc?,
 * fct?, cap: {resource: {ability: [caveats]}}, prf: [CIDs]}`. `exp` is an integer number of
 * seconds or `null` (never expires); `nbf` is optional. A token is named by its canonical CID
 * (§6.5.1): CIDv1, base32, SHA2-256, raw codec (0x55) over the token's bytes.
 *
 * Decoding checks shape and types only; the signature is checked by {@link verifyUcanSignature}
 * and the chain by the chain verifier.
 */
import { randomBytes } from 'node:crypto';
import { artifactCid, parseCid } from '../../core/cid.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { parseTtl } from '../auth/duration.js';
import { clip, publicKeyFromDidKey } from '../did-key.js';
import { sign, verify, type Ed25519KeyPair } from '../ed25519.js';
import { identityFromPublicKey } from '../identity.js';
import { ucanError } from './ucan-error.js';

/** The UCAN version Plexus issues. */
export const UCAN_VERSION = '0.10.0';
/** The one signature algorithm Plexus issues and accepts. */
export const UCAN_ALGORITHM = 'EdDSA';
/** The longest single token accepted, in characters. */
export const MAX_UCAN_LENGTH = 16_384;

/** A caveat: a JSON object; `{}` means "no restriction" (spec §3.2.6.3). */
export type Caveat = JsonObject;
/** Abilities of one resource, each with its caveats (an OR of objects). */
export type AbilityMap = { readonly [ability: string]: readonly Caveat[] };
/** The `cap` field: resource URI → ability → caveats. */
export type Capabilities = { readonly [resource: string]: AbilityMap };

/** The payload of a UCAN 0.10 token. */
export interface UcanPayload {
  /** The UCAN version, `0.10.x`. */
  readonly ucv: string;
  /** The issuer's did:key (the signer). */
  readonly iss: string;
  /** The audience's DID (the delegate, or the node that runs the invocation). */
  readonly aud: string;
  /** Not before, Unix seconds; absent = valid from the epoch. */
  readonly nbf?: number;
  /** Expiry, Unix seconds; `null` = never. */
  readonly exp: number | null;
  /** Nonce. */
  readonly nnc?: string;
  /** Facts (signed data, not authority). */
  readonly fct?: JsonObject;
  /** The capabilities granted. */
  readonly cap: Capabilities;
  /** CIDs of the proofs (the tokens this one is delegated from). */
  readonly prf: readonly string[];
}

/** A decoded token: its text, CID, payload and signature. The signature is not yet checked. */
export interface Ucan {
  /** The compact JWT. */
  readonly jwt: string;
  /** Its canonical CID (raw codec, SHA-256, base32). */
  readonly cid: string;
  readonly payload: UcanPayload;
  /** `header.payload`, the bytes the signature covers. */
  readonly signingInput: string;
  /** The 64-byte signature. */
  readonly signature: Uint8Array;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const UCV = /^0\.10\.\d+$/;
const HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: UCAN_ALGORITHM, typ: 'JWT' })).toString('base64url');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The canonical CID of a token text (SHA-256 of its UTF-8 bytes, raw codec, base32). */
export function ucanCid(jwt: string): string {
  return artifactCid(Buffer.from(jwt, 'utf8'));
}

function segmentJson(segment: string, what: string): JsonObject {
  let value: unknown;
  try {
    if (!SEGMENT.test(segment)) throw new Error('not base64url');
    value = JSON.parse(utf8.decode(Buffer.from(segment, 'base64url')));
  } catch (cause) {
    throw ucanError('malformed', `malformed UCAN: its ${what} is not base64url-encoded JSON`, {}, cause);
  }
  if (!isJsonObject(value)) throw ucanError('malformed', `malformed UCAN: its ${what} is not a JSON object`);
  return value;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checkCapabilities(cap: unknown): Capabilities {
  if (!isJsonObject(cap)) {
    throw ucanError('malformed', 'malformed UCAN: "cap" must be an object {resource: {ability: [caveats]}}');
  }
  for (const [resource, abilities] of Object.entries(cap)) {
    if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(resource)) {
      throw ucanError(
        'malformed',
        `malformed UCAN: capability resource ${JSON.stringify(clip(resource))} is not a URI`,
      );
    }
    if (!isJsonObject(abilities) || Object.keys(abilities).length === 0) {
      throw ucanError(
        'malformed',
        `malformed UCAN: resource ${resource} must map at least one ability to caveats`,
      );
    }
    for (const [ability, caveats] of Object.entries(abilities)) {
      if (ability !== '*' && !/^[^/\s]+(\/[^/\s]+)+$/.test(ability)) {
        throw ucanError(
          'malformed',
          `malformed UCAN: ability ${JSON.stringify(clip(ability))} must be "*" or namespaced like "soul/read"`,
        );
      }
      if (!Array.isArray(caveats) || !caveats.every(isJsonObject)) {
        throw ucanError(
          'malformed',
          `malformed UCAN: the caveats of ${resource} ${ability} must be an array of objects`,
        );
      }
      if (caveats.length === 0) {
        // UCAN 0.10 §3.2.6.3: an empty array grants the ability "in no case"; a token that
        // lists an ability it grants in no case is refused rather than silently granting nothing.
        throw ucanError(
          'malformed',
          `malformed UCAN: the caveats of ${resource} ${ability} are an empty array, which grants nothing (UCAN 0.10 §3.2.6.3); leave the ability out, or give [{}] for no caveats`,
        );
      }
    }
  }
  return cap as unknown as Capabilities;
}

/**
 * Checks a decoded payload against UCAN 0.10 §3.2 and returns it typed.
 *
 * @throws PlexusError `UNAUTHORIZED` (reason `version` or `malformed`) naming the bad field.
 */
export function checkUcanPayload(payload: JsonObject): UcanPayload {
  const { ucv, iss, aud, nbf, exp, nnc, fct, cap, prf } = payload;
  if (typeof ucv !== 'string' || !UCV.test(ucv)) {
    throw ucanError(
      'version',
      `UCAN version ${JSON.stringify(ucv)} is not accepted; Plexus reads UCAN 0.10.x`,
    );
  }
  if (typeof iss !== 'string') throw ucanError('malformed', 'malformed UCAN: "iss" must be a did:key');
  try {
    publicKeyFromDidKey(iss);
  } catch (cause) {
    throw ucanError(
      'malformed',
      `malformed UCAN: "iss" must be an Ed25519 did:key, got ${JSON.stringify(clip(iss))}`,
      {},
      cause,
    );
  }
  if (typeof aud !== 'string' || !/^did:[a-z0-9]+:\S+$/.test(aud)) {
    throw ucanError('malformed', 'malformed UCAN: "aud" must be a DID');
  }
  if (nbf !== undefined && !isTime(nbf))
    throw ucanError('malformed', 'malformed UCAN: "nbf" must be integer seconds');
  if (exp !== null && !isTime(exp)) {
    throw ucanError(
      'malformed',
      'malformed UCAN: "exp" must be integer seconds, or null for a token that never expires',
    );
  }
  if (nbf !== undefined && exp !== null && nbf > exp) {
    throw ucanError('malformed', 'malformed UCAN: "nbf" is after "exp"');
  }
  if (nnc !== undefined && typeof nnc !== 'string')
    throw ucanError('malformed', 'malformed UCAN: "nnc" must be a string');
  if (fct !== undefined && !isJsonObject(fct))
    throw ucanError('malformed', 'malformed UCAN: "fct" must be an object');
  const proofs = prf ?? [];
  if (!Array.isArray(proofs) || !proofs.every((p) => typeof p === 'string')) {
    throw ucanError('malformed', 'malformed UCAN: "prf" must be an array of CIDs');
  }
  for (const p of proofs) {
    try {
      if (parseCid(p).cid !== p) throw new Error('not canonical');
    } catch (cause) {
      throw ucanError(
        'malformed',
        `malformed UCAN: proof ${JSON.stringify(clip(p))} is not a canonical base32 CIDv1`,
        {},
        cause,
      );
    }
  }
  return {
    ucv,
    iss,
    aud,
    ...(nbf === undefined ? {} : { nbf }),
    exp,
    ...(nnc === undefined ? {} : { nnc }),
    ...(fct === undefined ? {} : { fct }),
    cap: checkCapabilities(cap),
    prf: proofs,
  };
}

/**
 * Decodes a UCAN without trusting it: header checks (EdDSA, `typ` JWT, no `crit`), payload
 * shape, CID. The signature is NOT checked.
 *
 * @throws PlexusError `UNAUTHORIZED` with `details.reason` `malformed`, `algorithm` or `version`.
 */
export function decodeUcan(jwt: string): Ucan {
  if (typeof jwt !== 'string' || jwt === '') throw ucanError('malformed', 'malformed UCAN: it is empty');
  if (jwt.length > MAX_UCAN_LENGTH) {
    throw ucanError(
      'malformed',
      `malformed UCAN: it is ${jwt.length} characters; the limit is ${MAX_UCAN_LENGTH}`,
    );
  }
  const parts = jwt.split('.');
  if (parts.length !== 3) {
    throw ucanError(
      'malformed',
      `malformed UCAN: a JWT is three base64url parts separated by dots, got ${parts.length}`,
    );
  }
  const [h, p, s] = parts as [string, string, string];
  const header = segmentJson(h, 'header');
  if (header['alg'] !== UCAN_ALGORITHM) {
    throw ucanError(
      'algorithm',
      `UCAN refused: algorithm ${JSON.stringify(header['alg'])} is not accepted; UCANs are signed with EdDSA (Ed25519)`,
    );
  }
  const typ = header['typ'];
  if (typeof typ !== 'string' || typ.toUpperCase() !== 'JWT') {
    throw ucanError('malformed', `malformed UCAN: header "typ" must be "JWT", got ${JSON.stringify(typ)}`);
  }
  if (header['crit'] !== undefined) {
    throw ucanError('malformed', 'UCAN refused: critical header extensions ("crit") are not supported');
  }
  const payload = checkUcanPayload(segmentJson(p, 'payload'));
  if (!SEGMENT.test(s))
    throw ucanError('malformed', 'malformed UCAN: its signature is missing or not base64url');
  const signature = new Uint8Array(Buffer.from(s, 'base64url'));
  if (signature.byteLength !== 64 || Buffer.from(signature).toString('base64url') !== s) {
    throw ucanError('malformed', 'malformed UCAN: its signature is not 64 bytes of canonical base64url');
  }
  return { jwt, cid: ucanCid(jwt), payload, signingInput: `${h}.${p}`, signature };
}

/** True when the token's signature verifies against the did:key in its `iss`. */
export function verifyUcanSignature(ucan: Ucan): boolean {
  const identity = identityFromPublicKey(publicKeyFromDidKey(ucan.payload.iss));
  return verify(Buffer.from(ucan.signingInput, 'utf8'), ucan.signature, identity.keyObject);
}

/** Options of {@link signUcan}. */
export interface SignUcanInit {
  /** The issuer's key; its did:key becomes `iss`. */
  readonly key: Ed25519KeyPair;
  /** The audience DID (`aud`). */
  readonly audience: string;
  /** The capabilities granted (`cap`). */
  readonly capabilities: Capabilities;
  /**
   * Expiry, Unix ms (rounded down to a second); `null` for a token that never expires.
   * @default now + `ttl`
   */
  readonly expiresAt?: number | null;
  /** Lifetime when `expiresAt` is not given: seconds or `"15m"`, `"1h"`, `"7d"`. @default 3600 */
  readonly ttl?: number | string;
  /** Not before, Unix ms (rounded up to a second). @default absent */
  readonly notBefore?: number;
  /** Nonce (`nnc`). @default 12 random bytes, base64url */
  readonly nonce?: string;
  /** Facts (`fct`). */
  readonly facts?: JsonObject;
  /** CIDs of the proofs (`prf`). @default [] */
  readonly proofs?: readonly string[];
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
}

/**
 * Signs a UCAN 0.10 token. No attenuation check is made here (see `delegateUcan`).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad lifetime, audience or payload (the same
 *   checks a verifier makes).
 */
export function signUcan(init: SignUcanInit): Ucan {
  const now = (init.now ?? Date.now)();
  const iss = identityFromPublicKey(init.key.publicKey).did;
  const exp =
    init.expiresAt === null
      ? null
      : init.expiresAt !== undefined
        ? Math.floor(init.expiresAt / 1000)
        : Math.floor(now / 1000) + parseTtl(init.ttl ?? 3600);
  const payload: Record<string, unknown> = { ucv: UCAN_VERSION, iss, aud: init.audience };
  if (init.notBefore !== undefined) payload['nbf'] = Math.ceil(init.notBefore / 1000);
  payload['exp'] = exp;
  payload['nnc'] = init.nonce ?? randomBytes(12).toString('base64url');
  if (init.facts !== undefined) payload['fct'] = init.facts;
  payload['cap'] = init.capabilities;
  payload['prf'] = [...(init.proofs ?? [])];
  try {
    checkUcanPayload(payload as JsonObject);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new PlexusError(
      'INVALID_PARAMS',
      message.replace(/^(malformed UCAN|UCAN refused): /, 'cannot issue the UCAN: '),
      {
        cause,
      },
    );
  }
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signingInput = `${HEADER_SEGMENT}.${body}`;
  const signature = sign(Buffer.from(signingInput, 'utf8'), init.key);
  return decodeUcan(`${signingInput}.${Buffer.from(signature).toString('base64url')}`);
}
