/**
 * The errors of UCAN handling (DESIGN D7): `UNAUTHORIZED` when a token or a link of its chain
 * is not valid, `FORBIDDEN` when a valid chain does not grant what a request needs. Every
 * error carries `details.reason` (one of {@link UCAN_FAILURE_REASONS}) and, for a chain,
 * `details.link` (0 = the token presented, 1 = its proof, …) and `details.cid` of the link.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';

/** Why a token or a chain was refused. */
export const UCAN_FAILURE_REASONS = [
  /** No token where one is required. */
  'missing',
  /** Not a compact JWT, not JSON, a field of the wrong type. */
  'malformed',
  /** A header algorithm other than EdDSA. */
  'algorithm',
  /** A `ucv` other than 0.10.x. */
  'version',
  /** The signature does not verify against the issuer's did:key. */
  'signature',
  /** Past `exp` (with the clock tolerance). */
  'expired',
  /** Before `nbf` (with the clock tolerance). */
  'not-yet-valid',
  /** The presented token's `aud` is not this node. */
  'audience',
  /** A link without proofs whose issuer is not a trusted root. */
  'untrusted-root',
  /** A `prf` CID that neither the request nor the proof store holds. */
  'missing-proof',
  /** A proof's `aud` is not the `iss` of the token it supports. */
  'principal-alignment',
  /** A link whose time bounds are wider than its proof's. */
  'time-widened',
  /** A link that grants a capability its proofs do not hold. */
  'widened',
  /** A link revoked by an issuer of its chain. */
  'revoked',
  /** A chain deeper than the limit, or a proof cycle. */
  'too-deep',
  /** The token was delegated to another principal than the authenticated caller. */
  'invoker-mismatch',
  /** A valid chain with no capability on the verb's resource (`agentese:verb/<name>`) or a pattern covering it. */
  'missing-verb',
  /** A valid chain that lacks a scope the verb needs. */
  'missing-scope',
  /** A valid chain that lacks an effect the verb declares. */
  'missing-effect',
  /** A capability whose caveats the request does not satisfy. */
  'caveat',
] as const;

/** One of {@link UCAN_FAILURE_REASONS}. */
export type UcanFailureReason = (typeof UCAN_FAILURE_REASONS)[number];

const FORBIDDEN_REASONS: ReadonlySet<UcanFailureReason> = new Set([
  'missing-verb',
  'missing-scope',
  'missing-effect',
  'caveat',
]);

/**
 * Returns the error for a refused token: `FORBIDDEN` for a missing verb, scope, effect or unmet
 * caveat, `UNAUTHORIZED` otherwise.
 *
 * @param details extra wire-safe details (`link`, `cid`, `scope`, …), merged after `reason`.
 */
export function ucanError(
  reason: UcanFailureReason,
  message: string,
  details: JsonObject = {},
  cause?: unknown,
): PlexusError {
  return new PlexusError(FORBIDDEN_REASONS.has(reason) ? 'FORBIDDEN' : 'UNAUTHORIZED', message, {
    details: { reason, ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The `details.reason` of a UCAN refusal, or `undefined` for any other error. */
export function ucanFailureReason(error: unknown): UcanFailureReason | undefined {
  if (!(error instanceof PlexusError)) return undefined;
  const reason = error.details?.['reason'];
  return (UCAN_FAILURE_REASONS as readonly unknown[]).includes(reason)
    ? (reason as UcanFailureReason)
    : undefined;
}
