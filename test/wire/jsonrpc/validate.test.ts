import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { Problem } from '../../../src/core/problem.js';
import {
  decodeJsonRpc,
  decodeJsonRpcBatch,
  isAllowedJsonRpcErrorCode,
  jsonRpcShape,
  validateJsonRpc,
  validateJsonRpcMessage,
} from '../../../src/wire/jsonrpc/index.js';

const pointers = (problems: Problem[]): string[] => problems.map((p) => p.pointer).sort();

function decodeError(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('validateJsonRpcMessage', () => {
  it.each([
    ['request', { jsonrpc: '2.0', method: 'subtract', params: [42, 23], id: 1 }],
    ['request with named params', { jsonrpc: '2.0', method: 'subtract', params: { a: 1 }, id: 'x' }],
    ['request with null id', { jsonrpc: '2.0', method: 'm', id: null }],
    ['request with fractional id', { jsonrpc: '2.0', method: 'm', id: 1.5 }],
    ['request with empty method', { jsonrpc: '2.0', method: '', id: 1 }],
    ['rpc.-reserved method (the dispatcher answers it)', { jsonrpc: '2.0', method: 'rpc.discover', id: 1 }],
    ['notification', { jsonrpc: '2.0', method: 'update' }],
    ['success', { jsonrpc: '2.0', result: null, id: 1 }],
    ['failure', { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: '1' }],
    [
      'failure with data',
      { jsonrpc: '2.0', error: { code: -32002, message: 'Budget', data: [1] }, id: null },
    ],
    [
      'application code outside the reserved range',
      { jsonrpc: '2.0', error: { code: 42, message: 'x' }, id: 1 },
    ],
  ])('accepts a %s', (_name, message) => {
    expect(validateJsonRpcMessage(message)).toEqual([]);
  });

  it.each([
    ['a non-object', 1, ['']],
    ['an array', [], ['']],
    ['no jsonrpc', { method: 'm', id: 1 }, ['/jsonrpc']],
    ['jsonrpc 1.0', { jsonrpc: '1.0', method: 'm', id: 1 }, ['/jsonrpc']],
    ['jsonrpc as a number', { jsonrpc: 2, method: 'm', id: 1 }, ['/jsonrpc']],
    ['a non-string method', { jsonrpc: '2.0', method: 1, params: 'bar' }, ['/method', '/params']],
    ['string params', { jsonrpc: '2.0', method: 'm', params: 'bar', id: 1 }, ['/params']],
    ['null params', { jsonrpc: '2.0', method: 'm', params: null, id: 1 }, ['/params']],
    ['an object id', { jsonrpc: '2.0', method: 'm', id: {} }, ['/id']],
    ['a boolean id', { jsonrpc: '2.0', result: 1, id: true }, ['/id']],
    ['an unknown member', { jsonrpc: '2.0', method: 'm', id: 1, extra: 1 }, ['/extra']],
    ['method and result', { jsonrpc: '2.0', method: 'm', result: 1, id: 1 }, ['/result']],
    ['neither method nor result', { foo: 'boo' }, ['', '/foo', '/jsonrpc']],
    ['result and error', { jsonrpc: '2.0', result: 1, error: { code: 1, message: 'x' }, id: 1 }, ['']],
    ['a response without id', { jsonrpc: '2.0', result: 1 }, ['/id']],
    ['a non-object error', { jsonrpc: '2.0', error: 'boom', id: 1 }, ['/error']],
    [
      'an error without code and message',
      { jsonrpc: '2.0', error: {}, id: 1 },
      ['/error/code', '/error/message'],
    ],
    ['a fractional code', { jsonrpc: '2.0', error: { code: 1.5, message: 'x' }, id: 1 }, ['/error/code']],
    ['a reserved code', { jsonrpc: '2.0', error: { code: -32500, message: 'x' }, id: 1 }, ['/error/code']],
    ['a non-string message', { jsonrpc: '2.0', error: { code: 1, message: 1 }, id: 1 }, ['/error/message']],
    [
      'an unknown error member',
      { jsonrpc: '2.0', error: { code: 1, message: 'x', stack: 'y' }, id: 1 },
      ['/error/stack'],
    ],
  ])('rejects %s at the right pointers', (_name, message, expected) => {
    expect(pointers(validateJsonRpcMessage(message))).toEqual(expected);
  });

  it('reports every problem at once', () => {
    const problems = validateJsonRpcMessage({ jsonrpc: '1.0', method: 7, params: 3, id: [], x: 1 });
    expect(pointers(problems)).toEqual(['/id', '/jsonrpc', '/method', '/params', '/x']);
  });
});

describe('validateJsonRpc (batches)', () => {
  it('rejects an empty batch', () => {
    expect(validateJsonRpc([])).toEqual([{ pointer: '', message: expect.stringContaining('at least one') }]);
  });

  it('points into the failing members', () => {
    const problems = validateJsonRpc([
      { jsonrpc: '2.0', method: 'm' },
      1,
      { jsonrpc: '2.0', method: 2, id: 1 },
    ]);
    expect(pointers(problems)).toEqual(['/1', '/2/method']);
  });
});

describe('isAllowedJsonRpcErrorCode', () => {
  it.each([-32700, -32600, -32601, -32602, -32603, -32000, -32099, -32001, -31999, -32769, 0, 404])(
    'allows %i',
    (code) => {
      expect(isAllowedJsonRpcErrorCode(code)).toBe(true);
    },
  );
  it.each([-32768, -32100, -32604, -32699, -32701, 1.5])('refuses %d', (code) => {
    expect(isAllowedJsonRpcErrorCode(code)).toBe(false);
  });
});

describe('jsonRpcShape', () => {
  it('tells the shapes apart by members', () => {
    expect(jsonRpcShape({ method: 'm', id: null })).toBe('request');
    expect(jsonRpcShape({ method: 'm' })).toBe('notification');
    expect(jsonRpcShape({ error: {} })).toBe('response');
    expect(jsonRpcShape({})).toBe('unknown');
  });
});

describe('decodeJsonRpc errors', () => {
  it('throws INVALID_REQUEST with details.problems', () => {
    const err = decodeError(() => decodeJsonRpc({ jsonrpc: '2.0', method: 1, params: 'bar' }));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(pointers(err.details?.problems as unknown as Problem[])).toEqual(['/method', '/params']);
    expect(err.message).toContain('1 more problem');
  });

  it('sends a batch to decodeJsonRpcBatch', () => {
    expect(decodeError(() => decodeJsonRpc([{ jsonrpc: '2.0', method: 'm' }])).message).toContain(
      'decodeJsonRpcBatch',
    );
  });

  it('decodeJsonRpcBatch rejects non-arrays, empty and invalid batches', () => {
    expect(decodeError(() => decodeJsonRpcBatch({})).code).toBe('INVALID_REQUEST');
    expect(decodeError(() => decodeJsonRpcBatch([])).code).toBe('INVALID_REQUEST');
    const err = decodeError(() => decodeJsonRpcBatch([{ jsonrpc: '2.0', method: 'm' }, { id: 1 }]));
    expect(pointers(err.details?.problems as unknown as Problem[])).toEqual(['/1', '/1/jsonrpc']);
  });
});
