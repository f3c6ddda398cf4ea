import { describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import {
  classifyJsonRpc,
  handleJsonRpc,
  handleJsonRpcText,
  handleJsonRpcValue,
  parseJsonRpcText,
} from '../../../src/wire/jsonrpc/index.js';
import type { JsonRpcDispatch } from '../../../src/wire/jsonrpc/index.js';
import { specDispatch } from './spec-dispatcher.js';

const echo: JsonRpcDispatch = (_method, params) => Promise.resolve(params ?? null);
const failWith =
  (error: Error): JsonRpcDispatch =>
  () =>
    Promise.reject(error);

async function answer(text: string, dispatch: JsonRpcDispatch = specDispatch, init = {}): Promise<unknown> {
  const reply = await handleJsonRpcText(text, dispatch, init);
  return reply === undefined ? undefined : JSON.parse(reply);
}

describe('parseJsonRpcText', () => {
  it('classifies single, batch and parse errors', () => {
    expect(parseJsonRpcText('{"a":1}')).toEqual({ type: 'single', message: { a: 1 } });
    expect(parseJsonRpcText('[1]')).toEqual({ type: 'batch', messages: [1] });
    expect(parseJsonRpcText('[]')).toEqual({ type: 'batch', messages: [] });
    const bad = parseJsonRpcText('{"a":');
    expect(bad.type).toBe('parse-error');
    expect(bad.type === 'parse-error' && bad.error.code).toBe('PARSE_ERROR');
    expect(parseJsonRpcText('').type).toBe('parse-error');
  });

  it('classifyJsonRpc works on parsed values', () => {
    expect(classifyJsonRpc(null)).toEqual({ type: 'single', message: null });
  });
});

describe('handleJsonRpcText', () => {
  it('answers a request with its result and id of the same JSON type', async () => {
    expect(await answer('{"jsonrpc":"2.0","method":"echo","params":{"x":1},"id":"7"}', echo)).toEqual({
      jsonrpc: '2.0',
      result: { x: 1 },
      id: '7',
    });
    expect(await answer('{"jsonrpc":"2.0","method":"echo","params":[1],"id":7}', echo)).toEqual({
      jsonrpc: '2.0',
      result: [1],
      id: 7,
    });
  });

  it('answers a request with a null id, with a null id', async () => {
    expect(await answer('{"jsonrpc":"2.0","method":"get_data","id":null}')).toEqual({
      jsonrpc: '2.0',
      result: ['hello', 5],
      id: null,
    });
  });

  it('passes undefined params when params are absent', async () => {
    const dispatch = vi.fn(echo);
    await handleJsonRpcText('{"jsonrpc":"2.0","method":"m","id":1}', dispatch);
    expect(dispatch.mock.calls[0]?.[1]).toBeUndefined();
  });

  it('passes the signal and the decoded envelope', async () => {
    const controller = new AbortController();
    let seen: [AbortSignal | undefined, Envelope] | undefined;
    const dispatch: JsonRpcDispatch = (_m, _p, signal, envelope) => {
      seen = [signal, envelope];
      return Promise.resolve(1);
    };
    await handleJsonRpcText('{"jsonrpc":"2.0","method":"m","id":5}', dispatch, { signal: controller.signal });
    expect(seen?.[0]).toBe(controller.signal);
    expect(seen?.[1]).toMatchObject({
      id: '5',
      kind: 'request',
      verb: 'm',
      extensions: { _x_jsonrpc_id: 5 },
    });
  });

  it('turns an undefined result into null', async () => {
    const dispatch = (() => Promise.resolve(undefined)) as unknown as JsonRpcDispatch;
    expect(await answer('{"jsonrpc":"2.0","method":"m","id":1}', dispatch)).toEqual({
      jsonrpc: '2.0',
      result: null,
      id: 1,
    });
  });

  it.each([
    ['UNKNOWN_VERB', -32601, 'Method not found'],
    ['INVALID_PARAMS', -32602, 'Invalid params'],
    ['INTERNAL', -32603, 'Internal error'],
  ] as const)('maps a thrown %s to %i with the standard message', async (code, jsonrpc, message) => {
    expect(
      await answer('{"jsonrpc":"2.0","method":"m","id":1}', failWith(new PlexusError(code, 'detail'))),
    ).toEqual({
      jsonrpc: '2.0',
      error: { code: jsonrpc, message },
      id: 1,
    });
  });

  it('keeps the message of an error sent as −32603 that is not INTERNAL', async () => {
    expect(
      await answer(
        '{"jsonrpc":"2.0","method":"m","id":1}',
        failWith(new PlexusError('BUDGET_EXCEEDED', 'detail')),
      ),
    ).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'detail' }, id: 1 });
  });

  it('uses Hyperspace codes and the error message when asked', async () => {
    expect(
      await answer(
        '{"jsonrpc":"2.0","method":"m","id":1}',
        failWith(new PlexusError('BUDGET_EXCEEDED', 'over')),
        {
          codes: 'hyperspace',
        },
      ),
    ).toEqual({ jsonrpc: '2.0', error: { code: -32002, message: 'over' }, id: 1 });
  });

  it('sends details as data, or what errorData returns', async () => {
    const error = new PlexusError('INVALID_PARAMS', 'bad', { details: { pointer: '/0' } });
    expect(await answer('{"jsonrpc":"2.0","method":"m","id":1}', failWith(error))).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params', data: { pointer: '/0' } },
      id: 1,
    });
    expect(
      await answer('{"jsonrpc":"2.0","method":"m","id":1}', failWith(error), {
        errorData: (e: PlexusError) => e.message,
      }),
    ).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params', data: 'bad' }, id: 1 });
  });

  it('hides a non-Plexus failure behind -32603', async () => {
    expect(await answer('{"jsonrpc":"2.0","method":"m","id":1}', failWith(new TypeError('secret')))).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error' },
      id: 1,
    });
  });

  it('catches a dispatcher that throws synchronously', async () => {
    const dispatch: JsonRpcDispatch = () => {
      throw new PlexusError('INVALID_PARAMS', 'sync');
    };
    expect(await answer('{"jsonrpc":"2.0","method":"m","id":1}', dispatch)).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('never answers a notification, even when it fails, but reports the failure', async () => {
    const onNotificationError = vi.fn();
    expect(
      await handleJsonRpcText('{"jsonrpc":"2.0","method":"m"}', failWith(new PlexusError('INTERNAL', 'x')), {
        onNotificationError,
      }),
    ).toBeUndefined();
    expect(onNotificationError).toHaveBeenCalledWith(expect.any(PlexusError), 'm');
  });

  it('echoes a readable id on an Invalid Request, else null', async () => {
    expect(await answer('{"jsonrpc":"1.0","method":"m","id":3}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: 3,
    });
    expect(await answer('{"jsonrpc":"2.0","method":"m","id":{}}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
    expect(await answer('"hello"')).toMatchObject({ error: { code: -32600 }, id: null });
  });

  it('does not answer responses; hands them to onResponse', async () => {
    const onResponse = vi.fn();
    const text = '{"jsonrpc":"2.0","result":1,"id":1}';
    expect(await handleJsonRpcText(text, specDispatch)).toBeUndefined();
    expect(await handleJsonRpcText(text, specDispatch, { onResponse })).toBeUndefined();
    expect(onResponse).toHaveBeenCalledWith({ jsonrpc: '2.0', result: 1, id: 1 });
  });

  it('answers a batch member by member in request order, skipping notifications', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const dispatch: JsonRpcDispatch = async (method) => {
      if (method === 'slow') await gate;
      return method;
    };
    const pending = handleJsonRpcText(
      '[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"fast","id":2},{"jsonrpc":"2.0","method":"n"}]',
      dispatch,
    );
    release();
    expect(JSON.parse((await pending) ?? 'null')).toEqual([
      { jsonrpc: '2.0', result: 'slow', id: 1 },
      { jsonrpc: '2.0', result: 'fast', id: 2 },
    ]);
  });

  it('answers a nested batch as an Invalid Request member', async () => {
    expect(await answer('[[{"jsonrpc":"2.0","method":"m","id":1}]]')).toEqual([
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
    ]);
  });
});

describe('handleJsonRpc and handleJsonRpcValue', () => {
  it('give structured replies', async () => {
    const reply = await handleJsonRpc(
      parseJsonRpcText('{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}'),
      specDispatch,
    );
    expect(reply).toEqual({ jsonrpc: '2.0', result: 3, id: 1 });
    const batch = await handleJsonRpcValue(
      [{ jsonrpc: '2.0', method: 'subtract', params: { minuend: 5, subtrahend: 2 }, id: 'a' }] as JsonValue,
      specDispatch,
    );
    expect(batch).toEqual([{ jsonrpc: '2.0', result: 3, id: 'a' }]);
    expect(await handleJsonRpcValue([], specDispatch)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('answers a parse error with -32700 and id null', async () => {
    expect(await handleJsonRpc(parseJsonRpcText('nope'), specDispatch)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
  });
});
