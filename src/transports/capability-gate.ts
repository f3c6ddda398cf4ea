/**
 * The capability gate of a node's faces (DESIGN D7, D14; docs/capabilities.md): a UCAN chain
 * presented as the request's credential (`Authorization: Bearer <ucan>` with its proofs) is
 * verified here, so the face knows the principal before the request reaches the runtime,
 * and revocations arrive here from the wire. The runtime's capability authorizer then checks
 * that the same chain grants what the verb needs (the chain is cached by its leaf, so the
 * second check costs a lookup).
 */
import type { SignalOptions } from '../store/event-log.js';
import type { Principal as AuthPrincipal } from '../security/auth/principal.js';
import type { UcanVerifier, VerifiedChain } from '../security/ucan/chain-verifier.js';
import type { CapabilityEntry } from '../security/ucan/capability.js';
import { verifyRevocation, type UcanRevocation } from '../security/ucan/revocation.js';
import type { Revocations } from '../runtime/pipeline/revocations.js';
import type { AuthorizationRequest } from '../runtime/pipeline/authorize.js';
import type { CapabilityAuthorizer } from '../runtime/pipeline/capability-authorizer.js';

/** What faces ask of the node's UCAN checks. */
export interface CapabilityGate {
  /**
   * Verifies a capability container (leaf first, then proofs) presented as a credential and
   * returns its principal: id = the leaf's issuer, kind `ucan`, `tokenId` = the leaf's CID,
   * `expiresAt` = the leaf's `exp`, and `tenant` when every capability the chain grants is
   * bound to the same tenant by a `tenant` caveat.
   * @throws PlexusError `UNAUTHORIZED` with `details.reason`, `details.link`, `details.cid`.
   */
  authenticate(container: string): AuthPrincipal;
  /**
   * Records a signed revocation (UCAN 0.10 §6.6) as a `ucan.revoked` event; from then on every
   * chain through that token is refused on every face.
   * @throws PlexusError `INVALID_PARAMS` for a malformed message; `UNAUTHORIZED` when its
   *   signature does not verify; `FORBIDDEN` when the revoker is not an issuer of the token's
   *   known chain.
   */
  revoke(message: unknown, options?: SignalOptions): Promise<UcanRevocation>;
  /**
   * True when the runtime's capability check would let `request` through (the authorizer's
   * own decision, no audit entry): what a face asks to list only what a caller may call.
   * Absent = the face cannot tell and lists everything (the call is still checked).
   */
  permits?(request: AuthorizationRequest): boolean;
}

/**
 * True while the capability container still authenticates (no link expired or revoked since):
 * what a long-lived connection or stream checks before it goes on serving (a cached chain
 * check; time and revocations are re-checked on every hit).
 */
export function credentialStillValid(gate: CapabilityGate, container: string): boolean {
  try {
    gate.authenticate(container);
    return true;
  } catch {
    return false;
  }
}

/** Injected dependencies of {@link capabilityGate}. */
export interface CapabilityGateComponents {
  readonly verifier: UcanVerifier;
  readonly revocations: Revocations;
  /** The runtime's capability authorizer, whose decisions {@link CapabilityGate.permits} asks. */
  readonly authorizer?: Pick<CapabilityAuthorizer, 'permits'>;
}

function caveatTenant(entry: CapabilityEntry): string | undefined {
  let tenant: string | undefined;
  if (entry.caveats.length === 0) return undefined;
  for (const caveat of entry.caveats) {
    const value = (caveat as Record<string, unknown>)['tenant'];
    if (typeof value !== 'string' || (tenant !== undefined && tenant !== value)) return undefined;
    tenant = value;
  }
  return tenant;
}

/**
 * The tenant a verified chain is bound to: the tenant named by the `tenant` caveat of every
 * capability it grants (every caveat of every entry naming the same one), else none.
 */
export function tenantOfChain(chain: Pick<VerifiedChain, 'capabilities'>): string | undefined {
  let tenant: string | undefined;
  for (const entry of chain.capabilities) {
    const t = caveatTenant(entry);
    if (t === undefined || (tenant !== undefined && t !== tenant)) return undefined;
    tenant = t;
  }
  return tenant;
}

/** The credential principal of a verified chain. */
export function principalOfChain(chain: VerifiedChain): AuthPrincipal {
  const tenant = tenantOfChain(chain);
  return {
    id: chain.invoker,
    kind: 'ucan',
    scopes: [],
    tokenId: chain.cid,
    issuer: chain.roots[0] ?? chain.invoker,
    ...(chain.expiresAt === null ? {} : { expiresAt: chain.expiresAt * 1000 }),
    ...(tenant === undefined ? {} : { tenant }),
  };
}

/**
 * Creates the gate over the node's chain verifier and revocations.
 *
 * @example
 * const gate = capabilityGate({ verifier, revocations });
 * const principal = gate.authenticate(`${leaf},${proof}`);
 */
export function capabilityGate(components: CapabilityGateComponents): CapabilityGate {
  const { verifier, revocations, authorizer } = components;
  return {
    authenticate: (container) => principalOfChain(verifier.verify(container)),
    ...(authorizer === undefined ? {} : { permits: (request) => authorizer.permits(request) }),
    async revoke(message, options = {}) {
      const checked = verifyRevocation(message);
      await revocations.revoke(checked, options);
      return checked;
    },
  };
}
