/**
 * The verifier of node-issued bearer tokens (DESIGN D14).
 *
 * Cheap checks run first, on the decoded but not yet trusted token: shape, algorithm
 * (EdDSA only — `none`, HMAC and every other algorithm are refused before any key is
 * touched, so algorithm confusion is impossible), issuer (must be a trusted did:key; the
 * key is chosen by `iss` alone, never from `jwk` / `jku` / `kid` headers), expiry,
 * not-before, audience and claim types. Only a token that passes them costs an Ed25519
 * signature check (jose `jwtVerify`, which checks the claims again). Garbage and stale
 * tokens are therefore refused without signature work.
 */
import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { PlexusError } from '../../core/errors.js';
import { clip, publicKeyFromDidKey } from '../did-key.js';
import type { Ed25519KeyPair } from '../ed25519.js';
import { identityFromPublicKey } from '../identity.js';
import { authError } from './auth-error.js';
import { TOKEN_ALGORITHM } from './jwt-issuer.js';
import { assertClaimText, isScopeToken, type Principal } from './principal.js';

/** How far clocks may disagree when checking `exp`, `nbf` and `iat`, in seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 30;
/** The longest token accepted, in characters. */
export const MAX_TOKEN_LENGTH = 8192;

/** Options of a single verification. */
export interface VerifyOptions {
  /** Cancels the verification. */
  readonly signal?: AbortSignal;
}

/** Anything that turns a bearer token into a principal. */
export interface BearerVerifier {
  /**
   * Verifies `token` and returns its principal.
   *
   * @throws PlexusError `UNAUTHORIZED` (with `details.reason`) when the token is refused;
   *   `CANCELLED` when `signal` aborts.
   */
  verify(token: string, options?: VerifyOptions): Promise<Principal>;
}

