// Issue 11 item 8: under a burst, work beyond the node's and the connection's bounds is shed
// before any job exists — 429 with Retry-After on the HTTP faces (each in its own form),
// −32003 (Hyperspace "Rate Limited") over WebSocket — health probes never are, and once the
// work in flight ends, requests are served again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createNode, type Node, type NodeInit } from '../../src/node/index.js';
import { parseNodeConfig } from '../../src/node/config.js';
import { nodeInitFromConfig } from '../../src/node/node-init.js';
import { esrpRequest, get, post } from '../e2e/harness.js';

const dirs: string[] = [];
const nodes: Node[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function started(init: NodeInit): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-overload-'));
  dirs.push(dataDir);
  const node = createNode({ dataDir, port: 0, dev: true, demo: true, ...init });
  nodes.push(node);
  await node.start();
  return node;
}

/** The ids of the next `count` jobs whose handler starts after log position `afterSeq`. */
async function jobsStarted(node: Node, afterSeq: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  const signal = AbortSignal.timeout(20_000);
  for await (const event of node.log.subscribe(afterSeq, { type: 'job.started' }, { signal })) {
    if (event.causation !== undefined) ids.push(event.causation);
    if (ids.length >= count) break;
  }
  return ids;
}

async function submittedCount(node: Node): Promise<number> {
  return (await node.log.read({ type: 'job.submitted' })).length;
}

/** Runs `check` after each turn of the event loop until it holds (at most `turns` turns). */
async function settle(check: () => Promise<boolean>, turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the condition never held');
}

interface RpcAnswer {
  readonly result?: unknown;
  readonly error?: {
    readonly code: number;
    readonly message: string;
    readonly data?: { readonly code?: string; readonly retryable?: boolean; readonly retry_after?: number };
  };
}

interface RpcSocket {
  readonly ws: WebSocket;
  call(id: number, method: string, params: unknown): void;
  answer(id: number): Promise<RpcAnswer>;
}

