/**
 * Node-issued bearer tokens (DESIGN D14): compact JWTs signed with EdDSA (Ed25519) by the
 * node's own key.
 *
 * Header `{"alg":"EdDSA","typ":"JWT"}`. Claims: `iss` the node's did:key, `sub` the
 * principal, `aud` the node(s) that accept it (the issuing node's did:key unless told),
 * `iat`, `exp` (always present), `nbf` (optional), `jti` (a random UUID unless told), and
 * the optional `scope` (space-separated RFC 6749 scope tokens) and `tenant`.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { PlexusError } from '../../core/errors.js';
import type { Ed25519KeyPair } from '../ed25519.js';
import { identityFromPublicKey } from '../identity.js';
import { parseTtl } from './duration.js';
import { assertClaimText, normalizeScopes } from './principal.js';

/** The lifetime of a token when none is given: one hour, in seconds. */
export const DEFAULT_TOKEN_TTL_SEC = 3600;

/** The one JWS algorithm Plexus issues and accepts. */
export const TOKEN_ALGORITHM = 'EdDSA';

/** Options for {@link issueToken}. */
export interface IssueTokenInit {
  /** The node's key pair; its did:key becomes `iss`. */
  readonly key: Ed25519KeyPair;
  /** The principal the token names (`sub`): an agent id or a user name. */
  readonly subject: string;
  /**
   * Who accepts the token (`aud`): one or more node ids or URLs.
   * @default the issuing node's did:key
   */
  readonly audience?: string | readonly string[];
  /**
   * Lifetime: seconds, or text such as `"15m"`, `"1h"`, `"7d"` (at most 366 days).
   * @default 3600 (one hour)
   */
  readonly ttl?: number | string;
  /** Granted scopes, as a list or a space-separated string. */
  readonly scopes?: string | readonly string[];
  /** The tenant the token is bound to. */
  readonly tenant?: string;
  /** The first instant the token is valid (`nbf`), in Unix milliseconds; absent = at once. */
  readonly notBefore?: number;
  /**
   * The token id (`jti`), the handle for revocation.
   * @default a random UUID
   */
  readonly tokenId?: string;
  /**
   * The clock, in Unix milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /** Cancels the signing. */
  readonly signal?: AbortSignal;
}

/** A freshly issued token and what it says. */
export interface IssuedToken {
  /** The compact JWT, ready for `Authorization: Bearer …`. */
  readonly token: string;
  /** The `jti`. */
  readonly tokenId: string;
  /** The `iss`: the issuing node's did:key. */
  readonly issuer: string;
  /** The `sub`. */
  readonly subject: string;
  /** The `aud` values. */
  readonly audience: readonly string[];
  /** The scopes in `scope`, in order. */
  readonly scopes: readonly string[];
  /** The `tenant`, when set. */
  readonly tenant?: string;
  /** `iat`, in Unix milliseconds (a whole second). */
  readonly issuedAt: number;
  /** `nbf`, in Unix milliseconds (a whole second), when set. */
  readonly notBefore?: number;
  /** `exp`, in Unix milliseconds (a whole second). */
  readonly expiresAt: number;
}

function audienceList(audience: string | readonly string[] | undefined, issuer: string): string[] {
  if (audience === undefined) return [issuer];
  const list = typeof audience === 'string' ? [audience] : [...audience];
  if (list.length === 0)
    throw new PlexusError('INVALID_PARAMS', 'token audience must name at least one node');
  for (const aud of list) assertClaimText(aud, 'token audience');
  return [...new Set(list)];
}

/**
 * Issues a node token: an EdDSA-signed JWT naming `subject`, valid for `ttl` from now.
 *
 * @throws PlexusError `INVALID_PARAMS` when the subject, tenant, token id or an audience is
 *   empty, longer than 256 characters or holds control characters; when a scope is not an
 *   RFC 6749 scope token; when the lifetime is not a positive duration up to 366 days; when
 *   `notBefore` is not before the expiry. `CANCELLED` when `signal` aborts.
 * @example
 * const { token } = await issueToken({ key: nodeKey, subject: 'agent:summariser', scopes: ['jobs:read'] });
 */
export async function issueToken(init: IssueTokenInit): Promise<IssuedToken> {
  if (init.signal?.aborted === true) {
    throw new PlexusError('CANCELLED', 'token issuing was cancelled', { cause: init.signal.reason });
  }
  assertClaimText(init.subject, 'token subject');
  if (init.tenant !== undefined) assertClaimText(init.tenant, 'token tenant');
  const tokenId = init.tokenId ?? randomUUID();
  assertClaimText(tokenId, 'token id');
  const scopes = normalizeScopes(init.scopes, 'token scope');
  const ttl = parseTtl(init.ttl ?? DEFAULT_TOKEN_TTL_SEC);
  const issuer = identityFromPublicKey(init.key.publicKey).did;
  const audience = audienceList(init.audience, issuer);
  const nowMs = (init.now ?? Date.now)();
  if (!Number.isFinite(nowMs))
    throw new PlexusError('INVALID_PARAMS', 'the clock returned a non-finite time');
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + ttl;
  let nbf: number | undefined;
  if (init.notBefore !== undefined) {
    if (!Number.isFinite(init.notBefore)) {
      throw new PlexusError('INVALID_PARAMS', 'token notBefore must be a time in Unix milliseconds');
    }
    nbf = Math.floor(init.notBefore / 1000);
    if (nbf >= exp) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `token notBefore ${new Date(nbf * 1000).toISOString()} is not before its expiry ${new Date(exp * 1000).toISOString()}`,
      );
    }
  }
  const claims: Record<string, unknown> = {};
  if (scopes.length > 0) claims.scope = scopes.join(' ');
  if (init.tenant !== undefined) claims.tenant = init.tenant;
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
    .setIssuer(issuer)
    .setSubject(init.subject)
    .setAudience(audience.length === 1 ? (audience[0] as string) : audience)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(tokenId);
  if (nbf !== undefined) jwt.setNotBefore(nbf);
  const token = await jwt.sign(init.key.privateKeyObject);
  return {
    token,
    tokenId,
    issuer,
    subject: init.subject,
    audience,
    scopes,
    ...(init.tenant === undefined ? {} : { tenant: init.tenant }),
    issuedAt: iat * 1000,
    ...(nbf === undefined ? {} : { notBefore: nbf * 1000 }),
    expiresAt: exp * 1000,
  };
}
