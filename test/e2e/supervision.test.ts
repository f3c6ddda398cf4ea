import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withDataDirLog } from '../../src/node/index.js';
import { useBuiltDist } from '../support/e2e-fixture.js';
import { BIN, esrpRequest, exitOf, post, startNodeProcess } from './harness.js';

// A supervision tree configured in plexus.yaml, in a real node process (issue 4, §11.3).
useBuiltDist();

const CONFIG = `
supervision:
  id: town
  strategy: one-for-all
  maxRestarts: 1
  periodMs: 600000
  children: [demo, echo]
`;

/** A sync demo.slow call that outlives its 150 ms deadline (a hang, for the tree). */
function hangingCall(traceId: string) {
  return esrpRequest('demo.slow', { seconds: 30, steps: 30 }, 'sync', {
    mode: { type: 'sync', timeout_ms: 150 },
    context: { trace_id: traceId, span_id: randomUUID(), tags: null },
  });
}

describe('a node with a supervision tree in plexus.yaml', () => {
  it('restarts the group on a hang, gives up past the intensity with UNAVAILABLE naming agent and supervisor, keeps serving the rest', async () => {
    const node = await startNodeProcess({ config: CONFIG });
    const echo = (n: number) => post(`${node.url}/v1/execute`, esrpRequest('echo.echo', { n }));
    expect((await echo(1)).status).toBe(200);

    const firstTrace = randomUUID();
    const first = await post(`${node.url}/v1/execute`, hangingCall(firstTrace));
    expect(first.body.error.details.plexus_code).toBe('TIMEOUT');
    // one-for-all: echo was restarted with demo and still answers
    expect((await echo(2)).status).toBe(200);

    const second = await post(`${node.url}/v1/execute`, hangingCall(randomUUID()));
    expect(second.body.error.details.plexus_code).toBe('TIMEOUT');
    // past 1 restart in the period the root gives up: its agents are unavailable, the node is not
    let refused = await echo(3);
    for (let i = 0; i < 100 && refused.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      refused = await echo(4 + i);
    }
    expect(refused.status).toBe(503);
    expect(refused.body.error.details.plexus_code).toBe('UNAVAILABLE');
    expect(refused.body.error.message).toContain('agent echo is unavailable: its supervisor town gave up');
    const math = await post(`${node.url}/v1/execute`, esrpRequest('math.evaluate', { expression: '6*7' }));
    expect(math.status).toBe(200);

    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);

    const events = await withDataDirLog(node.dataDir, (log) => log.read({ typePrefix: 'supervision.' }));
    expect(events.map((e) => e.type)).toEqual([
      'supervision.child_failed',
      'supervision.restarted',
      'supervision.child_failed',
      'supervision.gave_up',
    ]);
    expect(events[0]?.data).toMatchObject({ agent: 'demo', supervisor: 'town', kind: 'hang' });
    expect(events[1]?.data).toMatchObject({ supervisor: 'town', agents: ['demo', 'echo'], failed: 'demo' });
    expect(events[3]?.data).toMatchObject({ supervisor: 'town', agents: ['demo', 'echo'] });

    // plexus trace shows the failure as a mark on the hanging job's span
    const trace = spawnSync(
      process.execPath,
      [BIN, 'trace', firstTrace.replace(/-/g, ''), '--data', node.dataDir, '--json'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(trace.status, trace.stderr).toBe(0);
    const view = JSON.parse(trace.stdout) as { spans: { verb: string; marks: { type: string }[] }[] };
    expect(view.spans[0]?.verb).toBe('demo.slow');
    expect(view.spans[0]?.marks.map((m) => m.type)).toEqual([
      'supervision.child_failed',
      'supervision.restarted',
    ]);
  });
});