/** Options for {@link tokenVerifier}. Give `issuerKeys`, `trustedIssuers`, or both. */
export interface TokenVerifierInit {
  /** Keys whose tokens are accepted: the node's own key pair, or raw 32-byte public keys. */
  readonly issuerKeys?: readonly (Ed25519KeyPair | Uint8Array)[];
  /** did:keys whose tokens are accepted (e.g. peer nodes). */
  readonly trustedIssuers?: readonly string[];
  /**
   * The `aud` values that name this node; a token must carry one of them.
   * @default the did:keys of `issuerKeys`
   */
  readonly audience?: string | readonly string[];
  /**
   * Clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
   * @default 30
   */
  readonly clockToleranceSec?: number;
  /**
   * The clock, in Unix milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** A verifier of node-issued JWTs. */
export interface TokenVerifier extends BearerVerifier {
  /** The trusted issuers' did:keys. */
  readonly issuers: readonly string[];
  /** The accepted `aud` values. */
  readonly audience: readonly string[];
  /** How many Ed25519 signature checks this verifier has run (for metrics and tests). */
  readonly signatureChecks: number;
}

type Claims = Record<string, unknown>;

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function iso(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isFinite(date.getTime()) ? date.toISOString() : String(seconds);
}

function decodeSegment(segment: string, what: string): Claims {
  let value: unknown;
  try {
    if (!SEGMENT.test(segment)) throw new Error('not base64url');
    value = JSON.parse(utf8.decode(Buffer.from(segment, 'base64url')));
  } catch (cause) {
    throw authError('malformed', `malformed token: its ${what} is not base64url-encoded JSON`, cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw authError('malformed', `malformed token: its ${what} is not a JSON object`);
  }
  return value as Claims;
}

/**
 * Decodes a compact JWS without trusting it: the header and payload as objects and the
 * signature as its base64url text (possibly empty, as in an unsecured `alg: "none"` JWT).
 *
 * @throws PlexusError `UNAUTHORIZED` (reason `malformed`) when it is not three base64url
 *   parts with JSON-object header and payload.
 */
export function decodeUnverifiedToken(token: string): {
  header: Claims;
  payload: Claims;
  signature: string;
} {
  if (token.length > MAX_TOKEN_LENGTH) {
    throw authError(
      'malformed',
      `malformed token: it is ${token.length} characters; the limit is ${MAX_TOKEN_LENGTH}`,
    );
  }
  const parts = token.split('.');
  if (parts.length === 5) {
    throw authError(
      'malformed',
      'malformed token: it is an encrypted JWT (JWE); node tokens are signed JWTs',
    );
  }
  if (parts.length !== 3) {
    throw authError(
      'malformed',
      `malformed token: a JWT is three base64url parts separated by dots, got ${parts.length}`,
    );
  }
  const header = decodeSegment(parts[0] as string, 'header');
  const payload = decodeSegment(parts[1] as string, 'payload');
  const signature = parts[2] as string;
  if (signature !== '' && !SEGMENT.test(signature)) {
    throw authError('malformed', 'malformed token: its signature is not base64url');
  }
  return { header, payload, signature };
}

function checkHeader(header: Claims): void {
  const alg = header.alg;
  if (alg === 'none' || alg === 'None' || alg === 'NONE') {
    throw authError('algorithm', 'token refused: unsigned tokens (alg "none") are never accepted');
  }
  if (alg !== TOKEN_ALGORITHM) {
    throw authError(
      'algorithm',
      `token refused: algorithm ${JSON.stringify(alg)} is not accepted; node tokens are signed with EdDSA (Ed25519)`,
    );
  }
  if (header.crit !== undefined) {
    throw authError('unsupported', 'token refused: critical header extensions ("crit") are not supported');
  }
  if (header.ucv !== undefined) {
    throw authError('unsupported', 'token refused: it is a UCAN capability token, not a node token');
  }
  const typ = header.typ;
  if (
    typ !== undefined &&
    (typeof typ !== 'string' || !['jwt', 'application/jwt'].includes(typ.toLowerCase()))
  ) {
    throw authError('malformed', `token refused: header "typ" must be "JWT", got ${JSON.stringify(typ)}`);
  }
}

function numericDate(payload: Claims, claim: string, required: boolean): number | undefined {
  const value = payload[claim];
  if (value === undefined && !required) return undefined;
  if (value === undefined) {
    throw authError('claims', `token refused: it has no "${claim}" claim; node tokens must carry one`);
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw authError('claims', `token refused: claim "${claim}" must be a number of seconds since 1970`);
  }
  return value;
}

function stringClaim(payload: Claims, claim: string, required: boolean): string | undefined {
  const value = payload[claim];
  if (value === undefined && !required) return undefined;
  try {
    assertClaimText(value, `claim "${claim}"`);
  } catch (cause) {
    throw authError('claims', `token refused: ${(cause as Error).message}`, cause);
  }
  return value;
}

function parseScopeClaim(payload: Claims): readonly string[] {
  const scope = stringClaim(payload, 'scope', false);
  if (scope === undefined) return Object.freeze([]);
  const scopes: string[] = [];
  for (const s of scope.split(' ')) {
    if (s === '') continue;
    if (!isScopeToken(s)) {
      throw authError('claims', `token refused: scope ${JSON.stringify(clip(s))} is not a scope token`);
    }
    if (!scopes.includes(s)) scopes.push(s);
  }
  return Object.freeze(scopes);
}

function joseFailure(err: unknown, iss: string): PlexusError {
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return authError(
      'signature',
      `token refused: its signature does not verify against the key of its issuer ${iss}; it was forged or altered`,
      err,
    );
  }
  if (err instanceof joseErrors.JWTExpired) return authError('expired', 'token refused: token expired', err);
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    const reason = err.claim === 'aud' ? 'audience' : err.claim === 'nbf' ? 'not-yet-valid' : 'claims';
    return authError(reason, `token refused: ${err.message}`, err);
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return authError('algorithm', `token refused: ${err.message}`, err);
  if (err instanceof joseErrors.JOSENotSupported)
    return authError('unsupported', `token refused: ${err.message}`, err);
  if (err instanceof joseErrors.JOSEError)
    return authError('malformed', `malformed token: ${err.message}`, err);
  return new PlexusError('INTERNAL', `token verification failed unexpectedly: ${(err as Error).message}`, {
    cause: err,
  });
}

function toList(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? [value] : [...value];
}

/**
 * Returns a verifier of node-issued EdDSA JWTs (see the module comment for the order of
 * checks). The principal of an accepted token has `kind: 'jwt'`, `id` = `sub`, `scopes`
 * from `scope`, `tenant`, `expiresAt` = `exp` in ms, `tokenId` = `jti`, `issuer` = `iss`.
 * This verifier does not cache; the authenticator does.
 *
 * @throws PlexusError `INVALID_PARAMS` at construction when no issuer is given, a trusted
 *   issuer is not an Ed25519 did:key, no audience can be derived, or the clock tolerance is
 *   negative. `verify` throws `UNAUTHORIZED` with `details.reason` — `malformed`,
 *   `algorithm`, `unsupported`, `issuer`, `expired`, `not-yet-valid`, `audience`, `claims`
 *   or `signature` — and `CANCELLED` when aborted.
 * @example
 * const verifier = tokenVerifier({ issuerKeys: [nodeKey] });
 * const principal = await verifier.verify(token);
 */
export function tokenVerifier(init: TokenVerifierInit): TokenVerifier {
  const keys = new Map<string, KeyObject>();
  for (const key of init.issuerKeys ?? []) {
    const identity = identityFromPublicKey(key instanceof Uint8Array ? key : key.publicKey);
    keys.set(identity.did, identity.keyObject);
  }
  const ownDids = [...keys.keys()];
  for (const did of init.trustedIssuers ?? []) {
    const identity = identityFromPublicKey(publicKeyFromDidKey(did));
    keys.set(identity.did, identity.keyObject);
  }
  if (keys.size === 0) {
    throw new PlexusError('INVALID_PARAMS', 'tokenVerifier needs at least one issuer key or trusted issuer');
  }
  const audience = init.audience === undefined ? ownDids : [...new Set(toList(init.audience))];
  if (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === '')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      "tokenVerifier needs an audience (this node's id) when it is given no issuerKeys of its own",
    );
  }
  const tolerance = init.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new PlexusError('INVALID_PARAMS', `clockToleranceSec must be >= 0, got ${tolerance}`);
  }
  const now = init.now ?? Date.now;
  const issuers = Object.freeze([...keys.keys()]);
  const frozenAudience = Object.freeze(audience);
  let signatureChecks = 0;

  async function verify(token: string, options: VerifyOptions = {}): Promise<Principal> {
    if (options.signal?.aborted === true) {
      throw new PlexusError('CANCELLED', 'token verification was cancelled', {
        cause: options.signal.reason,
      });
    }
    if (typeof token !== 'string' || token === '')
      throw authError('malformed', 'malformed token: it is empty');
    const { header, payload, signature } = decodeUnverifiedToken(token);
    checkHeader(header);
    if (signature === '') throw authError('malformed', 'malformed token: it has no signature');
    const iss = payload.iss;
    if (typeof iss !== 'string' || iss === '') {
      throw authError('issuer', 'token refused: it has no "iss" claim naming its issuer');
    }
    const key = keys.get(iss);
    if (key === undefined) {
      throw authError(
        'issuer',
        `token refused: issuer ${JSON.stringify(clip(iss))} is not trusted by this node`,
      );
    }
    const nowMs = now();
    const nowSec = Math.floor(nowMs / 1000);
    const exp = numericDate(payload, 'exp', true) as number;
    if (exp <= nowSec - tolerance) {
      throw authError(
        'expired',
        `token expired at ${iso(exp)} (node time ${iso(nowSec)}); get a new one with \`plexus token issue\``,
      );
    }
    const nbf = numericDate(payload, 'nbf', false);
    if (nbf !== undefined && nbf > nowSec + tolerance) {
      throw authError('not-yet-valid', `token is not valid before ${iso(nbf)} (node time ${iso(nowSec)})`);
    }
    const iat = numericDate(payload, 'iat', true) as number;
    if (iat > nowSec + tolerance) {
      throw authError(
        'not-yet-valid',
        `token refused: it was issued in the future (iat ${iso(iat)}, node time ${iso(nowSec)})`,
      );
    }
    const aud = payload.aud;
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? (aud as unknown[]) : undefined;
    if (auds === undefined || auds.length === 0 || auds.some((a) => typeof a !== 'string')) {
      throw authError('audience', 'token refused: it has no "aud" claim naming the node it is for');
    }
    if (!auds.some((a) => frozenAudience.includes(a as string))) {
      throw authError(
        'audience',
        `token refused: it is for ${auds.map((a) => JSON.stringify(clip(a as string))).join(', ')}, not this node (${frozenAudience.join(', ')})`,
      );
    }
    const sub = stringClaim(payload, 'sub', true) as string;
    const jti = stringClaim(payload, 'jti', true) as string;
    const tenant = stringClaim(payload, 'tenant', false);
    const scopes = parseScopeClaim(payload);

    signatureChecks++;
    try {
      await jwtVerify(token, key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: iss,
        audience: [...frozenAudience],
        clockTolerance: tolerance,
        currentDate: new Date(nowMs),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      });
    } catch (err) {
      throw joseFailure(err, iss);
    }
    return Object.freeze({
      id: sub,
      kind: 'jwt',
      scopes,
      ...(tenant === undefined ? {} : { tenant }),
      expiresAt: exp * 1000,
      tokenId: jti,
      issuer: iss,
    });
  }

  return {
    issuers,
    audience: frozenAudience,
    get signatureChecks() {
      return signatureChecks;
    },
    verify,
  };
}
