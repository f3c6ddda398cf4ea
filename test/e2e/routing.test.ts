import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsOfDataDir, withDataDirLog } from '../../src/node/index.js';
import { traceparentFromContext } from '../../src/wire/esrp/index.js';
import {
  BIN,
  built,
  cleanup,
  esrpRequest,
  eventually,
  exitOf,
  freePort,
  get,
  post,
  resultOf,
  startNodeProcess,
  tempDir,
  type Body,
  type NodeProcess,
} from './harness.js';

// Three node processes on 127.0.0.1: A (echo) lists B (math, text) and C (math) as peers and
// routes to them by target, with fallback policies; B is killed and restarted on its port.
let a: NodeProcess;
let b: NodeProcess;
let c: NodeProcess;
let portA: number;
let portB: number;
let portC: number;
let configA: string;
const dataA = join(tempDir(), 'a');
const dataB = join(tempDir(), 'b');

const bUrl = (): string => `http://127.0.0.1:${portB}`;

function startA(): Promise<NodeProcess> {
  return startNodeProcess({ port: portA, dataDir: dataA, flags: ['--dev'], config: configA });
}

function startB(): Promise<NodeProcess> {
  return startNodeProcess({
    port: portB,
    dataDir: dataB,
    flags: ['--dev'],
    config: 'demo: [math, text]\nprimitives: false\n',
  });
}

async function killB(): Promise<void> {
  b.child.kill('SIGKILL');
  await exitOf(b);
}

/** An Emergence HELP to A for `verb`, with routing extensions. */
async function help(verb: string, input: unknown, extensions: Record<string, string>): Promise<Body> {
  const id = randomUUID();
  const r = await post(`${a.url}/emergence`, {
    id,
    from: 'tester',
    to: 'math',
    verb: 'HELP',
    data: { verb, input },
    ...extensions,
  });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(600);
  return r.body;
}

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  [portA, portB, portC] = [await freePort(), await freePort(), await freePort()];
  configA = [
    'demo: [echo]',
    'primitives: false',
    'peerPollMs: 200',
    'peers:',
    `  - url: http://127.0.0.1:${portB}`,
    `  - url: http://127.0.0.1:${portC}`,
    'fallback_policies:',
    '  cache-first: [local-cache, error]',
    '  offline-first: [local-cache, queue-for-sync]',
    '  high-availability: [secondary-region, error]',
    'routing:',
    `  groups: { secondary-region: ["http://127.0.0.1:${portC}/math"] }`,
    '  queueForSync: { retryMs: 200, maxRetryMs: 1000, maxWaitMs: 120000 }',
    '',
  ].join('\n');
  [b, c] = await Promise.all([
    startB(),
    startNodeProcess({ port: portC, flags: ['--dev'], config: 'demo: [math]\nprimitives: false\n' }),
  ]);
  a = await startA();
  await eventually('A to learn B’s agents', async () => {
    const agents = (await get(`${a.url}/agents?origin=remote`)).body.agents as { id: string }[];
    return agents.some((x) => x.id === 'text') ? true : undefined;
  });
}, 60_000);

afterAll(cleanup);

