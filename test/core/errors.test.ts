import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_TABLE,
  PlexusError,
  isPlexusErrorCode,
  toPlexusError,
} from '../../src/core/errors.js';
import { JSONRPC_ERRORS } from '../../src/wire/jsonrpc/error-table.js';

describe('PlexusError', () => {
  it('carries its code, message, default retryable and cause', () => {
    const cause = new Error('socket closed');
    const e = new PlexusError('PEER_UNAVAILABLE', 'peer 12D3KooW… did not answer', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('PEER_UNAVAILABLE');
    expect(e.retryable).toBe(true);
    expect(e.cause).toBe(cause);
    expect(JSONRPC_ERRORS[e.code].hyperspace).toBe(-32006);
  });

  it('lets retryable be overridden', () => {
    expect(new PlexusError('INTERNAL', 'x', { retryable: true }).retryable).toBe(true);
  });

  it('round-trips through its wire-safe form without the cause', () => {
    const e = new PlexusError('INVALID_PARAMS', 'inputs must not be empty', {
      details: { pointer: '/inputs' },
    });
    const data = e.toData();
    expect(data).toEqual({
      code: 'INVALID_PARAMS',
      message: 'inputs must not be empty',
      retryable: false,
      details: { pointer: '/inputs' },
    });
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
    const back = PlexusError.fromData(data);
    expect(back.code).toBe('INVALID_PARAMS');
    expect(back.details).toEqual({ pointer: '/inputs' });
  });

  it('reads an unknown wire code as INTERNAL', () => {
    expect(PlexusError.fromData({ code: 'NOPE' as never, message: 'm', retryable: false }).code).toBe(
      'INTERNAL',
    );
  });

  it('wraps anything thrown, keeping the cause', () => {
    const original = new TypeError('boom');
    const wrapped = toPlexusError(original);
    expect(wrapped.code).toBe('INTERNAL');
    expect(wrapped.cause).toBe(original);
    const same = new PlexusError('TIMEOUT', 't');
    expect(toPlexusError(same)).toBe(same);
    expect(toPlexusError('a string').message).toBe('a string');
  });
});

describe('the face-independent error table', () => {
  it('has a complete row for every code', () => {
    for (const code of ERROR_CODES) {
      const row = ERROR_TABLE[code];
      expect(isPlexusErrorCode(code)).toBe(true);
      expect(row.summary.length).toBeGreaterThan(10);
    }
    expect(isPlexusErrorCode('NOT_A_CODE')).toBe(false);
    expect(isPlexusErrorCode('toString')).toBe(false);
  });

  it('keeps the retryable defaults and categories the one table had before the faces took their columns', () => {
    const golden = {
      PARSE_ERROR: { retryable: false, category: 'invalid_input' },
      INVALID_REQUEST: { retryable: false, category: 'invalid_input' },
      INVALID_PARAMS: { retryable: false, category: 'invalid_input' },
      INVALID_SEMANTIC: { retryable: false, category: 'invalid_input' },
      INPUT_TOO_LARGE: { retryable: false, category: 'invalid_input' },
      VERSION_MISMATCH: { retryable: false, category: 'invalid_input' },
      UNKNOWN_VERB: { retryable: false, category: 'not_found' },
      NOT_FOUND: { retryable: false, category: 'not_found' },
      SESSION_NOT_FOUND: { retryable: false, category: 'not_found' },
      CONFLICT: { retryable: false, category: 'conflict' },
      PRECONDITION_FAILED: { retryable: false, category: 'precondition' },
      UNAUTHORIZED: { retryable: false, category: 'unauthorized' },
      FORBIDDEN: { retryable: false, category: 'forbidden' },
      SIGNATURE_INVALID: { retryable: false, category: 'unauthorized' },
      SIGNATURE_DOMAIN_MISMATCH: { retryable: false, category: 'unauthorized' },
      SIGNATURE_EXPIRED: { retryable: false, category: 'unauthorized' },
      SIGNATURE_REPLAYED: { retryable: false, category: 'unauthorized' },
      SIGNER_MISMATCH: { retryable: false, category: 'unauthorized' },
      MALFORMED_ENVELOPE: { retryable: false, category: 'invalid_input' },
      BUDGET_EXCEEDED: { retryable: false, category: 'quota_exceeded' },
      RATE_LIMITED: { retryable: true, category: 'quota_exceeded' },
      SAFETY_VIOLATION: { retryable: false, category: 'precondition' },
      LOOP_DETECTED: { retryable: false, category: 'precondition' },
      PEER_UNAVAILABLE: { retryable: true, category: 'unavailable' },
      REPLICATION_FAILED: { retryable: true, category: 'unavailable' },
      TRAJECTORY_REJECTED: { retryable: false, category: 'invalid_input' },
      TIMEOUT: { retryable: true, category: 'timeout' },
      CANCELLED: { retryable: false, category: 'conflict' },
      UNAVAILABLE: { retryable: true, category: 'unavailable' },
      OUT_OF_MEMORY: { retryable: true, category: 'unavailable' },
      VERB_SUNSET: { retryable: false, category: 'not_found' },
      INTERNAL: { retryable: false, category: 'internal' },
    };
    expect(Object.keys(ERROR_TABLE)).toEqual(Object.keys(golden));
    for (const code of ERROR_CODES) {
      const { retryable, category } = ERROR_TABLE[code];
      expect({ code, retryable, category }).toEqual({ code, ...golden[code] });
    }
  });

  it('marks only the transient failures retryable', () => {
    const retryable = ERROR_CODES.filter((c) => ERROR_TABLE[c].retryable).sort();
    expect(retryable).toEqual([
      'OUT_OF_MEMORY',
      'PEER_UNAVAILABLE',
      'RATE_LIMITED',
      'REPLICATION_FAILED',
      'TIMEOUT',
      'UNAVAILABLE',
    ]);
  });
});
