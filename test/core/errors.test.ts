import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_TABLE,
  ESRP_ERROR_TABLE,
  ESRP_TO_PLEXUS,
  HYPERSPACE_ERROR_NAMES,
  JSONRPC_STANDARD_MESSAGES,
  PlexusError,
  isPlexusErrorCode,
  plexusCodeFromHttp,
  plexusCodeFromJsonRpc,
  toPlexusError,
} from '../../src/core/errors.js';

describe('PlexusError', () => {
  it('carries its code, message, default retryable and cause', () => {
    const cause = new Error('socket closed');
    const e = new PlexusError('PEER_UNAVAILABLE', 'peer 12D3KooW… did not answer', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('PEER_UNAVAILABLE');
    expect(e.retryable).toBe(true);
    expect(e.cause).toBe(cause);
    expect(e.translation.hyperspace).toBe(-32006);
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

describe('error mapping tables', () => {
  it('has a complete row for every code', () => {
    for (const code of ERROR_CODES) {
      const row = ERROR_TABLE[code];
      expect(isPlexusErrorCode(code)).toBe(true);
      expect(row.http).toBeGreaterThanOrEqual(400);
      expect(row.http).toBeLessThan(600);
      expect(row.jsonrpc).toBeLessThanOrEqual(-32600);
      expect(row.jsonrpc).toBeGreaterThanOrEqual(-32700);
      expect(JSONRPC_STANDARD_MESSAGES[row.jsonrpc]).toBeDefined();
      expect(row.hyperspace === row.jsonrpc || HYPERSPACE_ERROR_NAMES[row.hyperspace] !== undefined).toBe(
        true,
      );
      expect(ESRP_ERROR_TABLE[row.esrp]).toBeDefined();
      expect(Number.isInteger(row.emergence)).toBe(true);
      expect(row.summary.length).toBeGreaterThan(10);
    }
    expect(isPlexusErrorCode('NOT_A_CODE')).toBe(false);
    expect(isPlexusErrorCode('toString')).toBe(false);
  });

  it('maps each Hyperspace code −32001…−32008 to a distinct Plexus code and back', () => {
    for (let code = -32001; code >= -32008; code--) {
      const plexus = plexusCodeFromJsonRpc(code);
      expect(ERROR_TABLE[plexus].hyperspace).toBe(code);
    }
  });

  it('maps the JSON-RPC standard codes both ways', () => {
    expect(ERROR_TABLE[plexusCodeFromJsonRpc(-32700)].jsonrpc).toBe(-32700);
    expect(ERROR_TABLE[plexusCodeFromJsonRpc(-32600)].jsonrpc).toBe(-32600);
    expect(ERROR_TABLE[plexusCodeFromJsonRpc(-32601)].jsonrpc).toBe(-32601);
    expect(ERROR_TABLE[plexusCodeFromJsonRpc(-32602)].jsonrpc).toBe(-32602);
    expect(plexusCodeFromJsonRpc(-32603)).toBe('INTERNAL');
    expect(plexusCodeFromJsonRpc(12345)).toBe('INTERNAL');
  });

  it('maps every ESRP code to a Plexus code that maps back to it, with the ESRP retryable flag', () => {
    for (const [esrp, plexus] of Object.entries(ESRP_TO_PLEXUS)) {
      expect(ERROR_TABLE[plexus].esrp).toBe(esrp);
      expect(ERROR_TABLE[plexus].retryable).toBe(
        ESRP_ERROR_TABLE[esrp as keyof typeof ESRP_ERROR_TABLE].retryable,
      );
    }
    expect(Object.keys(ESRP_ERROR_TABLE)).toHaveLength(8); // D5's seven and CANCELLED (issue 11, item 14)
  });

  it('answers an unknown Emergence verb with 501 and maps HTTP statuses back', () => {
    expect(ERROR_TABLE.UNKNOWN_VERB.emergence).toBe(501);
    expect(plexusCodeFromHttp(501)).toBe('UNKNOWN_VERB');
    expect(plexusCodeFromHttp(429)).toBe('RATE_LIMITED');
    expect(plexusCodeFromHttp(418)).toBe('INVALID_REQUEST');
    expect(plexusCodeFromHttp(599)).toBe('INTERNAL');
    for (const status of [400, 401, 402, 403, 404, 408, 409, 412, 413, 429, 502, 507, 508]) {
      expect(ERROR_TABLE[plexusCodeFromHttp(status)].http).toBe(status);
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