describe('routing across node processes', () => {
  it('carries the W3C trace from A to B: same trace id, a new span, in both logs', async () => {
    const context = { trace_id: randomUUID(), span_id: randomUUID(), tags: null };
    const traceparent = traceparentFromContext(context) as string;
    const traceId = traceparent.split('-')[1] as string;
    const r = await post(
      `${a.url}/v1/execute`,
      esrpRequest('text.summarize', { text: 'One. Two. Three.', sentences: 1 }, 'sync', { context }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const traced = (dir: string): Body => {
      const run = cli('trace', traceId, '--data', dir, '--json');
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    const onA = traced(a.dataDir);
    const onB = traced(b.dataDir);
    expect(onA.traceId).toBe(traceId);
    expect(onB.traceId).toBe(traceId);
    const spanOf = (view: Body): Body =>
      (view.spans as Body[]).find((s: Body) => s.verb === 'text.summarize');
    const spanA = spanOf(onA);
    const spanB = spanOf(onB);
    expect(spanA.spanId).toBe(traceparent.split('-')[2]);
    expect(spanB.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(spanB.spanId).not.toBe(spanA.spanId);
    expect(spanB.status).toBe(spanA.status);
    expect(resultOf(r.body)).toMatchObject({ sentences: ['One.'] });
    // B's job names A's span as its parent, and carries the new span in its events.
    const submitted = await withDataDirLog(b.dataDir, (log) =>
      log.read({ type: 'job.submitted', trace: traceId }),
    );
    const request = (submitted[0]?.data as Body).request;
    expect(request.extensions._x_agentese_parent_span_id).toBe(spanA.spanId);
    expect(submitted[0]?.trace).toBe(request.traceparent);
    expect(request.traceparent).toBe(`00-${traceId}-${spanB.spanId as string}-01`);
  });

  it('routes by target: http to a named peer, errors for p2p and unknown schemes', async () => {
    const toC = await help(
      'math.evaluate',
      { expression: '3*3' },
      { _x_agentese_target: `http://127.0.0.1:${portC}/math` },
    );
    expect(toC).toMatchObject({ verb: 'DONE', data: { result: { value: 9 } } });
    const onC = await jobsOfDataDir(c.dataDir);
    expect(onC.some((j) => j.verb === 'math.evaluate' && j.state === 'COMPLETED')).toBe(true);

    const p2p = await help(
      'math.evaluate',
      { expression: '1' },
      {
        _x_agentese_target: 'p2p://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      },
    );
    expect(p2p.verb).toBe('ERROR');
    expect(p2p.data.msg).toMatch(/libp2p transport, which this node does not have yet/);
    const town = await help(
      'math.evaluate',
      { expression: '1' },
      { _x_agentese_target: 'town://citizen/alpha' },
    );
    expect(town.verb).toBe('ERROR');
    expect(town.data.code).toBe(400);
    expect(town.data.msg).toMatch(/supported: local:\/\/<agent>/);
    const stranger = await help(
      'math.evaluate',
      { expression: '1' },
      { _x_agentese_target: 'http://127.0.0.1:9/math' },
    );
    expect(stranger.data.msg).toMatch(/not one of this node's configured peers/);
  });

  it('with B killed: local-cache serves stale (also after A restarts), high-availability uses C, default explains', async () => {
    const target = { _x_agentese_target: `${bUrl()}/math` };
    const fresh = await help(
      'math.evaluate',
      { expression: '6*7' },
      { ...target, _x_agentese_fallback_policy: 'cache-first' },
    );
    expect(fresh).toMatchObject({ verb: 'DONE', data: { result: { value: 42 } } });
    await killB();

    const stale = await help(
      'math.evaluate',
      { expression: '6*7' },
      { ...target, _x_agentese_fallback_policy: 'cache-first' },
    );
    expect(stale.verb).toBe('DONE');
    expect(stale.data.result).toMatchObject({ stale: true, fallback: 'local-cache', output: { value: 42 } });

    a.child.kill('SIGTERM');
    await exitOf(a);
    a = await startA();
    const afterRestart = await help(
      'math.evaluate',
      { expression: '6*7' },
      { ...target, _x_agentese_fallback_policy: 'cache-first' },
    );
    expect(afterRestart.data.result).toMatchObject({ stale: true, output: { value: 42 } });

    const ha = await help(
      'math.evaluate',
      { expression: '2+5' },
      { ...target, _x_agentese_fallback_policy: 'high-availability' },
    );
    expect(ha).toMatchObject({ verb: 'DONE', data: { result: { value: 7 } } });

    const plain = await help('math.evaluate', { expression: '2+6' }, target);
    expect(plain.verb).toBe('ERROR');
    expect(plain.data.msg).toMatch(/fallback policy "default" tried: .*PEER_UNAVAILABLE; error; giving up/);
  }, 90_000);

  it('queue-for-sync answers with a job that completes once B is back, even across a crash of A', async () => {
    const body = await help(
      'math.evaluate',
      { expression: '10*10' },
      {
        _x_agentese_target: `${bUrl()}/math`,
        _x_agentese_fallback_policy: 'offline-first',
      },
    );
    expect(body.verb).toBe('DONE');
    const receipt = body.data.result;
    expect(receipt).toMatchObject({ queued: true, fallback: 'queue-for-sync' });
    const pending = await get(`${a.url}/v1/jobs/${receipt.job as string}`);
    expect(pending.status).toBe(200);
    expect(['accepted', 'queued', 'started']).toContain(pending.body.status);

    // A crashes while the request waits; recovery runs the delivery job again after restart.
    a.child.kill('SIGKILL');
    await exitOf(a);
    a = await startA();
    b = await startB();
    const done = await eventually(
      'the queued job to complete',
      async () => {
        const r = await get(`${a.url}/v1/jobs/${receipt.job as string}`);
        const job: Body = r.body;
        return job.status === 'succeeded' || job.status === 'failed' ? (job as object) : undefined;
      },
      60_000,
    );
    expect((done as Body).status).toBe('succeeded');
    expect(resultOf(done)).toEqual({ expression: '10*10', value: 100 });
    const onB = await jobsOfDataDir(b.dataDir);
    expect(onB.some((j) => j.verb === 'math.evaluate' && j.state === 'COMPLETED')).toBe(true);
  }, 90_000);

  it('keeps the answer cache in replay --verify', async () => {
    a.child.kill('SIGTERM');
    await exitOf(a);
    const run = cli('replay', '--data', a.dataDir, '--verify', '--json');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('routing.answers');
  }, 60_000);
});
