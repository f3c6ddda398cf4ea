import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/errors.js';
import { EMERGENCE_ERRORS, plexusCodeFromEmergence } from '../../../src/wire/emergence/error-table.js';

/** The Emergence column of the one core table before the faces took it (issue 12). */
const GOLDEN = {
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
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SIGNATURE_INVALID: 401,
  SIGNATURE_DOMAIN_MISMATCH: 401,
  SIGNATURE_EXPIRED: 401,
  SIGNATURE_REPLAYED: 401,
  SIGNER_MISMATCH: 401,
  MALFORMED_ENVELOPE: 400,
  BUDGET_EXCEEDED: 402,
  RATE_LIMITED: 429,
  SAFETY_VIOLATION: 422,
  LOOP_DETECTED: 508,
  PEER_UNAVAILABLE: 502,
  REPLICATION_FAILED: 503,
  TRAJECTORY_REJECTED: 422,
  TIMEOUT: 408,
  CANCELLED: 409,
  UNAVAILABLE: 503,
  OUT_OF_MEMORY: 507,
  VERB_SUNSET: 410,
  INTERNAL: 500,
};

describe('the Emergence error table', () => {
  it('maps every Plexus error code, and nothing else', () => {
    expect(Object.keys(EMERGENCE_ERRORS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('keeps the ERROR.data.code the core table gave each code', () => {
    expect(EMERGENCE_ERRORS).toEqual(GOLDEN);
  });

  it('answers an unknown Emergence verb with 501 and reads it back', () => {
    expect(EMERGENCE_ERRORS.UNKNOWN_VERB).toBe(501);
    expect(plexusCodeFromEmergence(501)).toBe('UNKNOWN_VERB');
  });

  it('reads back every code it sends that no other code shares', () => {
    const counts = new Map<number, number>();
    for (const code of ERROR_CODES)
      counts.set(EMERGENCE_ERRORS[code], (counts.get(EMERGENCE_ERRORS[code]) ?? 0) + 1);
    for (const code of ERROR_CODES) {
      if (counts.get(EMERGENCE_ERRORS[code]) === 1)
        expect(plexusCodeFromEmergence(EMERGENCE_ERRORS[code])).toBe(code);
    }
  });
});
