/**
 * The authenticator every face calls with the request's `Authorization` header (DESIGN D14):
 * one entry point for node-issued JWTs, API keys and (later) UCANs, with the verified-token
 * cache, in-flight de-duplication and revocation.
 *
 * A JWT costs one signature check: the first request verifies it and caches the principal
 * until the token's `exp`; concurrent requests with the same uncached token wait for the
 * same verification. API keys cost one SHA-256 each and are not cached.
 */
import { PlexusError } from '../../core/errors.js';
import { authError } from './auth-error.js';
import { apiKeyVerifier, type ApiKeyVerifier, type ApiKeyVerifierInit } from './api-keys.js';
import { bearerToken, bearerTokenKind } from './bearer.js';
import {
  decodeUnverifiedToken,
  tokenVerifier,
  type BearerVerifier,
  type TokenVerifierInit,
  type VerifyOptions,
} from './jwt-verifier.js';
import { anonymousPrincipal, type Principal } from './principal.js';
import { DEFAULT_TOKEN_CACHE_SIZE, VerifiedTokenCache } from './token-cache.js';

/** The number of revoked token ids remembered when no limit is given. */
export const DEFAULT_MAX_REVOCATIONS = 65_536;

/** Options for {@link authenticator}. */
export interface AuthenticatorInit {
  /** The node-token verifier, or the options to build one ({@link tokenVerifier}); absent = JWTs refused. */
  readonly jwt?: BearerVerifier | TokenVerifierInit;
  /** The API-key verifier, or the options to build one ({@link apiKeyVerifier}); absent = API keys refused. */
  readonly apiKeys?: ApiKeyVerifier | ApiKeyVerifierInit;
  /** A verifier for UCAN bearer tokens (JWTs whose header has `ucv`); absent = UCANs refused. */
  readonly ucan?: BearerVerifier;
  /**
   * Give requests without credentials the {@link anonymousPrincipal}. Only for a loopback
   * node in dev mode: set it from {@link authRequired}. Credentials that are present are
   * still checked.
   * @default false
   */
  readonly allowAnonymous?: boolean;
  /**
   * How many verified tokens to cache (at least 2).
   * @default 10000
   */
  readonly cacheSize?: number;
  /**
   * How many revoked token ids to remember; beyond it the oldest are forgotten.
   * @default 65536
   */
  readonly maxRevocations?: number;
  /**
   * The clock, in Unix milliseconds; also passed to verifiers built from options.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** Counters of an authenticator. */
export interface AuthenticatorStats {
  /** Tokens answered from the cache. */
  readonly cacheHits: number;
  /** Tokens that went to a verifier (each one a signature check for a JWT). */
  readonly verifications: number;
  /** Tokens in the cache now. */
  readonly cached: number;
  /** Revoked token ids remembered now. */
  readonly revoked: number;
}

/** Turns `Authorization` headers into principals. */
export interface Authenticator {
  /**
   * Authenticates a request from its `Authorization` header value.
   *
   * @throws PlexusError `UNAUTHORIZED` with `details.reason` (see `AUTH_FAILURE_REASONS`)
   *   when the credential is missing (unless anonymous access is allowed), malformed, of an
   *   unaccepted kind, refused by its verifier, or revoked; `CANCELLED` when `signal` aborts.
   */
  authenticate(authorization: string | undefined, options?: VerifyOptions): Promise<Principal>;
  /**
   * Revokes a token id (a JWT's `jti` or an API key's id): cached entries are dropped at once
   * and the id is refused from now on, until `until` (Unix ms) when given, else for as long
   * as it is remembered (see `maxRevocations`).
   *
   * @throws PlexusError `INVALID_PARAMS` when `tokenId` is not a non-empty string or `until`
   *   is NaN.
   */
  revoke(tokenId: string, until?: number): void;
  /** True when `tokenId` is revoked now. */
  isRevoked(tokenId: string): boolean;
  /** Drops every cached token (revocations are kept). */
  clearCache(): void;
  /** The counters. */
  stats(): AuthenticatorStats;
}

function hasVerify<V extends { verify: unknown }>(value: V | object): value is V {
  return typeof (value as { verify?: unknown }).verify === 'function';
}

function cancelled(options: VerifyOptions | undefined): void {
  if (options?.signal?.aborted === true) {
    throw new PlexusError('CANCELLED', 'authentication was cancelled', { cause: options.signal.reason });
  }
}

/**
 * Returns an authenticator over the given verifiers.
 *
 * @throws PlexusError `INVALID_PARAMS` when `cacheSize` or `maxRevocations` is not a
 *   positive integer, or a verifier cannot be built from its options.
 * @example
 * const auth = authenticator({ jwt: { issuerKeys: [nodeKey] }, apiKeys: { keys: config.apiKeys } });
 * const principal = await auth.authenticate(request.headers.authorization);
 */
export function authenticator(init: AuthenticatorInit): Authenticator {
  const now = init.now ?? Date.now;
  const withClock = <T extends object>(options: T): T =>
    init.now === undefined || 'now' in options ? options : { ...options, now: init.now };
  let jwt: BearerVerifier | undefined;
  if (init.jwt !== undefined) {
    jwt = hasVerify<BearerVerifier>(init.jwt) ? init.jwt : tokenVerifier(withClock(init.jwt));
  }
  let apiKeys: ApiKeyVerifier | undefined;
  if (init.apiKeys !== undefined) {
    apiKeys = hasVerify<ApiKeyVerifier>(init.apiKeys)
      ? init.apiKeys
      : apiKeyVerifier(withClock(init.apiKeys));
  }
  const ucan = init.ucan;
  const cache = new VerifiedTokenCache(init.cacheSize ?? DEFAULT_TOKEN_CACHE_SIZE);
  const maxRevocations = init.maxRevocations ?? DEFAULT_MAX_REVOCATIONS;
  if (!Number.isSafeInteger(maxRevocations) || maxRevocations < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `maxRevocations must be a positive integer, got ${maxRevocations}`,
    );
  }
  const revoked = new Map<string, number>();
  const inflight = new Map<string, Promise<Principal>>();
  let cacheHits = 0;
  let verifications = 0;

