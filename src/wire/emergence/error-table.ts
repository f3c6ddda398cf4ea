/**
 * How each Plexus error code reads on the Emergence face: the integer `ERROR.data.code`, an
 * HTTP-style status (D4), and back.
 */
import type { PlexusErrorCode } from '../../core/errors.js';

/**
 * Every Plexus error code's Emergence `ERROR.data.code`; a code missing here does not compile.
 * The HTTP status of the code except `UNKNOWN_VERB`, which Emergence answers 501.
 */
export const EMERGENCE_ERRORS = {
  // Malformed input
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMS: 400,
  INVALID_SEMANTIC: 400,
  INPUT_TOO_LARGE: 413,
  VERSION_MISMATCH: 400,
  UNKNOWN_VERB: 501,
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
 * The Plexus code an HTTP-style status is read as: an Emergence `ERROR.data.code`, and (D4:
 * the two are the same integers) an HTTP response status. Unknown 4xx become
 * `INVALID_REQUEST`, unknown 5xx `UNAVAILABLE` when 502–504 else `INTERNAL`.
 */
export function plexusCodeFromEmergence(status: number): PlexusErrorCode {
  switch (status) {
    case 400:
      return 'INVALID_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 402:
      return 'BUDGET_EXCEEDED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 408:
      return 'TIMEOUT';
    case 409:
      return 'CONFLICT';
    case 410:
      return 'VERB_SUNSET';
    case 412:
      return 'PRECONDITION_FAILED';
    case 413:
      return 'INPUT_TOO_LARGE';
    case 422:
      return 'INVALID_SEMANTIC';
    case 429:
      return 'RATE_LIMITED';
    case 501:
      return 'UNKNOWN_VERB';
    case 502:
      return 'PEER_UNAVAILABLE';
    case 503:
    case 504:
      return 'UNAVAILABLE';
    case 507:
      return 'OUT_OF_MEMORY';
    case 508:
      return 'LOOP_DETECTED';
    default:
      return status >= 400 && status < 500 ? 'INVALID_REQUEST' : 'INTERNAL';
  }
}
