import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonRpcParams } from '../../../src/wire/jsonrpc/index.js';
import {
  errorFromJsonRpc,
  wsJsonRpcClient,
  type WsJsonRpcClient,
  type WsStreamChunk,
} from '../../../src/transports/ws-jsonrpc/index.js';
import { startNode, type TestNode } from './helpers.js';
import { until } from '../../support/until.js';

async function rejection(promise: Promise<unknown>): Promise<PlexusError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('wsJsonRpcClient', () => {
  let node: TestNode;
  let client: WsJsonRpcClient | undefined;
  beforeAll(async () => {
    node = await startNode();
  });
  afterAll(async () => {
    await node.close();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    for (const stop of node.probe.held.splice(0)) stop('test over');
  });
  const connect = async (): Promise<WsJsonRpcClient> => {
    client = await wsJsonRpcClient({ url: `${node.base}/`, token: node.token });
    return client;
  };

  it('calls a verb and resolves with its result', async () => {
    const c = await connect();
    expect(await c.call('demo.echo', { hello: 'mesh' })).toEqual({ hello: 'mesh' });
    expect(await c.call('demo.echo')).toBeNull();
    expect(await c.call('demo.echo', [1, 2])).toEqual([1, 2]);
  });

  it('rejects with the server’s PlexusError: code, message, retryable and details', async () => {
    const c = await connect();
    const error = await rejection(c.call('demo.fail', { code: 'BUDGET_EXCEEDED', message: 'over budget' }));
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toBe('over budget');
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ asked: 'BUDGET_EXCEEDED' });
    expect((await rejection(c.call('demo.fail', { code: 'RATE_LIMITED' }))).retryable).toBe(true);
    expect((await rejection(c.call('demo.unknown_verb'))).code).toBe('UNKNOWN_VERB');
  });

  it('sends notifications without waiting for an answer', async () => {
    const c = await connect();
    const before = node.probe.counter;
    await c.notify('demo.counter');
    await until(() => node.probe.counter > before);
  });

  it('sends a batch and resolves with one outcome per call, notifications left out', async () => {
    const c = await connect();
    const results = await c.batch([
      { method: 'demo.echo', params: ['a'] },
      { method: 'demo.counter', notification: true },
      { method: 'demo.fail', params: { code: 'LOOP_DETECTED' } },
      { method: 'demo.echo', params: { b: 1 } },
    ]);
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({ ok: true, result: ['a'] });
    expect(results[1]?.ok === false && results[1].error.code).toBe('LOOP_DETECTED');
    expect(results[2]).toEqual({ ok: true, result: { b: 1 } });
    expect(await c.batch([{ method: 'demo.counter', notification: true }])).toEqual([]);
    await expect(c.batch([])).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('hands a call its stream chunks in order before resolving', async () => {
    const c = await connect();
    const chunks: WsStreamChunk[] = [];
    const result = await c.call('demo.count', { n: 4 }, { onProgress: (chunk) => chunks.push(chunk) });
    expect(result).toEqual({ count: 4 });
    expect(chunks.map((ch) => ch.seq)).toEqual([1, 2, 3, 4]);
    expect(chunks.map((ch) => ch.data)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }]);
  });

  it('asks for a stream with stream: true, and gives chunks of calls without onProgress to listeners', async () => {
    const c = await connect();
    const seen: [string, JsonRpcParams | undefined][] = [];
    const off = c.onNotification((method, params) => seen.push([method, params]));
    expect(await c.call('demo.ticks', { n: 2 }, { stream: true })).toBe('done');
    expect(seen.map(([m]) => m)).toEqual(['stream.data', 'stream.data']);
    off();
    await c.call('demo.ticks', { n: 2 }, { stream: true });
    expect(seen).toHaveLength(2);
    await expect(c.call('demo.ticks', [1], { stream: true })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
  });

  it('times out a call with TIMEOUT (and tells the server the same deadline)', async () => {
    const c = await connect();
    const error = await rejection(c.call('demo.hold', {}, { timeoutMs: 30 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
  });

  it('cancels a call when its signal aborts', async () => {
    const c = await connect();
    const controller = new AbortController();
    const pending = c.call('demo.hold', {}, { signal: controller.signal });
    await until(() => node.probe.held.length > 0);
    controller.abort();
    expect((await rejection(pending)).code).toBe('CANCELLED');
    expect(await c.call('demo.echo', ['still here'])).toEqual(['still here']);
  });

  it('refuses to send a message over its limit with INPUT_TOO_LARGE', async () => {
    client = await wsJsonRpcClient({ url: `${node.base}/`, token: node.token, maxMessageBytes: 100 });
    expect((await rejection(client.call('demo.echo', ['x'.repeat(200)]))).code).toBe('INPUT_TOO_LARGE');
    expect(await client.call('demo.echo', ['small'])).toEqual(['small']);
  });

  it('fails pending and later calls with PEER_UNAVAILABLE once closed', async () => {
    const c = await connect();
    const pending = c.call('demo.hold', {});
    await until(() => node.probe.held.length > 0);
    await c.close();
    await c.close();
    expect((await rejection(pending)).code).toBe('PEER_UNAVAILABLE');
    expect((await rejection(c.call('demo.echo'))).code).toBe('PEER_UNAVAILABLE');
    expect((await rejection(c.notify('demo.echo'))).code).toBe('PEER_UNAVAILABLE');
  });

  it('closes when its init signal aborts', async () => {
    const controller = new AbortController();
    client = await wsJsonRpcClient({ url: `${node.base}/`, token: node.token, signal: controller.signal });
    controller.abort();
    await until(() => node.face.connectionCount() === 0);
  });

  it('rejects the connection with UNAUTHORIZED when the node answers 401', async () => {
    const error = await rejection(wsJsonRpcClient({ url: `${node.base}/`, token: 'bad.token.here' }));
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toContain('401');
    expect((await rejection(wsJsonRpcClient({ url: `${node.base}/` }))).code).toBe('UNAUTHORIZED');
  });

  it('rejects with PEER_UNAVAILABLE when nothing listens, and INVALID_PARAMS for a bad URL', async () => {
    expect((await rejection(wsJsonRpcClient({ url: 'ws://127.0.0.1:1/' }))).code).toBe('PEER_UNAVAILABLE');
    expect((await rejection(wsJsonRpcClient({ url: 'not a url' }))).code).toBe('INVALID_PARAMS');
  });

  it('rejects with CANCELLED when the connection attempt is aborted', async () => {
    const controller = new AbortController();
    const attempt = wsJsonRpcClient({ url: `${node.base}/`, token: node.token, signal: controller.signal });
    controller.abort();
    const outcome = await attempt.then(
      async (c) => {
        await c.close();
        return 'connected';
      },
      (error: unknown) => (error instanceof PlexusError ? error.code : 'other'),
    );
    // The abort may land after the socket opened; then the client closes at once.
    expect(['CANCELLED', 'connected']).toContain(outcome);
  });
});

describe('errorFromJsonRpc', () => {
  it('rebuilds the PlexusError from ErrorData in data', () => {
    const error = errorFromJsonRpc({
      code: -32002,
      message: 'Budget Exceeded',
      data: { code: 'BUDGET_EXCEEDED', message: 'spent', retryable: false, details: { limit: 5 } },
    });
    expect(error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      message: 'spent',
      retryable: false,
      details: { limit: 5 },
    });
  });

  it('reads a foreign error object by its number', () => {
    expect(errorFromJsonRpc({ code: -32601, message: 'Method not found' }).code).toBe('UNKNOWN_VERB');
    expect(errorFromJsonRpc({ code: -32003, message: 'slow down', data: 'x' }).code).toBe('RATE_LIMITED');
    expect(errorFromJsonRpc({ code: 12, message: '?', data: { code: 'NOPE', message: 'm' } }).code).toBe(
      'INTERNAL',
    );
  });
});
