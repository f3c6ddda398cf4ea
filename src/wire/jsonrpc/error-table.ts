/**
 * How each Plexus error code reads on the JSON-RPC faces (DESIGN D10): the JSON-RPC 2.0 code
 * of a plain JSON-RPC face (standard range only) and the code of the Hyperspace face, which
 * uses −32001…−32008 where the seed defines one (seed 003 §8); and back.
 */
import type { PlexusErrorCode } from '../../core/errors.js';

/** One row of {@link JSONRPC_ERRORS}: a Plexus code's number on each JSON-RPC face. */
export interface JsonRpcErrorRow {
  /** JSON-RPC 2.0 code on a plain JSON-RPC face (standard range only). */
  readonly jsonrpc: number;
  /** JSON-RPC code on the Hyperspace face (−32001…−32008 where the seed defines one). */
  readonly hyperspace: number;
}

/** Every Plexus error code's JSON-RPC and Hyperspace numbers; a code missing here does not compile. */
export const JSONRPC_ERRORS = {
  // Malformed input
  PARSE_ERROR: { jsonrpc: -32700, hyperspace: -32700 },
  INVALID_REQUEST: { jsonrpc: -32600, hyperspace: -32600 },
  INVALID_PARAMS: { jsonrpc: -32602, hyperspace: -32602 },
  INVALID_SEMANTIC: { jsonrpc: -32602, hyperspace: -32602 },
  INPUT_TOO_LARGE: { jsonrpc: -32600, hyperspace: -32600 },
  VERSION_MISMATCH: { jsonrpc: -32600, hyperspace: -32600 },
  UNKNOWN_VERB: { jsonrpc: -32601, hyperspace: -32601 },
  NOT_FOUND: { jsonrpc: -32602, hyperspace: -32602 },
  SESSION_NOT_FOUND: { jsonrpc: -32602, hyperspace: -32001 },
  CONFLICT: { jsonrpc: -32603, hyperspace: -32603 },
  PRECONDITION_FAILED: { jsonrpc: -32603, hyperspace: -32603 },
  // Authentication and signatures
  UNAUTHORIZED: { jsonrpc: -32603, hyperspace: -32603 },
  FORBIDDEN: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_INVALID: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_DOMAIN_MISMATCH: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_EXPIRED: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_REPLAYED: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNER_MISMATCH: { jsonrpc: -32603, hyperspace: -32603 },
  MALFORMED_ENVELOPE: { jsonrpc: -32600, hyperspace: -32600 },
  // Resources and policy (Hyperspace −32002…−32008)
  BUDGET_EXCEEDED: { jsonrpc: -32603, hyperspace: -32002 },
  RATE_LIMITED: { jsonrpc: -32603, hyperspace: -32003 },
  SAFETY_VIOLATION: { jsonrpc: -32603, hyperspace: -32004 },
  LOOP_DETECTED: { jsonrpc: -32603, hyperspace: -32005 },
  PEER_UNAVAILABLE: { jsonrpc: -32603, hyperspace: -32006 },
  REPLICATION_FAILED: { jsonrpc: -32603, hyperspace: -32007 },
  TRAJECTORY_REJECTED: { jsonrpc: -32603, hyperspace: -32008 },
  // Runtime
  TIMEOUT: { jsonrpc: -32603, hyperspace: -32603 },
  CANCELLED: { jsonrpc: -32603, hyperspace: -32603 },
  UNAVAILABLE: { jsonrpc: -32603, hyperspace: -32603 },
  OUT_OF_MEMORY: { jsonrpc: -32603, hyperspace: -32603 },
  // Versioning (seed 002 §10.3): the era is past its sunset and no longer served
  VERB_SUNSET: { jsonrpc: -32601, hyperspace: -32601 },
  INTERNAL: { jsonrpc: -32603, hyperspace: -32603 },
} as const satisfies Record<PlexusErrorCode, JsonRpcErrorRow>;

/** The standard message of each JSON-RPC 2.0 error code (spec §5.1). */
export const JSONRPC_STANDARD_MESSAGES: Readonly<Record<number, string>> = {
  [-32700]: 'Parse error',
  [-32600]: 'Invalid Request',
  [-32601]: 'Method not found',
  [-32602]: 'Invalid params',
  [-32603]: 'Internal error',
};

/** The Hyperspace application error names (seed 003 §8). */
export const HYPERSPACE_ERROR_NAMES: Readonly<Record<number, string>> = {
  [-32001]: 'Session Not Found',
  [-32002]: 'Budget Exceeded',
  [-32003]: 'Rate Limited',
  [-32004]: 'Safety Violation',
  [-32005]: 'Loop Detected',
  [-32006]: 'Peer Unavailable',
  [-32007]: 'Replication Failed',
  [-32008]: 'Trajectory Rejected',
};

/**
 * The Plexus code an incoming JSON-RPC error code is read as (standard codes and the
 * Hyperspace range); anything else becomes `INTERNAL`.
 */
export function plexusCodeFromJsonRpc(code: number): PlexusErrorCode {
  switch (code) {
    case -32700:
      return 'PARSE_ERROR';
    case -32600:
      return 'INVALID_REQUEST';
    case -32601:
      return 'UNKNOWN_VERB';
    case -32602:
      return 'INVALID_PARAMS';
    case -32001:
      return 'SESSION_NOT_FOUND';
    case -32002:
      return 'BUDGET_EXCEEDED';
    case -32003:
      return 'RATE_LIMITED';
    case -32004:
      return 'SAFETY_VIOLATION';
    case -32005:
      return 'LOOP_DETECTED';
    case -32006:
      return 'PEER_UNAVAILABLE';
    case -32007:
      return 'REPLICATION_FAILED';
    case -32008:
      return 'TRAJECTORY_REJECTED';
    default:
      return 'INTERNAL';
  }
}