  function isRevoked(tokenId: string): boolean {
    const until = revoked.get(tokenId);
    if (until === undefined) return false;
    if (now() < until) return true;
    revoked.delete(tokenId);
    return false;
  }

  function refuseRevoked(principal: Principal): Principal {
    if (principal.tokenId !== undefined && revoked.size > 0 && isRevoked(principal.tokenId)) {
      throw authError('revoked', `credential ${principal.tokenId} has been revoked`);
    }
    return principal;
  }

  function pickJwtVerifier(token: string): BearerVerifier {
    // A UCAN is a JWT too; its header carries `ucv`. Decoding is cheap next to a signature check.
    if (ucan !== undefined && decodeUnverifiedToken(token).header.ucv !== undefined) return ucan;
    if (jwt === undefined) {
      throw authError('unsupported', 'bearer JWTs are not accepted by this node; use an API key');
    }
    return jwt;
  }

  async function verifyAndCache(verifier: BearerVerifier, token: string): Promise<Principal> {
    verifications++;
    const principal = refuseRevoked(await verifier.verify(token));
    cache.set(token, principal, principal.expiresAt ?? Number.POSITIVE_INFINITY, now());
    return principal;
  }

  async function authenticate(
    authorization: string | undefined,
    options?: VerifyOptions,
  ): Promise<Principal> {
    cancelled(options);
    if (init.allowAnonymous === true && (authorization === undefined || authorization.trim() === '')) {
      return anonymousPrincipal();
    }
    // Fast path: the usual spelling "Bearer <token>" of a token already verified. The cache
    // holds only tokens that passed full parsing, so an exact hit needs no parsing again.
    if (authorization !== undefined && authorization.startsWith('Bearer ')) {
      const hit = cache.get(authorization.slice(7), now());
      if (hit !== undefined) {
        cacheHits++;
        return hit;
      }
    }
    const token = bearerToken(authorization);
    switch (bearerTokenKind(token)) {
      case 'api-key': {
        if (apiKeys === undefined) {
          throw authError(
            'unsupported',
            'API keys are not accepted by this node; use a token from `plexus token issue`',
          );
        }
        return refuseRevoked(apiKeys.verify(token));
      }
      case 'jwt': {
        const cached = cache.get(token, now());
        if (cached !== undefined) {
          cacheHits++;
          return cached;
        }
        let pending = inflight.get(token);
        if (pending === undefined) {
          const verifier = pickJwtVerifier(token);
          pending = verifyAndCache(verifier, token).finally(() => inflight.delete(token));
          inflight.set(token, pending);
        }
        const principal = await pending;
        cancelled(options);
        return principal;
      }
      case 'unknown':
        throw authError(
          'malformed',
          'unrecognised bearer token: it is neither a JWT (three base64url parts joined by dots) nor an API key (plx_…)',
        );
    }
  }

  return {
    authenticate,
    revoke(tokenId: string, until?: number): void {
      if (typeof tokenId !== 'string' || tokenId === '') {
        throw new PlexusError(
          'INVALID_PARAMS',
          'revoke needs the token id (jti or API key id) as a non-empty string',
        );
      }
      if (until !== undefined && Number.isNaN(until)) {
        throw new PlexusError('INVALID_PARAMS', 'revoke: "until" must be a time in Unix milliseconds');
      }
      cache.deleteTokenId(tokenId);
      revoked.delete(tokenId);
      revoked.set(tokenId, until ?? Number.POSITIVE_INFINITY);
      if (revoked.size > maxRevocations) {
        const t = now();
        for (const [id, end] of revoked) if (!(t < end)) revoked.delete(id);
        for (const id of revoked.keys()) {
          if (revoked.size <= maxRevocations) break;
          revoked.delete(id);
        }
      }
    },
    isRevoked,
    clearCache(): void {
      cache.clear();
    },
    stats(): AuthenticatorStats {
      return { cacheHits, verifications, cached: cache.size, revoked: revoked.size };
    },
  };
}
