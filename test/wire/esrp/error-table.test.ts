import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_TABLE } from '../../../src/core/errors.js';
import { ESRP_ERROR_TABLE } from '../../../src/core/esrp/error-table.js';
import { ESRP_ERRORS, ESRP_TO_PLEXUS } from '../../../src/wire/esrp/error-table.js';

/** The ESRP column of the one core table before the faces took it (issue 12). */
const GOLDEN = {
  PARSE_ERROR: 'INVALID_INPUT_SCHEMA',
  INVALID_REQUEST: 'INVALID_INPUT_SCHEMA',
  INVALID_PARAMS: 'INVALID_INPUT_SCHEMA',
  INVALID_SEMANTIC: 'INVALID_INPUT_SEMANTIC',
  INPUT_TOO_LARGE: 'INVALID_INPUT_SIZE',
  VERSION_MISMATCH: 'INVALID_INPUT_SCHEMA',
  UNKNOWN_VERB: 'INVALID_INPUT_SEMANTIC',
  NOT_FOUND: 'INVALID_INPUT_SEMANTIC',
  SESSION_NOT_FOUND: 'INVALID_INPUT_SEMANTIC',
  CONFLICT: 'INVALID_INPUT_SEMANTIC',
  PRECONDITION_FAILED: 'INVALID_INPUT_SEMANTIC',
  UNAUTHORIZED: 'INVALID_INPUT_SEMANTIC',
  FORBIDDEN: 'INVALID_INPUT_SEMANTIC',
  SIGNATURE_INVALID: 'INVALID_INPUT_SEMANTIC',
  SIGNATURE_DOMAIN_MISMATCH: 'INVALID_INPUT_SEMANTIC',
  SIGNATURE_EXPIRED: 'INVALID_INPUT_SEMANTIC',
  SIGNATURE_REPLAYED: 'INVALID_INPUT_SEMANTIC',
  SIGNER_MISMATCH: 'INVALID_INPUT_SEMANTIC',
  MALFORMED_ENVELOPE: 'INVALID_INPUT_SCHEMA',
  BUDGET_EXCEEDED: 'INVALID_INPUT_SEMANTIC',
  RATE_LIMITED: 'BACKEND_UNAVAILABLE',
  SAFETY_VIOLATION: 'INVALID_INPUT_SEMANTIC',
  LOOP_DETECTED: 'INVALID_INPUT_SEMANTIC',
  PEER_UNAVAILABLE: 'BACKEND_UNAVAILABLE',
  REPLICATION_FAILED: 'BACKEND_UNAVAILABLE',
  TRAJECTORY_REJECTED: 'INVALID_INPUT_SEMANTIC',
  TIMEOUT: 'TIMEOUT',
  CANCELLED: 'CANCELLED',
  UNAVAILABLE: 'BACKEND_UNAVAILABLE',
  OUT_OF_MEMORY: 'OOM',
  VERB_SUNSET: 'INVALID_INPUT_SEMANTIC',
  INTERNAL: 'UNKNOWN',
};

describe('the ESRP error table', () => {
  it('maps every Plexus error code, and nothing else', () => {
    expect(Object.keys(ESRP_ERRORS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('keeps the ESRP code the core table gave each code', () => {
    expect(ESRP_ERRORS).toEqual(GOLDEN);
  });

  it('sends every code as an ESRP code of the ESRP spec table', () => {
    for (const code of ERROR_CODES) expect(ESRP_ERROR_TABLE[ESRP_ERRORS[code]]).toBeDefined();
  });

  it('maps every ESRP code to a Plexus code that maps back to it, with the ESRP retryable flag', () => {
    for (const [esrp, plexus] of Object.entries(ESRP_TO_PLEXUS)) {
      expect(ESRP_ERRORS[plexus]).toBe(esrp);
      expect(ERROR_TABLE[plexus].retryable).toBe(
        ESRP_ERROR_TABLE[esrp as keyof typeof ESRP_ERROR_TABLE].retryable,
      );
    }
    expect(Object.keys(ESRP_ERROR_TABLE)).toHaveLength(8); // D5's seven and CANCELLED (issue 11, item 14)
  });
});
