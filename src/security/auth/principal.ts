/**
 * The authenticated caller of a request: who it is, how it proved it, and what it may ask
 * for (DESIGN D14). Every face turns its `Authorization` header into one of these through
 * the authenticator; the runtime's authorise step reads it.
 */
import { PlexusError } from '../../core/errors.js';

/** How a principal proved its identity. `anonymous` is only ever made in dev mode. */
export type PrincipalKind = 'jwt' | 'api-key' | 'ucan' | 'anonymous';

/** An authenticated caller. */
export interface Principal {
  /** The principal's id: the token's `sub` (an agent id or a user name), or the API key's subject. */
  readonly id: string;
  /** How it authenticated. */
  readonly kind: PrincipalKind;
  /** The tenant the credential is bound to, when it names one. */
  readonly tenant?: string;
  /** The granted scopes (RFC 6749 scope tokens), without duplicates, in the credential's order. */
  readonly scopes: readonly string[];
  /** When the credential stops being valid, in Unix milliseconds; absent when it never expires. */
  readonly expiresAt?: number;
  /** The token's `jti`, or the API key's id; the handle {@link Authenticator.revoke} takes. */
  readonly tokenId?: string;
  /** Who vouched for the principal: the issuing node's did:key for a JWT. */
  readonly issuer?: string;
}

/** The id of the dev-mode {@link anonymousPrincipal}. */
export const ANONYMOUS_PRINCIPAL_ID = 'anonymous';

/** The longest subject, tenant or scope accepted, in characters. */
export const MAX_CLAIM_LENGTH = 256;

/** RFC 6749 §3.3 `scope-token`: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
// eslint-disable-next-line no-control-regex -- the point is to find control characters.
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

const ANONYMOUS: Principal = Object.freeze({
  id: ANONYMOUS_PRINCIPAL_ID,
  kind: 'anonymous',
  scopes: Object.freeze<string[]>(['*']),
});

/**
 * The principal of an unauthenticated request on a node that runs without auth (a loopback
 * listener in `--dev` mode, see {@link authRequired}). It holds the wildcard scope `*`.
 * Never hand it out when auth is required.
 */
export function anonymousPrincipal(): Principal {
  return ANONYMOUS;
}

/** True when `scope` is a valid RFC 6749 scope token. */
export function isScopeToken(scope: unknown): scope is string {
  return typeof scope === 'string' && scope.length <= MAX_CLAIM_LENGTH && SCOPE_TOKEN.test(scope);
}

/**
 * Normalises scopes given as a space-separated string or a list: splits, drops empty
 * entries and duplicates, keeps the order.
 *
 * @param what names the value in the error message.
 * @throws PlexusError `INVALID_PARAMS` when a scope is not an RFC 6749 scope token
 *   (printable ASCII without space, `"` or `\`, at most 256 characters).
 */
export function normalizeScopes(scopes: string | readonly string[] | undefined, what = 'scope'): string[] {
  if (scopes === undefined) return [];
  const list = typeof scopes === 'string' ? scopes.split(' ') : scopes;
  const out: string[] = [];
  for (const scope of list) {
    if (scope === '' && typeof scopes === 'string') continue;
    if (!isScopeToken(scope)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `${what} ${JSON.stringify(scope)} is not a scope token: use printable ASCII without spaces, quotes or backslashes, at most ${MAX_CLAIM_LENGTH} characters`,
      );
    }
    if (!out.includes(scope)) out.push(scope);
  }
  return out;
}

/**
 * Checks a subject or tenant: a non-empty string of at most 256 characters without
 * control characters (they would forge lines in logs).
 *
 * @throws PlexusError `INVALID_PARAMS` naming `what` when it is not.
 */
export function assertClaimText(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new PlexusError('INVALID_PARAMS', `${what} must be a non-empty string`);
  }
  if (value.length > MAX_CLAIM_LENGTH) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${what} is ${value.length} characters; the limit is ${MAX_CLAIM_LENGTH}`,
    );
  }
  if (CONTROL.test(value)) {
    throw new PlexusError('INVALID_PARAMS', `${what} must not contain control characters`);
  }
}
