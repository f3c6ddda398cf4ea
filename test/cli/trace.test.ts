import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceView } from '../../src/observability/trace-spans.js';
import { createNode, withDataDirLog } from '../../src/node/index.js';
import { createPlexus, newTraceparent, traceIdOf } from '../../src/sdk/index.js';
import { conceptAgent, soulAgent } from '../sdk/sdk-fixtures.js';
import { runCli } from './run-cli.js';

describe('plexus trace', () => {
  let dir: string;
  const parent = newTraceparent();
  const traceId = traceIdOf(parent)!;
  const unrelated = newTraceparent();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-trace-'));
    const node = createNode({ dataDir: dir, port: 0, dev: true });
    await node.start();
    try {
      const plexus = createPlexus({ node });
      await plexus.register(soulAgent);
      await plexus.register(conceptAgent);
      // reflect → (nested) recall; a two-step pipeline; a failing call — all in one trace
      await plexus.invoke('soul.mind.reflect', { text: 'rain' }, { traceparent: parent });
      await plexus
        .compose('soul.memory.store', 'concept.summary.shout')
        .run({ text: 'tea time' }, { traceparent: parent });
      await plexus
        .invoke('soul.memory.recall', { query: 'missing' }, { traceparent: parent })
        .catch(() => undefined);
      await plexus.invoke('concept.summary.shout', { text: 'elsewhere' }, { traceparent: unrelated });
    } finally {
      await node.stop({ drainMs: 0 });
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('draws the spans of one trace as a waterfall', async () => {
    const { code, out, err } = await runCli([
      'trace',
      traceId,
      '--data',
      dir,
      '--width',
      '140',
      '--no-color',
    ]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^trace ${traceId} · 5 spans · `));
    const rows = lines.filter((l) => l.includes('|'));
    expect(rows.map((l) => l.slice(0, l.search(/ {2}[0-9a-f]{16}/)).trimEnd())).toEqual([
      'soul.mind.reflect',
      '  soul.memory.recall',
      'soul.memory.store',
      'concept.summary.shout',
      'soul.memory.recall',
    ]);
    expect(rows.slice(0, 4).every((l) => /\sok\s/.test(l))).toBe(true);
    expect(rows[4]).toMatch(/failed NOT_FOUND/);
    expect(rows.every((l) => l.includes('█') && l.length <= 140)).toBe(true);
    expect(out).toMatch(/· soul\.memory\.recalled/);
    expect(out).toMatch(/· soul\.memory\.stored/);
    expect(out).not.toContain('elsewhere');
    expect(out).not.toContain('\u001b[');
  });

  it('prints JSON whose span ids are the parent ids of the requests traceparents', async () => {
    const { code, out } = await runCli(['trace', parent, '--data', dir, '--json']);
    expect(code).toBe(0);
    const view = JSON.parse(out) as TraceView;
    expect(view.traceId).toBe(traceId);
    const sent = await withDataDirLog(dir, async (log) =>
      (await log.read({ trace: traceId, type: 'job.submitted' })).map((e) => ({
        job: e.causation,
        span: e.trace?.split('-')[2],
      })),
    );
    expect(sent).toHaveLength(5);
    for (const { job, span } of sent) expect(view.spans.find((s) => s.jobId === job)?.spanId).toBe(span);
    expect(new Set(view.spans.map((s) => s.spanId)).size).toBe(5);
    const [reflect, recall] = view.spans;
    expect(recall?.parentJobId).toBe(reflect?.jobId);
    expect(view.spans.filter((s) => s.depth === 0)).toHaveLength(4);
  });

  it('exits 1 for an unknown trace, a bad trace id, or a directory without a log', async () => {
    const unknown = await runCli(['trace', 'ab'.repeat(16), '--data', dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no job in the event log of .* carries trace abababab/);
    const bad = await runCli(['trace', 'not-a-trace', '--data', dir]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/TRACE_ID must be a 32-hex trace id or a traceparent/);
    const empty = await runCli(['trace', traceId, '--data', join(dir, 'nothing-here')]);
    expect(empty.code).toBe(1);
    expect(empty.err).toMatch(/no event log/);
    const width = await runCli(['trace', traceId, '--data', dir, '--width', 'wide']);
    expect(width.code).toBe(1);
    expect(width.err).toMatch(/--width/);
  });
});
