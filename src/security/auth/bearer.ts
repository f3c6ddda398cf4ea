/**
 * Parsing of the `Authorization` request header (RFC 7235, RFC 6750 §2.1) and telling the
 * kinds of bearer token apart.
 */
import { clip } from '../did-key.js';
import { authError, HOW_TO_GET_A_TOKEN } from './auth-error.js';
import { API_KEY_PREFIX } from './api-keys.js';
import { MAX_TOKEN_LENGTH } from './jwt-verifier.js';

/** What a bearer token looks like: a JWT (node token or UCAN), a Plexus API key, or neither. */
export type BearerTokenKind = 'jwt' | 'api-key' | 'unknown';

/** RFC 7235 token68. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const SCHEME = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?: +(.*))?$/s;

/**
 * Returns the token of an `Authorization: Bearer <token>` header value. The scheme is
 * case-insensitive; surrounding whitespace is ignored.
 *
 * @throws PlexusError `UNAUTHORIZED` with `details.reason` `missing` (no header or an empty
 *   one; the message says how to get a token), `scheme` (another scheme, e.g. `Basic`) or
 *   `malformed` (`Bearer` with no token, a token with spaces or characters outside token68,
 *   or longer than the token limit).
 */
export function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || typeof authorization !== 'string' || authorization.trim() === '') {
    throw authError('missing', `no credentials: ${HOW_TO_GET_A_TOKEN}`);
  }
  if (authorization.length > MAX_TOKEN_LENGTH + 64) {
    throw authError(
      'malformed',
      `malformed Authorization header: it is ${authorization.length} characters; a token is at most ${MAX_TOKEN_LENGTH}`,
    );
  }
  const match = SCHEME.exec(authorization.trim());
  if (match === null) {
    throw authError(
      'malformed',
      `malformed Authorization header: expected "Bearer <token>"; ${HOW_TO_GET_A_TOKEN}`,
    );
  }
  const scheme = match[1] as string;
  if (scheme.toLowerCase() !== 'bearer') {
    throw authError(
      'scheme',
      `Authorization scheme "${clip(scheme, 20)}" is not accepted; ${HOW_TO_GET_A_TOKEN}`,
    );
  }
  const token = (match[2] ?? '').trim();
  if (token === '') {
    throw authError('malformed', `the Bearer credential is empty; ${HOW_TO_GET_A_TOKEN}`);
  }
  if (!TOKEN68.test(token)) {
    throw authError(
      'malformed',
      'malformed Bearer token: it must be one word of letters, digits and - . _ ~ + / (a JWT or a plx_ API key)',
    );
  }
  return token;
}

/** Tells what kind of bearer token `token` looks like, without verifying anything. */
export function bearerTokenKind(token: string): BearerTokenKind {
  if (token.startsWith(API_KEY_PREFIX)) return 'api-key';
  const first = token.indexOf('.');
  if (first >= 0) {
    const second = token.indexOf('.', first + 1);
    if (second >= 0 && token.indexOf('.', second + 1) === -1) return 'jwt';
  }
  return 'unknown';
}
