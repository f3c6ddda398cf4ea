/**
 * Pipeline step `authorize`: establishes who the caller is and whether it may make this
 * request. Now: the bearer identity the face authenticated (or, failing that, the verified
 * signer of the envelope), required when the node requires authentication. Later policies —
 * capability tokens (UCAN), tier and sandbox rules — plug in as {@link Authorizer}s.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { KeyIdentity } from '../../security/identity.js';
import type { InvocationContext, Principal } from '../context.js';
import type { Resolution } from '../routing/router.js';

/** What an {@link Authorizer} decides on. */
export interface AuthorizationRequest {
  readonly envelope: Envelope;
  readonly context: InvocationContext;
  /** The authenticated caller (bearer identity, else the verified signer), if any. */
  readonly principal: Principal | undefined;
  /** The agents the request may go to. */
  readonly resolution: Resolution;
  /** The verb spec registered by agent `agentId` for the request's verb, if any. */
  verbSpec(agentId: string): VerbSpec | undefined;
}

/** A policy hook: returns to allow, throws a PlexusError (`FORBIDDEN`, `UNAUTHORIZED`, …) to deny. */
export interface Authorizer {
  /** A name for spans and error messages. */
  readonly name: string;
  /**
   * Allows the request by returning, denies it by throwing.
   * @throws PlexusError why the request is denied.
   */
  authorize(request: AuthorizationRequest, signal: AbortSignal): void | Promise<void>;
}

/** Options of {@link authorizeStep}. */
export interface AuthorizeOptions {
  /** Refuse requests without an authenticated caller. @default false */
  readonly requireAuth: boolean;
  /** Policies run in order after authentication; the first denial wins. @default [] */
  readonly authorizers: readonly Authorizer[];
}

/** The principal of a request: the face's, else the verified signer's (`kind: 'signature'`). */
export function principalOf(
  context: InvocationContext,
  signer: KeyIdentity | undefined,
): Principal | undefined {
  if (context.principal !== undefined) return context.principal;
  return signer === undefined ? undefined : { id: signer.did, kind: 'signature' };
}

/**
 * The authentication half of the step, synchronous: the principal, required when the node
 * requires authentication.
 *
 * @throws PlexusError `UNAUTHORIZED` when authentication is required and there is no principal.
 */
export function authenticateStep(
  principal: Principal | undefined,
  requireAuth: boolean,
): Principal | undefined {
  if (requireAuth && principal === undefined) {
    throw new PlexusError(
      'UNAUTHORIZED',
      'this node requires an authenticated caller: send Authorization: Bearer <token> or sign the envelope',
    );
  }
  return principal;
}

/**
 * Authenticates and authorises a request; resolves with the principal.
 *
 * @throws PlexusError `UNAUTHORIZED` when authentication is required and the request has no
 *   authenticated caller; whatever an authorizer throws (a non-PlexusError becomes
 *   `INTERNAL` naming the authorizer); `CANCELLED` when the signal aborts.
 */
export async function authorizeStep(
  request: AuthorizationRequest,
  options: AuthorizeOptions,
  signal: AbortSignal,
): Promise<Principal | undefined> {
  authenticateStep(request.principal, options.requireAuth);
  for (const authorizer of options.authorizers) {
    if (signal.aborted) throw new PlexusError('CANCELLED', 'the request was cancelled during authorisation');
    try {
      await authorizer.authorize(request, signal);
    } catch (error) {
      if (error instanceof PlexusError) throw error;
      throw new PlexusError(
        'INTERNAL',
        `authorizer ${authorizer.name} failed: ${toPlexusError(error).message}`,
        { cause: error },
      );
    }
  }
  return request.principal;
}
