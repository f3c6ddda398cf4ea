import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsOfDataDir } from '../../src/node/index.js';
import {
  built,
  cleanup,
  esrpRequest,
  eventually,
  freePort,
  get,
  post,
  resultOf,
  startNodeProcess,
  type NodeProcess,
} from './harness.js';

// Two node processes that list each other as peers: A hosts echo, B hosts math, text and
// demo; each forwards requests for the other's agents as signed envelopes.
let a: NodeProcess;
let b: NodeProcess;

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  const [portA, portB] = [await freePort(), await freePort()];
  const config = (demo: string, peerPort: number): string =>
    `demo: [${demo}]\nprimitives: false\npeerPollMs: 200\npeers:\n  - url: http://127.0.0.1:${peerPort}\n`;
  [a, b] = await Promise.all([
    startNodeProcess({ port: portA, flags: ['--dev'], config: config('echo', portB) }),
    startNodeProcess({ port: portB, flags: ['--dev'], config: config('math, text, demo', portA) }),
  ]);
  const remoteIds = async (node: NodeProcess): Promise<string[]> =>
    ((await get(`${node.url}/agents?origin=remote`)).body.agents as { id: string }[]).map((c) => c.id);
  await eventually('A to learn B’s agents', async () =>
    (await remoteIds(a)).includes('math') ? true : undefined,
  );
  await eventually('B to learn A’s agents', async () =>
    (await remoteIds(b)).includes('echo') ? true : undefined,
  );
}, 60_000);

afterAll(cleanup);

describe('two nodes', () => {
  it('list each other’s agents with origin remote, and never echo them back', async () => {
    const onA = (await get(`${a.url}/agents`)).body.agents as { id: string; origin: string }[];
    expect(onA.map((c) => `${c.id}:${c.origin}`).sort()).toEqual([
      'demo:remote',
      'echo:local',
      'math:remote',
      'text:remote',
    ]);
    const bLocal = (await get(`${b.url}/agents?origin=local`)).body.agents as { id: string }[];
    expect(bLocal.map((c) => c.id)).toEqual(['demo', 'math', 'text']);
  });

  it('forward an ESRP request from A to B, the answer unchanged in form', async () => {
    const r = await post(`${a.url}/v1/execute`, esrpRequest('math.evaluate', { expression: '2*(3+4)^2' }));
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('succeeded');
    expect(resultOf(r.body)).toEqual({ expression: '2*(3+4)^2', value: 98 });
    // B ran it: its log has a math.evaluate job; A has no math agent of its own.
    const onB = await jobsOfDataDir(b.dataDir);
    expect(onB.some((j) => j.verb === 'math.evaluate' && j.state === 'COMPLETED')).toBe(true);
  });

  it('forward a remote failure in the caller’s face form', async () => {
    const r = await post(`${a.url}/v1/execute`, esrpRequest('math.evaluate', { expression: '1+' }));
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('failed');
    expect(r.body.error).toMatchObject({
      code: 'INVALID_INPUT_SCHEMA',
      details: { plexus_code: 'INVALID_PARAMS' },
    });
    expect(r.body.error.message).toMatch(/position 3/);
  });

  it('forward a WebSocket JSON-RPC call from B to A', async () => {
    const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}/rpc`);
    try {
      const reply = await new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error('no reply'));
        }, 15_000);
        ws.once('error', reject);
        ws.once('open', () => {
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'echo.echo', params: { via: 'B' } }));
        });
        ws.once('message', (data: Buffer) => {
          clearTimeout(timer);
          resolve(JSON.parse(data.toString('utf8')));
        });
      });
      expect(reply).toEqual({ jsonrpc: '2.0', id: 'x', result: { via: 'B' } });
    } finally {
      ws.terminate();
    }
  });

  it('forward an Emergence HELP from A to B', async () => {
    const id = randomUUID();
    const r = await post(`${a.url}/emergence`, {
      id,
      from: 'tester',
      to: 'text',
      verb: 'HELP',
      data: { text: 'One. Two.', sentences: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, verb: 'DONE', data: { result: { sentences: ['One.'] } } });
  });
});
