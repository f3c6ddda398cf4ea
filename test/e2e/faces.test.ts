import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jobsOfDataDir } from '../../src/node/index.js';
import { openRpcSocket, useNodeProcess } from '../support/e2e-fixture.js';
import { esrpRequest, get, post, resultOf } from './harness.js';

// One real node process (dev mode, demo agents): a request through every face.
const e2e = useNodeProcess();

/** Sends JSON-RPC messages over one WebSocket and collects the replies with the given ids. */
async function rpc(url: string, messages: unknown[], expected: number): Promise<unknown[]> {
  const ws = await openRpcSocket(url);
  try {
    const replies: unknown[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`only ${replies.length} of ${expected} replies`));
      }, 15_000);
      ws.on('message', (data: Buffer) => {
        replies.push(JSON.parse(data.toString('utf8')));
        if (replies.length >= expected) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    for (const m of messages) ws.send(typeof m === 'string' ? m : JSON.stringify(m));
    await done;
    return replies;
  } finally {
    ws.terminate();
  }
}

describe('a node process', () => {
  it('prints its URL and did on the first line', () => {
    expect(e2e.node.stdout().split('\n')[0]).toMatch(
      /^plexus node did:key:z6Mk\S+ listening on http:\/\/127\.0\.0\.1:\d+$/,
    );
  });

  it('answers the health probes', async () => {
    expect(await get(`${e2e.node.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(`${e2e.node.url}/readyz`)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('runs an ESRP request synchronously (POST /v1/execute)', async () => {
    const r = await post(
      `${e2e.node.url}/v1/execute`,
      esrpRequest('math.evaluate', { expression: '2*(3+4)^2' }),
    );
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('succeeded');
    expect(r.body.job.state).toBe('succeeded');
    expect(resultOf(r.body)).toEqual({ expression: '2*(3+4)^2', value: 98 });
  });

  it('runs an ESRP request given as a named text input', async () => {
    const request = esrpRequest('text.summarize', null, 'sync', {
      inputs: [
        {
          name: 'text',
          content_type: 'text/plain',
          data: 'Cats purr. Dogs bark. Cats nap.',
          encoding: 'utf-8',
        },
      ],
      params: { sentences: 1 },
    });
    const r = await post(`${e2e.node.url}/v1/execute`, request);
    expect(r.status).toBe(200);
    expect(resultOf(r.body)).toMatchObject({ total: 3, indices: [0] });
  });

  it('answers an Emergence HELP with DONE, and registers a HELLO', async () => {
    const id = randomUUID();
    const r = await post(`${e2e.node.url}/emergence`, {
      id,
      from: 'tester',
      to: 'math',
      verb: 'HELP',
      data: { expression: '6*7' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id,
      from: 'math',
      to: 'tester',
      verb: 'DONE',
      data: { result: { expression: '6*7', value: 42 } },
    });
    const hello = await post(`${e2e.node.url}/emergence`, {
      id: randomUUID(),
      from: 'visitor',
      to: 'broadcast',
      verb: 'HELLO',
      data: { capabilities: ['translate'] },
    });
    expect(hello.status).toBe(200);
    expect(hello.body.verb).toBe('DONE');
    const card = await get(`${e2e.node.url}/agents/visitor`);
    expect(card.body).toMatchObject({
      id: 'visitor',
      origin: 'remote',
      capabilities: [{ verb: 'emergence.translate' }],
    });
  });

  it('answers JSON-RPC over WebSocket, single calls and batches', async () => {
    const replies = await rpc(
      e2e.node.url,
      [
        { jsonrpc: '2.0', id: 1, method: 'math.evaluate', params: { expression: '1+2' } },
        [
          { jsonrpc: '2.0', id: 2, method: 'echo.echo', params: { hello: 'ws' } },
          { jsonrpc: '2.0', id: 3, method: 'text.summarize', params: { text: 'One. Two.', sentences: 1 } },
        ],
      ],
      2,
    );
    const flat = replies.flat() as { id: number; result?: unknown }[];
    const byId = new Map(flat.map((r) => [r.id, r]));
    expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { expression: '1+2', value: 3 } });
    expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: { hello: 'ws' } });
    expect(byId.get(3)?.result).toMatchObject({ sentences: ['One.'] });
  });

  it('lists its agents (discovery)', async () => {
    const all = await get(`${e2e.node.url}/agents?origin=local`);
    expect((all.body.agents as { id: string }[]).map((a) => a.id)).toEqual([
      'conformance',
      'demo',
      'echo',
      'guard',
      'improving',
      'learning',
      'math',
      'memory',
      'micropayments',
      'recursive',
      'state',
      'tck',
      'text',
      'tool',
    ]);
    expect((await get(`${e2e.node.url}/agents/math`)).body).toMatchObject({ id: 'math', origin: 'local' });
    const caps = await get(`${e2e.node.url}/agents/text/capabilities`);
    expect(caps.body.capabilities[0].verb).toBe('text.summarize');
    expect((await get(`${e2e.node.url}/agents?capability=demo.slow`)).body.agents).toHaveLength(1);
  });

  it('runs the same request sent twice only once', async () => {
    const first = esrpRequest('math.evaluate', { expression: '11*11' });
    const second = { ...first, request_id: randomUUID() }; // same payload, new request id
    const [a, b] = await Promise.all([
      post(`${e2e.node.url}/v1/execute`, first),
      post(`${e2e.node.url}/v1/execute`, second),
    ]);
    expect(a.body.job.job_id).toBe(b.body.job.job_id);
    expect(resultOf(b.body)).toEqual({ expression: '11*11', value: 121 });
    const third = await post(`${e2e.node.url}/v1/jobs`, {
      ...first,
      request_id: randomUUID(),
      mode: { type: 'async', timeout_ms: 30_000 },
    });
    expect(third.body.job.job_id).toBe(a.body.job.job_id);
    // The log holds one job for that payload, run once.
    const jobs = await jobsOfDataDir(e2e.node.dataDir);
    const job = jobs.find((j) => j.id === a.body.job.job_id);
    expect(job?.attempts).toBe(1);
    expect(jobs.filter((j) => j.payloadHash === job?.payloadHash)).toHaveLength(1);
  });
});
