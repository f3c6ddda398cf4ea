import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { Problem } from '../../../src/core/problem.js';
import {
  createJsonRpcCodec,
  decodeJsonRpc,
  decodeJsonRpcBatch,
  encodeJsonRpc,
  jsonRpcCodec,
  jsonRpcErrorToPlexus,
  toJsonRpcError,
} from '../../../src/wire/jsonrpc/index.js';

function thrown(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('did not throw');
}
const pointers = (e: PlexusError): string[] =>
  (e.details?.problems as unknown as Problem[]).map((p) => p.pointer).sort();

describe('jsonRpcCodec decode', () => {
  it('speaks the jsonrpc format', () => {
    expect(jsonRpcCodec.format).toBe('jsonrpc');
  });

  it('decodes a request with a string id', () => {
    expect(decodeJsonRpc({ jsonrpc: '2.0', method: 'sum', params: [1, 2], id: 'a' })).toEqual({
      id: 'a',
      kind: 'request',
      from: '',
      to: '',
      verb: 'sum',
      data: [1, 2],
    });
  });

  it('keeps a number or null id in _x_jsonrpc_id', () => {
    expect(decodeJsonRpc({ jsonrpc: '2.0', method: 'm', params: {}, id: 7 })).toMatchObject({
      id: '7',
      extensions: { _x_jsonrpc_id: 7 },
    });
    expect(decodeJsonRpc({ jsonrpc: '2.0', method: 'm', id: null })).toMatchObject({
      id: 'null',
      data: null,
      extensions: { _x_jsonrpc_id: null },
    });
  });

  it('tells the string id "7" from the number 7', () => {
    const s = decodeJsonRpc({ jsonrpc: '2.0', method: 'm', id: '7' });
    const n = decodeJsonRpc({ jsonrpc: '2.0', method: 'm', id: 7 });
    expect(s.id).toBe(n.id);
    expect(encodeJsonRpc(s)).toEqual({ jsonrpc: '2.0', method: 'm', id: '7' });
    expect(encodeJsonRpc(n)).toEqual({ jsonrpc: '2.0', method: 'm', id: 7 });
  });

  it('decodes a notification with an empty id and null data when params are absent', () => {
    expect(decodeJsonRpc({ jsonrpc: '2.0', method: 'foobar' })).toEqual({
      id: '',
      kind: 'notification',
      from: '',
      to: '',
      verb: 'foobar',
      data: null,
    });
  });

  it('decodes a result response', () => {
    expect(decodeJsonRpc({ jsonrpc: '2.0', result: ['hello', 5], id: '9' })).toEqual({
      id: '9',
      kind: 'response',
      from: '',
      to: '',
      verb: '',
      data: ['hello', 5],
    });
  });

  it('decodes an error response to ErrorData, keeping the number and an object data as details', () => {
    const env = decodeJsonRpc({
      jsonrpc: '2.0',
      error: { code: -32002, message: 'Budget exceeded', data: { remaining: 0.12 } },
      id: 12,
    });
    expect(env).toEqual({
      id: '12',
      kind: 'error',
      from: '',
      to: '',
      verb: '',
      data: {
        code: 'BUDGET_EXCEEDED',
        message: 'Budget exceeded',
        retryable: false,
        details: { remaining: 0.12 },
      },
      extensions: { _x_jsonrpc_id: 12, _x_jsonrpc_code: -32002 },
    });
    expect(PlexusError.fromData(env.data as never).code).toBe('BUDGET_EXCEEDED');
  });

  it('keeps a non-object error data in _x_jsonrpc_error_data', () => {
    const wire = { jsonrpc: '2.0', error: { code: -32050, message: 'custom', data: 'why' }, id: 'x' };
    const env = decodeJsonRpc(wire);
    expect(env.data).toEqual({ code: 'INTERNAL', message: 'custom', retryable: false });
    expect(env.extensions).toEqual({ _x_jsonrpc_code: -32050, _x_jsonrpc_error_data: 'why' });
    expect(encodeJsonRpc(env)).toEqual(wire);
  });

  it('decodes a batch in order', () => {
    const envs = decodeJsonRpcBatch([
      { jsonrpc: '2.0', method: 'a', id: 1 },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    expect(envs.map((e) => [e.kind, e.verb])).toEqual([
      ['request', 'a'],
      ['notification', 'b'],
    ]);
  });
});

describe('jsonRpcCodec encode', () => {
  const req: Envelope = { id: 'r1', kind: 'request', from: 'a', to: 'b', verb: 'sum', data: [1, 2] };

  it('ignores from and to, which JSON-RPC does not carry', () => {
    expect(encodeJsonRpc(req)).toEqual({ jsonrpc: '2.0', method: 'sum', params: [1, 2], id: 'r1' });
  });

  it('writes no params for null data and no id for a notification', () => {
    expect(encodeJsonRpc({ ...req, kind: 'notification', data: null })).toEqual({
      jsonrpc: '2.0',
      method: 'sum',
    });
  });

  it('refuses params that are neither array nor object', () => {
    expect(pointers(thrown(() => encodeJsonRpc({ ...req, data: 'x' })))).toEqual(['/data']);
  });

  it('refuses an id extension that disagrees with the id', () => {
    const err = thrown(() => encodeJsonRpc({ ...req, id: '8', extensions: { _x_jsonrpc_id: 7 } }));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(pointers(err)).toEqual(['/id']);
    expect(pointers(thrown(() => encodeJsonRpc({ ...req, extensions: { _x_jsonrpc_id: {} } })))).toEqual([
      '/extensions/_x_jsonrpc_id',
    ]);
    expect(
      pointers(
        thrown(() => encodeJsonRpc({ ...req, kind: 'notification', extensions: { _x_jsonrpc_id: 1 } })),
      ),
    ).toEqual(['/extensions/_x_jsonrpc_id']);
  });

  it('encodes an error born in Plexus with the standard message and details as data', () => {
    const env: Envelope = {
      id: 'r1',
      kind: 'error',
      from: '',
      to: '',
      verb: 'sum',
      data: { code: 'UNKNOWN_VERB', message: 'no sum here', retryable: false, details: { verb: 'sum' } },
    };
    expect(encodeJsonRpc(env)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found', data: { verb: 'sum' } },
      id: 'r1',
    });
  });

  it('uses Hyperspace codes and the error message outside the standard set on the Hyperspace face', () => {
    const env: Envelope = {
      id: 'r1',
      kind: 'error',
      from: '',
      to: '',
      verb: '',
      data: { code: 'BUDGET_EXCEEDED', message: 'Budget exceeded', retryable: false },
    };
    expect(createJsonRpcCodec({ codes: 'hyperspace' }).encode(env)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32002, message: 'Budget exceeded' },
      id: 'r1',
    });
    // −32603 means INTERNAL; another error sent as −32603 keeps its own message.
    expect(jsonRpcCodec.encode(env)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Budget exceeded' },
      id: 'r1',
    });
  });

  it('refuses an error without ErrorData, or with a code extension that disagrees', () => {
    const base: Envelope = {
      id: '1',
      kind: 'error',
      from: '',
      to: '',
      verb: '',
      data: { code: 429, msg: 'x' },
    };
    expect(pointers(thrown(() => encodeJsonRpc(base)))).toEqual(['/data']);
    const wrong: Envelope = {
      ...base,
      data: { code: 'TIMEOUT', message: 'x', retryable: true },
      extensions: { _x_jsonrpc_code: -32601 },
    };
    expect(pointers(thrown(() => encodeJsonRpc(wrong)))).toEqual(['/extensions/_x_jsonrpc_code']);
    const both: Envelope = {
      ...base,
      data: { code: 'INTERNAL', message: 'x', retryable: false, details: { a: 1 } },
      extensions: { _x_jsonrpc_error_data: 'b' },
    };
    expect(pointers(thrown(() => encodeJsonRpc(both)))).toEqual(['/extensions/_x_jsonrpc_error_data']);
  });

  it.each(['hello', 'task-accept', 'stream-end'] as const)('cannot encode kind %s', (kind) => {
    expect(pointers(thrown(() => encodeJsonRpc({ ...req, kind })))).toEqual(['/kind']);
  });

  it('rejects fields JSON-RPC cannot carry, or drops them when asked', () => {
    const env: Envelope = { ...req, correlationId: 'c', extensions: { _x_other: 1 } };
    expect(pointers(thrown(() => encodeJsonRpc(env)))).toEqual(['/correlationId', '/extensions/_x_other']);
    expect(createJsonRpcCodec({ unsupportedFields: 'drop' }).encode(env)).toEqual({
      jsonrpc: '2.0',
      method: 'sum',
      params: [1, 2],
      id: 'r1',
    });
  });
});

