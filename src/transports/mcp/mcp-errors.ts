/**
 * The MCP face's error table (issue 13): each Plexus error code's JSON-RPC error code for
 * protocol-level errors (a request the face or the SDK refuses). A tool that fails is not a
 * protocol error: it is a `tools/call` result with `isError: true` (see `tool-call.ts`).
 */
import type { PlexusErrorCode } from '../../core/errors.js';

/** Every Plexus error code's JSON-RPC number on the MCP face; a code missing here does not compile. */
export const MCP_ERRORS = {
  // Malformed input
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  INVALID_SEMANTIC: -32602,
  INPUT_TOO_LARGE: -32600,
  VERSION_MISMATCH: -32600,
  UNKNOWN_VERB: -32601,
  NOT_FOUND: -32602,
  SESSION_NOT_FOUND: -32602,
  CONFLICT: -32603,
  PRECONDITION_FAILED: -32603,
  // Authentication and signatures
  UNAUTHORIZED: -32603,
  FORBIDDEN: -32603,
  SIGNATURE_INVALID: -32603,
  SIGNATURE_DOMAIN_MISMATCH: -32603,
  SIGNATURE_EXPIRED: -32603,
  SIGNATURE_REPLAYED: -32603,
  SIGNER_MISMATCH: -32603,
  MALFORMED_ENVELOPE: -32600,
  // Resources and policy (Hyperspace −32002…−32008)
  BUDGET_EXCEEDED: -32603,
  RATE_LIMITED: -32603,
  SAFETY_VIOLATION: -32603,
  LOOP_DETECTED: -32603,
  PEER_UNAVAILABLE: -32603,
  REPLICATION_FAILED: -32603,
  TRAJECTORY_REJECTED: -32603,
  // Runtime
  TIMEOUT: -32603,
  CANCELLED: -32603,
  UNAVAILABLE: -32603,
  OUT_OF_MEMORY: -32603,
  // Versioning (seed 002 §10.3): the era is past its sunset and no longer served
  VERB_SUNSET: -32601,
  INTERNAL: -32603,
} as const satisfies Record<PlexusErrorCode, number>;

/** The JSON-RPC code of `code` on the MCP face. */
export function mcpErrorCode(code: PlexusErrorCode): number {
  return MCP_ERRORS[code];
}
