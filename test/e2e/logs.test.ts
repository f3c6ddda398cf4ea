// Issue 16 item 3: real `plexus start` processes with --log-format json write their banner,
// then one parseable JSON line per log entry on stdout: the invocation (with the request's
// trace id), the routing decision (remote on the caller, local on the peer) and, at debug, each
// envelope forwarded between the two nodes, all in the one trace.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
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
import { startLogFormat, startLogLevel } from '../../src/cli/commands/start.js';

type Line = Record<string, unknown>;

/** The lines after the banner (which ends with "press Ctrl-C to stop"), each parsed. */
function logLines(node: NodeProcess): Line[] {
  const out = node.stdout();
  const end = out.indexOf('press Ctrl-C to stop\n');
  expect(end).toBeGreaterThan(-1);
  return out
    .slice(end + 'press Ctrl-C to stop\n'.length)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line); // throws on any line that is not JSON
}

function lineOf(node: NodeProcess, what: string, find: (l: Line) => boolean): Promise<Line> {
  return eventually(what, () => Promise.resolve(logLines(node).find(find)));
}

const TRACE = '5c1e2f3a4b5c6d7e8f90a1b2c3d4e5f6';

let a: NodeProcess;
let b: NodeProcess;

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  const [portA, portB] = [await freePort(), await freePort()];
  const config = (demo: string, peerPort: number): string =>
    `demo: [${demo}]\nprimitives: false\npeerPollMs: 200\npeers:\n  - url: http://127.0.0.1:${peerPort}\nlogging:\n  level: debug\n`;
  const flags = ['--dev', '--log-format', 'json'];
  [a, b] = await Promise.all([
    startNodeProcess({ port: portA, flags, config: config('echo', portB), timeoutMs: 45_000 }),
    startNodeProcess({ port: portB, flags, config: config('math', portA), timeoutMs: 45_000 }),
  ]);
  await eventually('A to learn B’s agents', async () =>
    ((await get(`${a.url}/agents?origin=remote`)).body.agents as { id: string }[]).some(
      (c) => c.id === 'math',
    )
      ? true
      : undefined,
  );
}, 120_000);

afterAll(cleanup);

describe('plexus start --log-format json', () => {
  it('prints the banner first, then only JSON lines', async () => {
    expect(a.stdout().split('\n')[0]).toMatch(
      /^plexus node did:key:\S+ listening on http:\/\/127\.0\.0\.1:\d+$/,
    );
    const started = await lineOf(a, 'the started line', (l) => l['msg'] === 'plexus node started');
    expect(started).toMatchObject({ level: 'info', url: a.url });
  });

  it('logs a forwarded call on both nodes in one trace: invocation, routing, envelopes', async () => {
    const r = await post(`${a.url}/v1/execute`, esrpRequest('math.evaluate', { expression: '2*(3+4)^2' }), {
      traceparent: `00-${TRACE}-00f067aa0ba902b7-01`,
    });
    expect(resultOf(r.body)).toEqual({ expression: '2*(3+4)^2', value: 98 });
    const inTrace = (l: Line): boolean => l['trace_id'] === TRACE;

    const onA = await lineOf(a, 'A’s invocation line', (l) => inTrace(l) && l['event'] === 'invocation');
    expect(onA).toMatchObject({ level: 'info', verb: 'math.evaluate', status: 'success', face: 'esrp' });
    expect(onA['span_id']).toMatch(/^[\da-f]{16}$/);
    for (const key of ['timestamp', 'tenant_id', 'user_id', 'duration_ms', 'effects_executed', 'cache_hit'])
      expect(onA).toHaveProperty(key);
    expect(await lineOf(a, 'A’s routing line', (l) => inTrace(l) && l['event'] === 'routing')).toMatchObject({
      path: 'remote',
      outcome: 'success',
    });
    const sent = await lineOf(a, 'A’s sent envelope', (l) => inTrace(l) && l['event'] === 'envelope.sent');
    expect(sent).toMatchObject({ level: 'debug', kind: 'request', verb: 'math.evaluate' });
    expect(String(sent['peer'])).toContain(b.url);
    expect(
      await lineOf(a, 'A’s received answer', (l) => inTrace(l) && l['event'] === 'envelope.received'),
    ).toMatchObject({ kind: 'response', status: 200 });

    expect(
      await lineOf(b, 'B’s received envelope', (l) => inTrace(l) && l['event'] === 'envelope.received'),
    ).toMatchObject({ kind: 'request', peer: a.nodeId });
    expect(
      await lineOf(b, 'B’s invocation line', (l) => inTrace(l) && l['event'] === 'invocation'),
    ).toMatchObject({
      face: 'peer',
      status: 'success',
    });
    expect(await lineOf(b, 'B’s routing line', (l) => inTrace(l) && l['event'] === 'routing')).toMatchObject({
      path: 'local',
    });
  });

  it('refuses a log level or format it does not know, before starting', () => {
    const run = spawnSync(process.execPath, [BIN, 'start', '--memory', '--log-level', 'loud'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      '--log-level must be one of trace, debug, info, warn, error, silent, got "loud"',
    );
    expect(run.stdout).toBe('');
    expect(() => startLogFormat({ logFormat: 'xml' })).toThrow(
      '--log-format must be json or pretty, got "xml"',
    );
    expect(startLogLevel({ verbose: true })).toBe('debug');
    expect(startLogLevel({ verbose: true, logLevel: 'warn' })).toBe('warn');
  }, 60_000);
});
