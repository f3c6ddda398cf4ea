import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { ERROR_HINT_DEFAULTS } from '../../../src/core/error-recovery.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonObject } from '../../../src/core/json.js';
import {
  faceErrorResponse,
  hyperspaceErrorData,
  isFacePath,
  jsonRpcIdOf,
  resultOf,
  selectProtocol,
  splitParams,
  upgradeCredential,
  upgradeUrl,
  WS_CONTROL_PARAMS,
} from '../../../src/transports/ws-jsonrpc/index.js';

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  return { url, headers } as unknown as IncomingMessage;
}

describe('splitParams', () => {
  it('passes absent, array and control-free params through', () => {
    expect(splitParams(undefined)).toEqual({ data: null, controls: {} });
    expect(splitParams([1, { _x_stream: true }])).toEqual({ data: [1, { _x_stream: true }], controls: {} });
    const params = { a: 1, _x_custom: 2 };
    expect(splitParams(params).data).toBe(params);
  });

  it('takes the control members out and reads them', () => {
    expect(splitParams({ a: 1, _x_stream: true, _x_timeout_ms: 500, _x_idempotency_key: 'k' })).toEqual({
      data: { a: 1 },
      controls: { stream: true, timeoutMs: 500, idempotencyKey: 'k' },
    });
  });

  it('keeps a "__proto__" member as a member', () => {
    const params = JSON.parse('{"__proto__": {"polluted": true}, "_x_stream": false}') as JsonObject;
    const { data } = splitParams(params);
    expect(Object.keys(data as JsonObject)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it.each([
    [{ _x_stream: 1 }, '/params/_x_stream'],
    [{ _x_timeout_ms: 1.5 }, '/params/_x_timeout_ms'],
    [{ _x_timeout_ms: -1 }, '/params/_x_timeout_ms'],
    [{ _x_timeout_ms: null }, '/params/_x_timeout_ms'],
    [{ _x_idempotency_key: 'k'.repeat(257) }, '/params/_x_idempotency_key'],
    [{ _x_idempotency_key: 7 }, '/params/_x_idempotency_key'],
  ])('refuses %j with INVALID_PARAMS at %s', (params, pointer) => {
    try {
      splitParams(params);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PlexusError);
      expect((error as PlexusError).code).toBe('INVALID_PARAMS');
      expect((error as PlexusError).details).toEqual({ pointer });
    }
  });

  it('leaves every other member untouched (property)', () => {
    const controls = new Set<string>(Object.values(WS_CONTROL_PARAMS));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (raw) => {
        const params = JSON.parse(JSON.stringify(raw)) as JsonObject;
        const expected = Object.fromEntries(Object.entries(params).filter(([k]) => !controls.has(k)));
        let data;
        try {
          data = splitParams(params).data;
        } catch {
          return; // a random control member of the wrong type
        }
        expect(data).toEqual(expected);
      }),
    );
  });
});

describe('jsonRpcIdOf and resultOf', () => {
  const base: Envelope = { id: '7', kind: 'request', from: '', to: '', verb: 'a.b', data: null };

  it('reads the original id', () => {
    expect(jsonRpcIdOf(base)).toBe('7');
    expect(jsonRpcIdOf({ ...base, extensions: { _x_jsonrpc_id: 7 } })).toBe(7);
    expect(jsonRpcIdOf({ ...base, id: 'null', extensions: { _x_jsonrpc_id: null } })).toBeNull();
  });

  it('returns a response’s data and throws an error answer’s PlexusError', () => {
    expect(resultOf({ ...base, kind: 'response', data: { ok: true } })).toEqual({ ok: true });
    const data = { code: 'RATE_LIMITED', message: 'slow', retryable: true, details: { n: 1 } };
    expect(() => resultOf({ ...base, kind: 'error', data })).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED', message: 'slow', details: { n: 1 } }) as Error,
    );
    expect(() => resultOf({ ...base, kind: 'error', data: 'junk' })).toThrow(
      expect.objectContaining({ code: 'INTERNAL' }) as Error,
    );
  });
});

describe('hyperspaceErrorData and faceErrorResponse', () => {
  it('sends ErrorData, but nothing of a bug’s message', () => {
    expect(hyperspaceErrorData(new PlexusError('BUDGET_EXCEEDED', 'spent'))).toEqual({
      code: 'BUDGET_EXCEEDED',
      message: 'spent',
      retryable: false,
      category: 'quota_exceeded',
      suggested_action: ERROR_HINT_DEFAULTS.BUDGET_EXCEEDED.suggestedAction,
    });
    const bug = new PlexusError('INTERNAL', 'x is undefined at /srv/secret.js', {
      cause: new TypeError('x'),
    });
    expect(hyperspaceErrorData(bug)).toEqual({
      code: 'INTERNAL',
      message: 'internal error',
      retryable: false,
    });
  });

  it('builds a Hyperspace error response', () => {
    expect(faceErrorResponse('RATE_LIMITED', 'slow down', 3)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32003,
        message: 'slow down',
        data: {
          code: 'RATE_LIMITED',
          message: 'slow down',
          retryable: true,
          category: 'quota_exceeded',
          retry_after: 1,
          suggested_action: ERROR_HINT_DEFAULTS.RATE_LIMITED.suggestedAction,
        },
      },
      id: 3,
    });
  });
});

describe('upgrade helpers', () => {
  it('answers on / and /rpc only, query strings allowed', () => {
    expect(isFacePath(upgradeUrl(request('/')))).toBe(true);
    expect(isFacePath(upgradeUrl(request('/rpc?token=x')))).toBe(true);
    expect(isFacePath(upgradeUrl(request('/rpc/')))).toBe(false);
    expect(isFacePath(upgradeUrl(request('/mcp')))).toBe(false);
    expect(upgradeUrl(request('http://[bad')).pathname).toBe('/');
  });

  it('finds the credential: header, then subprotocol, then query', () => {
    const url = (u: string) => upgradeUrl(request(u));
    expect(upgradeCredential(request('/'), url('/'))).toEqual({ authorization: undefined, source: 'none' });
    expect(upgradeCredential(request('/', { authorization: 'Bearer h' }), url('/?token=q'))).toEqual({
      authorization: 'Bearer h',
      source: 'header',
    });
    expect(
      upgradeCredential(
        request('/', { 'sec-websocket-protocol': 'jsonrpc, plexus.bearer.p' }),
        url('/?token=q'),
      ),
    ).toEqual({ authorization: 'Bearer p', source: 'protocol' });
    expect(upgradeCredential(request('/'), url('/?access_token=a&token=t'))).toEqual({
      authorization: 'Bearer a',
      source: 'query',
    });
    expect(upgradeCredential(request('/'), url('/?token=t'))).toEqual({
      authorization: 'Bearer t',
      source: 'query',
    });
    expect(upgradeCredential(request('/', { authorization: '  ' }), url('/?token='))).toEqual({
      authorization: undefined,
      source: 'none',
    });
  });

  it('selects jsonrpc when offered and never a credential protocol', () => {
    expect(selectProtocol(new Set(['plexus.bearer.t', 'jsonrpc']))).toBe('jsonrpc');
    expect(selectProtocol(new Set(['plexus.bearer.t']))).toBe(false);
    expect(selectProtocol(new Set())).toBe(false);
  });
});
