import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/errors.js';
import {
  HYPERSPACE_ERROR_NAMES,
  JSONRPC_ERRORS,
  JSONRPC_STANDARD_MESSAGES,
  plexusCodeFromJsonRpc,
} from '../../../src/wire/jsonrpc/error-table.js';

/** The JSON-RPC and Hyperspace columns of the one core table before the faces took them (issue 12). */
const GOLDEN = {
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
  UNAUTHORIZED: { jsonrpc: -32603, hyperspace: -32603 },
  FORBIDDEN: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_INVALID: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_DOMAIN_MISMATCH: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_EXPIRED: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNATURE_REPLAYED: { jsonrpc: -32603, hyperspace: -32603 },
  SIGNER_MISMATCH: { jsonrpc: -32603, hyperspace: -32603 },
  MALFORMED_ENVELOPE: { jsonrpc: -32600, hyperspace: -32600 },
  BUDGET_EXCEEDED: { jsonrpc: -32603, hyperspace: -32002 },
  RATE_LIMITED: { jsonrpc: -32603, hyperspace: -32003 },
  SAFETY_VIOLATION: { jsonrpc: -32603, hyperspace: -32004 },
  LOOP_DETECTED: { jsonrpc: -32603, hyperspace: -32005 },
  PEER_UNAVAILABLE: { jsonrpc: -32603, hyperspace: -32006 },
  REPLICATION_FAILED: { jsonrpc: -32603, hyperspace: -32007 },
  TRAJECTORY_REJECTED: { jsonrpc: -32603, hyperspace: -32008 },
  TIMEOUT: { jsonrpc: -32603, hyperspace: -32603 },
  CANCELLED: { jsonrpc: -32603, hyperspace: -32603 },
  UNAVAILABLE: { jsonrpc: -32603, hyperspace: -32603 },
  OUT_OF_MEMORY: { jsonrpc: -32603, hyperspace: -32603 },
  VERB_SUNSET: { jsonrpc: -32601, hyperspace: -32601 },
  INTERNAL: { jsonrpc: -32603, hyperspace: -32603 },
};

describe('the JSON-RPC error table', () => {
  it('maps every Plexus error code, and nothing else', () => {
    expect(Object.keys(JSONRPC_ERRORS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('keeps the numbers the core table gave each code', () => {
    expect(JSONRPC_ERRORS).toEqual(GOLDEN);
  });

  it("uses standard codes on JSON-RPC and the seed's range on Hyperspace", () => {
    for (const code of ERROR_CODES) {
      const row = JSONRPC_ERRORS[code];
      expect(row.jsonrpc).toBeLessThanOrEqual(-32600);
      expect(row.jsonrpc).toBeGreaterThanOrEqual(-32700);
      expect(JSONRPC_STANDARD_MESSAGES[row.jsonrpc]).toBeDefined();
      expect(row.hyperspace === row.jsonrpc || HYPERSPACE_ERROR_NAMES[row.hyperspace] !== undefined).toBe(
        true,
      );
    }
  });

  it('maps each Hyperspace code −32001…−32008 to a distinct Plexus code and back', () => {
    for (let code = -32001; code >= -32008; code--) {
      const plexus = plexusCodeFromJsonRpc(code);
      expect(JSONRPC_ERRORS[plexus].hyperspace).toBe(code);
    }
  });

  it('maps the JSON-RPC standard codes both ways', () => {
    expect(JSONRPC_ERRORS[plexusCodeFromJsonRpc(-32700)].jsonrpc).toBe(-32700);
    expect(JSONRPC_ERRORS[plexusCodeFromJsonRpc(-32600)].jsonrpc).toBe(-32600);
    expect(JSONRPC_ERRORS[plexusCodeFromJsonRpc(-32601)].jsonrpc).toBe(-32601);
    expect(JSONRPC_ERRORS[plexusCodeFromJsonRpc(-32602)].jsonrpc).toBe(-32602);
    expect(plexusCodeFromJsonRpc(-32603)).toBe('INTERNAL');
    expect(plexusCodeFromJsonRpc(12345)).toBe('INTERNAL');
  });
});
