/**
 * Recovery hints (seed 002 §8.2): defaults per code, hints set where the error was raised,
 * context from the request, and the wire-safe round trip.
 */
import { describe, expect, it } from 'vitest';
import {
  ERROR_HINT_DEFAULTS,
  errorHintsOf,
  recoveryFields,
  traceIdOfTraceparent,
} from '../../src/core/error-recovery.js';
import { ERROR_CODES, ERROR_TABLE, PlexusError } from '../../src/core/errors.js';
import { ERROR_DATA_SCHEMA } from '../../src/core/records/schema-parts.js';
import { schemaValidator } from '../../src/core/schema-validator.js';
import { HTTP_STATUS, plexusCodeFromHttp } from '../../src/transports/http/http-status.js';

describe('error hint defaults', () => {
  it('gives every code a suggested action, and a retry delay exactly to the retryable ones', () => {
    for (const code of ERROR_CODES) {
      const defaults = ERROR_HINT_DEFAULTS[code];
      expect(defaults.suggestedAction.length).toBeGreaterThan(10);
      expect(defaults.retryAfter !== undefined).toBe(ERROR_TABLE[code].retryable);
    }
  });

  it('maps VERB_SUNSET to HTTP 410 and back, category not_found', () => {
    expect(HTTP_STATUS.VERB_SUNSET).toBe(410);
    expect(plexusCodeFromHttp(410)).toBe('VERB_SUNSET');
    expect(ERROR_TABLE.VERB_SUNSET.category).toBe('not_found');
  });
});

describe('recoveryFields', () => {
  it('fills category, retry_after and suggested_action from the code', () => {
    const error = new PlexusError('UNAVAILABLE', 'down for a moment');
    expect(recoveryFields(error.toData(), { verb: 'a.b' })).toEqual({
      category: 'unavailable',
      retry_after: 1,
      suggested_action: ERROR_HINT_DEFAULTS.UNAVAILABLE.suggestedAction,
      verb: 'a.b',
    });
  });

  it('lets the error’s own hints win, and gives no retry_after when the error is not retryable', () => {
    const error = new PlexusError('RATE_LIMITED', 'slow down', {
      hints: { retryAfter: 30, fallbackVerb: 'a.cached@1', suggestedAction: 'Wait.', verb: 'a.live' },
    });
    expect(recoveryFields(error.toData(), { verb: 'ignored' })).toEqual({
      category: 'quota_exceeded',
      retry_after: 30,
      fallback_verb: 'a.cached@1',
      suggested_action: 'Wait.',
      verb: 'a.live',
    });
    const notRetryable = new PlexusError('RATE_LIMITED', 'no', { retryable: false });
    expect(recoveryFields(notRetryable.toData()).retry_after).toBeUndefined();
  });

  it('takes the trace id from a valid traceparent only', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(traceIdOfTraceparent(tp)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceIdOfTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeUndefined();
    expect(traceIdOfTraceparent('garbage')).toBeUndefined();
    expect(recoveryFields(new PlexusError('INTERNAL', 'x').toData(), { traceparent: tp }).trace_id).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
  });
});

describe('hints on the wire-safe form', () => {
  it('round-trips through toData / fromData and passes the ErrorData schema', () => {
    const error = new PlexusError('VERB_SUNSET', 'gone', {
      hints: { fallbackVerb: 'a.b@2', verb: 'a.b', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
    });
    const data = error.toData();
    expect(PlexusError.fromData(data).hints).toEqual(error.hints);
    expect(schemaValidator().validate(ERROR_DATA_SCHEMA, data)).toEqual([]);
    expect(schemaValidator().validate(ERROR_DATA_SCHEMA, { ...data, hints: { retryAfter: -1 } })).not.toEqual(
      [],
    );
    expect(new PlexusError('INTERNAL', 'x').toData()).toEqual({
      code: 'INTERNAL',
      message: 'x',
      retryable: false,
    });
  });

  it('reads only well-typed hints from untrusted JSON', () => {
    expect(
      errorHintsOf({ retryAfter: 2.5, fallbackVerb: '', verb: 'a.b', traceId: 'nope', extra: 1 }),
    ).toEqual({
      verb: 'a.b',
    });
    expect(errorHintsOf('hints')).toBeUndefined();
    expect(errorHintsOf({})).toBeUndefined();
  });
});
