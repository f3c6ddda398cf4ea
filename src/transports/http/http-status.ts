/**
 * The HTTP status of each Plexus error code on the HTTP faces (ESRP, discovery, health, the
 * peer route, the WebSocket upgrade refusal), and the Plexus code a status is read as.
 */
import type { PlexusErrorCode } from '../../core/errors.js';
import { plexusCodeFromEmergence } from '../../wire/emergence/error-table.js';

/** Every Plexus error code's HTTP status; a code missing here does not compile. */
export const HTTP_STATUS = {
  // Malformed input
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMS: 400,
  INVALID_SEMANTIC: 400,
  INPUT_TOO_LARGE: 413,
  VERSION_MISMATCH: 400,
  UNKNOWN_VERB: 404,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  // Authentication and signatures
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SIGNATURE_INVALID: 401,
  SIGNATURE_DOMAIN_MISMATCH: 401,
  SIGNATURE_EXPIRED: 401,
  SIGNATURE_REPLAYED: 401,
  SIGNER_MISMATCH: 401,
  MALFORMED_ENVELOPE: 400,
  // Resources and policy (Hyperspace −32002…−32008)
  BUDGET_EXCEEDED: 402,
  RATE_LIMITED: 429,
  SAFETY_VIOLATION: 422,
  LOOP_DETECTED: 508,
  PEER_UNAVAILABLE: 502,
  REPLICATION_FAILED: 503,
  TRAJECTORY_REJECTED: 422,
  // Runtime
  TIMEOUT: 408,
  CANCELLED: 409,
  UNAVAILABLE: 503,
  OUT_OF_MEMORY: 507,
  // Versioning (seed 002 §10.3): the era is past its sunset and no longer served
  VERB_SUNSET: 410,
  INTERNAL: 500,
} as const satisfies Record<PlexusErrorCode, number>;

/**
 * The Plexus code an incoming HTTP status is read as. An Emergence `ERROR.data.code` is an
 * HTTP-style status (D4), so both are read by one switch ({@link plexusCodeFromEmergence}):
 * unknown 4xx become `INVALID_REQUEST`, unknown 5xx `UNAVAILABLE` when 502–504 else `INTERNAL`.
 */
export function plexusCodeFromHttp(status: number): PlexusErrorCode {
  return plexusCodeFromEmergence(status);
}