describe('JSON-RPC errors', () => {
  it('toJsonRpcError maps codes through ERROR_TABLE', () => {
    expect(toJsonRpcError(new PlexusError('INVALID_PARAMS', 'x must be a number'))).toEqual({
      code: -32602,
      message: 'Invalid params',
    });
    expect(toJsonRpcError(new PlexusError('RATE_LIMITED', 'slow down'), { codes: 'hyperspace' })).toEqual({
      code: -32003,
      message: 'slow down',
    });
    expect(toJsonRpcError({ code: 'NOPE' as never, message: 'm', retryable: false })).toEqual({
      code: -32603,
      message: 'Internal error',
    });
  });

  it('jsonRpcErrorToPlexus keeps the number and data', () => {
    const err = jsonRpcErrorToPlexus({ code: -32001, message: 'Session Not Found', data: [1] });
    expect(err.code).toBe('SESSION_NOT_FOUND');
    expect(err.details).toEqual({ jsonrpcCode: -32001, data: [1] });
  });
});

describe('Hyperspace seed JSON-RPC examples (seed 003)', () => {
  const fixture = JSON.parse(
    readFileSync(
      new URL(
        '../../fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json',
        import.meta.url,
      ),
      'utf8',
    ),
  ) as { pairs: { request: unknown; response: unknown }[] };

  it('has examples', () => {
    expect(fixture.pairs.length).toBeGreaterThan(0);
  });

  it.each(fixture.pairs.map((p, i) => [i, p] as const))(
    'pair %i decodes and encodes back exactly',
    (_i, pair) => {
      const req = decodeJsonRpc(pair.request);
      const res = decodeJsonRpc(pair.response);
      expect(req.kind).toBe('request');
      expect(['response', 'error']).toContain(res.kind);
      expect(res.id).toBe(req.id);
      expect(encodeJsonRpc(req)).toEqual(pair.request);
      expect(createJsonRpcCodec({ codes: 'hyperspace' }).encode(res)).toEqual(pair.response);
    },
  );
});
