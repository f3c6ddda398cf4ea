/**
 * Tenancy (seed 002 §2.1 "tenant_id: multi-tenant isolation"; docs/decisions/tenancy.md): the
 * tenant of a request comes from the authenticated principal, not from what the caller
 * writes in the envelope, and a job of another tenant looks exactly like a missing one.
 *
 * - A principal bound to tenant T (a JWT `tenant` claim, an API key's `tenant`, a UCAN whose
 *   every capability carries the caveat `{"tenant": T}`) acts for T only: a request without a
 *   tenant gets T, a request claiming another tenant is refused `FORBIDDEN`.
 * - An authenticated principal bound to no tenant acts for no tenant: a claim is refused.
 * - Requests without a face-authenticated principal, the node's in-process calls (face
 *   `internal`: a tool's child call, carrying its parent's tenant), the dev-mode `anonymous`
 *   principal (auth is off) and trusted peer nodes (which bound the tenant at their own face)
 *   keep the envelope's tenant as written.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { InvocationContext, Principal } from '../context.js';

/** The face of the node's own in-process calls. */
export const INTERNAL_FACE = 'internal';

/**
 * Principal kinds whose requests keep the envelope's tenant as written: `anonymous` (a dev
 * node without auth) and `peer` (a trusted peer node forwarding a call its face bound).
 */
export const TENANT_TRUSTED_KINDS: readonly string[] = ['anonymous', 'peer'];

/** True when `principal` is bound by tenancy (see the module comment). */
export function isTenantBound(principal: Principal | undefined): principal is Principal {
  return principal !== undefined && !TENANT_TRUSTED_KINDS.includes(principal.kind);
}

/**
 * The request with its tenant taken from the principal (see the module comment); the same
 * object when nothing changes.
 *
 * @throws PlexusError `FORBIDDEN` (`details.reason` `tenant`, `details.tenant` = the claim,
 *   `details.bound` = the principal's tenant or null) when the envelope claims a tenant the
 *   principal is not bound to.
 */
export function bindTenant(
  envelope: Envelope,
  context: Pick<InvocationContext, 'face' | 'principal'>,
): Envelope {
  const { principal } = context;
  if (context.face === INTERNAL_FACE || !isTenantBound(principal)) return envelope;
  const bound = principal.tenantId;
  const claimed = envelope.tenantId;
  if (claimed === bound) return envelope;
  if (claimed === undefined && bound !== undefined) return { ...envelope, tenantId: bound };
  throw new PlexusError(
    'FORBIDDEN',
    bound === undefined
      ? `the request claims tenant ${JSON.stringify(claimed)}, but its credential is bound to no tenant; use a credential issued for that tenant`
      : `the request claims tenant ${JSON.stringify(claimed)}, but its credential is bound to tenant ${JSON.stringify(bound)}; leave tenantId out or use a credential issued for that tenant`,
    { details: { reason: 'tenant', tenant: claimed ?? null, bound: bound ?? null } },
  );
}

/**
 * True when a record of tenant `tenantId` (a job, its events) may be shown to `principal`:
 * always for requests that are not tenant-bound, otherwise only to the same tenant (no
 * tenant matches no tenant).
 */
export function visibleToTenant(tenantId: string | undefined, principal: Principal | undefined): boolean {
  return !isTenantBound(principal) || (principal.tenantId ?? undefined) === (tenantId ?? undefined);
}

/** The `NOT_FOUND` a job of another tenant is answered with: the runtime's own for a missing job. */
export function jobNotFound(jobId: string): PlexusError {
  return new PlexusError('NOT_FOUND', `no job with id ${JSON.stringify(jobId)}`, { details: { job: jobId } });
}