async function rpcSocket(node: Node): Promise<RpcSocket> {
  const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`, ['jsonrpc']);
  sockets.push(ws);
  const answers = new Map<number, (value: RpcAnswer) => void>();
  const early = new Map<number, RpcAnswer>();
  ws.on('message', (raw: Buffer) => {
    const message = JSON.parse(raw.toString('utf8')) as RpcAnswer & { id?: number };
    if (typeof message.id !== 'number') return; // notifications
    const waiting = answers.get(message.id);
    if (waiting === undefined) early.set(message.id, message);
    else waiting(message);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  return {
    ws,
    call(id, method, params) {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    },
    answer(id) {
      const known = early.get(id);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve) => answers.set(id, resolve));
    },
  };
}

describe('overload: the node-wide bound on the HTTP faces', () => {
  it('sheds beyond maxInFlight in each face’s form, never the health probes, and serves again after', async () => {
    const node = await started({ maxInFlight: 2 });
    const head = (await node.log.head()).seq;
    // Two different payloads: identical ones would be one job (the runtime de-duplicates them).
    const slow = [29, 30].map((seconds) =>
      post(`${node.url}/v1/execute`, esrpRequest('demo.slow', { seconds, steps: seconds })),
    );
    const running = await jobsStarted(node, head, 2);
    const before = await submittedCount(node);

    const esrp = await post(`${node.url}/v1/execute`, esrpRequest('echo.echo', { text: 'one more' }));
    expect(esrp.status).toBe(429);
    expect(esrp.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(esrp.body.status).toBe('failed');
    expect(esrp.body.error.message).toMatch(/limit/);

    const asyncRefused = await post(`${node.url}/v1/jobs`, esrpRequest('echo.echo', { text: 'x' }, 'async'));
    expect(asyncRefused.status).toBe(429);

    const emergence = await post(`${node.url}/emergence`, {
      id: crypto.randomUUID(),
      kind: 'request',
      from: 'tester',
      to: 'echo',
      verb: 'HELP',
      data: { text: 'one more' },
    });
    expect(emergence.status).toBe(429);
    expect(emergence.headers.get('retry-after')).not.toBeNull();
    expect(emergence.body.verb).toBe('ERROR');
    expect(emergence.body.data.code).toBe(429);

    const peer = await post(`${node.url}/v1/peer/invoke`, { not: 'even an envelope' });
    expect(peer.status).toBe(429);
    expect(peer.headers.get('retry-after')).not.toBeNull();
    expect(peer.body.status).toBe('failed'); // the peer route answers in the ESRP form (item 1)
    expect(peer.body.error.details.plexus_code).toBe('RATE_LIMITED');

    const agents = await get(`${node.url}/agents`);
    expect(agents.status).toBe(429);
    expect(agents.body.error.code).toBe('RATE_LIMITED');

    expect((await get(`${node.url}/healthz`)).status).toBe(200);
    expect((await get(`${node.url}/readyz`)).status).toBe(200);
    // Nothing shed became a job.
    expect(await submittedCount(node)).toBe(before);

    for (const id of running) await node.runtime.jobs.cancel(id);
    await Promise.all(slow);
    const again = await post(`${node.url}/v1/execute`, esrpRequest('echo.echo', { text: 'served' }));
    expect(again.status).toBe(200);
  });

  it('counts an async job until it ends, not only its 202', async () => {
    const node = await started({ maxInFlight: 1 });
    const head = (await node.log.head()).seq;
    const accepted = await post(
      `${node.url}/v1/jobs`,
      esrpRequest('demo.slow', { seconds: 30, steps: 30 }, 'async'),
    );
    expect(accepted.status).toBe(202);
    const [job] = await jobsStarted(node, head, 1);
    const refused = await post(`${node.url}/v1/execute`, esrpRequest('echo.echo', { text: 'no room' }));
    expect(refused.status).toBe(429);
    await node.runtime.jobs.cancel(job as string);
    await node.runtime.jobs.wait(job as string);
    let status = 0;
    await settle(async () => {
      status = (await post(`${node.url}/v1/execute`, esrpRequest('echo.echo', { text: 'room' }))).status;
      return status !== 429;
    });
    expect(status).toBe(200);
  });
});

describe('overload: the WebSocket face', () => {
  it('answers −32003 beyond maxInFlightPerConnection on that connection only, and serves it again after', async () => {
    const node = await started({ maxInFlightPerConnection: 2 });
    const head = (await node.log.head()).seq;
    const a = await rpcSocket(node);
    a.call(1, 'demo.slow', { seconds: 30, steps: 30 });
    a.call(2, 'demo.slow', { seconds: 30, steps: 30 });
    const running = await jobsStarted(node, head, 2);
    const before = await submittedCount(node);

    a.call(3, 'echo.echo', { text: 'one more' });
    const shed = await a.answer(3);
    expect(shed.error?.code).toBe(-32003);
    expect(shed.error?.message).toMatch(/Rate Limited|limit/);
    expect(shed.error?.data?.code).toBe('RATE_LIMITED');
    expect(shed.error?.data?.retryable).toBe(true);
    expect(shed.error?.data?.retry_after).toBeGreaterThanOrEqual(1);
    expect(await submittedCount(node)).toBe(before);

    // Another connection has its own share.
    const b = await rpcSocket(node);
    b.call(1, 'echo.echo', { text: 'other connection' });
    expect((await b.answer(1)).result).toBeDefined();

    for (const id of running) await node.runtime.jobs.cancel(id);
    await Promise.all([a.answer(1), a.answer(2)]);
    a.call(4, 'echo.echo', { text: 'served again' });
    expect((await a.answer(4)).result).toBeDefined();
  });

  it('answers −32003 when the node-wide bound is reached by other connections', async () => {
    const node = await started({ maxInFlight: 1 });
    const head = (await node.log.head()).seq;
    const http = post(`${node.url}/v1/execute`, esrpRequest('demo.slow', { seconds: 30, steps: 30 }));
    const [job] = await jobsStarted(node, head, 1);
    const ws = await rpcSocket(node);
    ws.call(1, 'echo.echo', { text: 'no room' });
    expect((await ws.answer(1)).error?.code).toBe(-32003);
    await node.runtime.jobs.cancel(job as string);
    await http;
    ws.call(2, 'echo.echo', { text: 'room' });
    expect((await ws.answer(2)).result).toBeDefined();
  });
});

describe('overload: configuration', () => {
  it('reads limits.maxInFlight and limits.maxInFlightPerConnection from plexus.yaml', () => {
    const config = parseNodeConfig({ limits: { maxInFlight: 8, maxInFlightPerConnection: 2 } });
    expect(nodeInitFromConfig(config)).toMatchObject({ maxInFlight: 8, maxInFlightPerConnection: 2 });
  });

  it('refuses bounds that are not whole numbers ≥ 1, naming the field', () => {
    for (const bad of [0, -1, 1.5, 'many', null]) {
      expect(() => parseNodeConfig({ limits: { maxInFlight: bad } })).toThrow(/limits\.maxInFlight/);
      expect(() => parseNodeConfig({ limits: { maxInFlightPerConnection: bad } })).toThrow(
        /limits\.maxInFlightPerConnection/,
      );
    }
  });

  it('refuses a bad bound given to createNode when it starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plexus-overload-'));
    dirs.push(dataDir);
    const node = createNode({ dataDir, port: 0, dev: true, maxInFlight: 0 });
    await expect(node.start()).rejects.toThrow(/maxInFlight/);
    // The refused start let go of the data directory.
    const again = createNode({ dataDir, port: 0, dev: true });
    nodes.push(again);
    await again.start();
  });
});
