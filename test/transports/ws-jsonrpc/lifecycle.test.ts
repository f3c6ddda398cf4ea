import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_HINT_DEFAULTS } from '../../../src/core/error-recovery.js';
import type { JsonValue } from '../../../src/core/json.js';
import { attachWsJsonRpc } from '../../../src/transports/ws-jsonrpc/index.js';
import { exchange, rawSocket, startNode, type RawSocket, type TestNode } from './helpers.js';
import { until } from '../../support/until.js';

const call = (method: string, params: JsonValue, id: JsonValue): string =>
  JSON.stringify({ jsonrpc: '2.0', method, params, id });
const ECHO = call('demo.echo', ['ok'], 'echo');
const ECHOED = { jsonrpc: '2.0', result: ['ok'], id: 'echo' };

describe('attachWsJsonRpc: limits and lifecycle', () => {
  let node: TestNode | undefined;
  const sockets: RawSocket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) await s.close();
    await node?.close();
    node = undefined;
  });
  const open = async (path = '/'): Promise<RawSocket> => {
    if (node === undefined) throw new Error('no node');
    const s = await rawSocket(`${node.base}${path}`, node.token);
    sockets.push(s);
    return s;
  };

  it('answers a message over maxMessageBytes with −32600 INPUT_TOO_LARGE and keeps the connection', async () => {
    node = await startNode({ face: { maxMessageBytes: 1024, maxFrameBytes: 4096 } });
    const s = await open();
    const big = call('demo.echo', ['x'.repeat(2000)], 1);
    expect(await exchange(s, big)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: `the message is ${Buffer.byteLength(big)} bytes; the limit is 1024`,
        data: {
          limit: 1024,
          size: Buffer.byteLength(big),
          code: 'INPUT_TOO_LARGE',
          message: `the message is ${Buffer.byteLength(big)} bytes; the limit is 1024`,
          retryable: false,
          details: { limit: 1024, size: Buffer.byteLength(big) },
          // the recovery fields of seed 002 §8.2
          category: 'invalid_input',
          suggested_action: ERROR_HINT_DEFAULTS.INPUT_TOO_LARGE.suggestedAction,
        },
      },
      id: null,
    });
    expect(await exchange(s, ECHO)).toEqual(ECHOED);
  });

  it('closes a connection with 1009 on a frame over maxFrameBytes, and keeps serving others', async () => {
    node = await startNode({ face: { maxMessageBytes: 1024, maxFrameBytes: 4096 } });
    const s = await open();
    s.send(call('demo.echo', ['x'.repeat(5000)], 1));
    expect(await s.closed).toBe(1009);
    expect(await exchange(await open(), ECHO)).toEqual(ECHOED);
  });

  it('closes a connection with 1007 on a text frame that is not UTF-8, and keeps serving others', async () => {
    node = await startNode();
    const s = await open();
    s.send(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
    expect(await s.closed).toBe(1007);
    expect(await exchange(await open(), ECHO)).toEqual(ECHOED);
  });

  it('answers a batch over maxBatchSize with one −32600 per call', async () => {
    node = await startNode({ face: { maxBatchSize: 3 } });
    const s = await open();
    const batch = [1, 2, 3, 4].map((i) => ({ jsonrpc: '2.0', method: 'demo.echo', params: [i], id: i }));
    const answer = (await exchange(
      s,
      JSON.stringify([...batch, { jsonrpc: '2.0', method: 'demo.echo' }]),
    )) as {
      id: number;
      error: { code: number; data: { code: string; details: JsonValue } };
    }[];
    expect(answer.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    for (const a of answer) {
      expect(a.error.code).toBe(-32600);
      expect(a.error.data.code).toBe('INPUT_TOO_LARGE');
      expect(a.error.data.details).toEqual({ limit: 3, size: 5 });
    }
    expect(await exchange(s, JSON.stringify(batch.slice(0, 3)))).toHaveLength(3);
  });

  it('stops reading a connection with maxInFlight messages in flight, and resumes as they finish', async () => {
    node = await startNode({ face: { maxInFlight: 2 } });
    const s = await open();
    s.send(call('demo.hold', {}, 'h1'));
    s.send(call('demo.hold', {}, 'h2'));
    await until(() => node?.probe.held.length === 2);
    s.send(ECHO);
    // Give a node that ignored the limit ample occasion to answer the echo (a node that keeps
    // the limit never does, however long this is: the check cannot fail spuriously).
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The echo is read only once a slot frees: its answer comes after the first hold's.
    node.probe.held[0]?.('first');
    expect(await s.next()).toEqual({ jsonrpc: '2.0', result: 'first', id: 'h1' });
    expect(await s.next()).toEqual(ECHOED);
    node.probe.held[1]?.('second');
    expect(await s.next()).toEqual({ jsonrpc: '2.0', result: 'second', id: 'h2' });
  });

  it('keeps every message when many arrive at once with a small maxInFlight', async () => {
    node = await startNode({ face: { maxInFlight: 3 } });
    const s = await open();
    const total = 500;
    for (let i = 0; i < total; i++) s.send(call('demo.echo', [i], i));
    const ids = new Set<JsonValue>();
    while (ids.size < total) ids.add(((await s.next()) as { id: JsonValue }).id);
    expect(ids.size).toBe(total);
  });

  it('refuses upgrades over maxConnections with 503', async () => {
    node = await startNode({ face: { maxConnections: 1 } });
    await open();
    await expect(rawSocket(`${node.base}/`, node.token)).rejects.toThrow('upgrade refused: 503');
  });

  it('terminates a connection that stops answering pings', async () => {
    node = await startNode({ face: { pingIntervalMs: 20 } });
    const silent = await rawSocket(`${node.base}/`, node.token, { autoPong: false });
    sockets.push(silent);
    expect(await silent.closed).toBe(1006);
    await until(() => node?.face.connectionCount() === 0);
  });

  it('keeps a connection that answers pings', async () => {
    node = await startNode({ face: { pingIntervalMs: 20 } });
    const s = await open();
    let pings = 0;
    s.ws.on('ping', () => pings++);
    await until(() => pings >= 4);
    expect(await exchange(s, ECHO)).toEqual(ECHOED);
  });

  it('close() closes every connection with 1001, cancels their calls, and is safe to call twice', async () => {
    node = await startNode();
    const a = await open();
    const b = await open('/rpc');
    a.send(call('demo.hold', {}, 'h'));
    await until(() => node?.probe.held.length === 1);
    expect(node.face.connectionCount()).toBe(2);
    await Promise.all([node.face.close(), node.face.close()]);
    expect(await a.closed).toBe(1001);
    expect(await b.closed).toBe(1001);
    expect(node.face.connectionCount()).toBe(0);
    await until(() => node?.probe.stopped.includes('aborted') === true);
    node.probe.held.splice(0);
    await expect(rawSocket(`${node.base}/`, node.token)).rejects.toThrow();
  });

  it('rejects bad options with INVALID_PARAMS', () => {
    const server = createServer();
    const components = {} as Parameters<typeof attachWsJsonRpc>[1];
    expect(() => attachWsJsonRpc(server, components, { maxMessageBytes: 0 })).toThrow(/maxMessageBytes/);
    expect(() => attachWsJsonRpc(server, components, { pingIntervalMs: 5 })).toThrow(/pingIntervalMs/);
    expect(() => attachWsJsonRpc(server, components, { maxMessageBytes: 100, maxFrameBytes: 50 })).toThrow(
      /maxFrameBytes/,
    );
    expect(server.listenerCount('upgrade')).toBe(0);
  });
});
