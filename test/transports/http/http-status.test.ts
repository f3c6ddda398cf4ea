import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/errors.js';
import { HTTP_STATUS, plexusCodeFromHttp } from '../../../src/transports/http/http-status.js';

/** The HTTP column of the one core table before the faces took it (issue 12). */
const GOLDEN = {
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

describe('the HTTP status table', () => {
  it('maps every Plexus error code, and nothing else', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('keeps the status the core table gave each code', () => {
    expect(HTTP_STATUS).toEqual(GOLDEN);
  });

  it('answers every code with a 4xx or 5xx', () => {
    for (const code of ERROR_CODES) {
      expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS[code]).toBeLessThan(600);
    }
  });

  it('maps HTTP statuses back', () => {
    expect(plexusCodeFromHttp(501)).toBe('UNKNOWN_VERB');
    expect(plexusCodeFromHttp(429)).toBe('RATE_LIMITED');
    expect(plexusCodeFromHttp(418)).toBe('INVALID_REQUEST');
    expect(plexusCodeFromHttp(599)).toBe('INTERNAL');
    for (const status of [400, 401, 402, 403, 404, 408, 409, 412, 413, 429, 502, 507, 508]) {
      expect(HTTP_STATUS[plexusCodeFromHttp(status)]).toBe(status);
    }
  });
});
