/**
 * The one error every failed authentication throws: `UNAUTHORIZED` (HTTP 401 on every HTTP
 * face), with a machine-readable `details.reason` so a face can write its own challenge
 * (e.g. `WWW-Authenticate: Bearer error="invalid_token"`) and tests can tell failures apart.
 */
import { PlexusError } from '../../core/errors.js';

/** Why a credential was refused. */
export const AUTH_FAILURE_REASONS = [
  'missing',
  'scheme',
  'malformed',
  'algorithm',
  'signature',
  'expired',
  'not-yet-valid',
  'audience',
  'issuer',
  'claims',
  'revoked',
  'unknown-key',
  'unsupported',
] as const;

/** One of {@link AUTH_FAILURE_REASONS}. */
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** How to get a credential; appended to the messages of missing or unusable credentials. */
export const HOW_TO_GET_A_TOKEN =
  'send "Authorization: Bearer <token>" with a token from `plexus token issue` or an API key (plx_…)';

/**
 * Returns the `UNAUTHORIZED` error for a refused credential.
 *
 * @param reason goes to `details.reason`.
 * @param cause the underlying failure (e.g. the jose error), kept for diagnosis.
 */
export function authError(reason: AuthFailureReason, message: string, cause?: unknown): PlexusError {
  return new PlexusError('UNAUTHORIZED', message, {
    details: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The `details.reason` of an authentication error, or `undefined` for any other error. */
export function authFailureReason(error: unknown): AuthFailureReason | undefined {
  if (!(error instanceof PlexusError) || error.code !== 'UNAUTHORIZED') return undefined;
  const reason = error.details?.reason;
  return (AUTH_FAILURE_REASONS as readonly unknown[]).includes(reason)
    ? (reason as AuthFailureReason)
    : undefined;
}

/**
 * Returns the `WWW-Authenticate` header value for a 401 answer (RFC 6750 §3): no error code
 * when the request carried no bearer credential (reasons `missing` and `scheme`),
 * `error="invalid_token"` with the message as `error_description` otherwise. The message is
 * reduced to the characters a quoted description may hold.
 *
 * @param error the refusal (any error; one that is not an auth failure gets the bare challenge).
 * @param realm the protection space. @default "plexus"
 */
export function bearerChallenge(error?: unknown, realm = 'plexus'): string {
  const quote = (text: string) =>
    text
      .replace(/…/g, '...')
      .replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "'")
      .slice(0, 300);
  const base = `Bearer realm="${quote(realm)}"`;
  const reason = authFailureReason(error);
  if (reason === undefined || reason === 'missing' || reason === 'scheme') return base;
  return `${base}, error="invalid_token", error_description="${quote((error as Error).message)}"`;
}
