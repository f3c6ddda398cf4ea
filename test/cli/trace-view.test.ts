import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import type { Event } from '../../src/core/records/event.js';
import { formatMs, renderWaterfall, shouldColor } from '../../src/cli/trace-view.js';
import { buildTrace } from '../../src/observability/trace-spans.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
let seq = 0;

function ev(
  type: string,
  job: string,
  ms: number,
  data: Record<string, JsonValue> = {},
  trace?: string,
): Event {
  seq += 1;
  return {
    seq,
    cid: `cid${seq}`,
    prev: null,
    type,
    data: { id: job, ...data },
    causation: job,
    time: new Date(T0 + ms).toISOString(),
    ...(trace === undefined ? {} : { trace }),
  };
}

function submitted(job: string, ms: number, span: string, verb: string, causationId?: string): Event {
  const traceparent = `00-${TRACE}-${span}-01`;
  return ev(
    'job.submitted',
    job,
    ms,
    {
      verb,
      at: new Date(T0 + ms).toISOString(),
      correlationId: `req-${job}`,
      request: { id: `req-${job}`, verb, traceparent, ...(causationId === undefined ? {} : { causationId }) },
    },
    traceparent,
  );
}

function started(job: string, ms: number): Event {
  return ev('job.started', job, ms, {
    at: new Date(T0 + ms).toISOString(),
    agents: ['a1'],
    attempt: 1,
    route: 'local',
  });
}

/** outer (0–100 ms) calls inner (20–60 ms, by job id) and late (70–90 ms, by request id); other fails at 100–200 ms. */
function sample(): Event[] {
  return [
    submitted('outer', 0, 'aaaaaaaaaaaaaaaa', 'soul.mind.reflect'),
    started('outer', 10),
    submitted('inner', 20, 'bbbbbbbbbbbbbbbb', 'soul.memory.recall', 'outer'),
    started('inner', 20),
    ev('job.completed', 'inner', 60, { outputs: null }),
    submitted('late', 70, 'cccccccccccccccc', 'soul.memory.store', 'req-outer'),
    started('late', 70),
    ev('job.completed', 'late', 90, { outputs: null }),
    ev('job.completed', 'outer', 100, { outputs: null }),
    submitted('other', 100, 'dddddddddddddddd', 'concept.summary.compress'),
    started('other', 150),
    ev('job.failed', 'other', 200, {
      error: { code: 'PRECONDITION_FAILED', message: 'no', retryable: false },
    }),
  ];
}

describe('buildTrace', () => {
  it('makes one span per job with offsets, durations, status and nesting', () => {
    const view = buildTrace(TRACE, sample(), [ev('soul.memory.recalled', 'inner', 40)]);
    expect(view).toBeDefined();
    expect(view?.durationMs).toBe(200);
    expect(view?.startedAt).toBe('2025-01-01T00:00:00.000Z');
    expect(view?.spans.map((s) => [s.verb, s.depth, s.offsetMs, s.durationMs, s.status, s.spanId])).toEqual([
      ['soul.mind.reflect', 0, 0, 100, 'ok', 'aaaaaaaaaaaaaaaa'],
      ['soul.memory.recall', 1, 20, 40, 'ok', 'bbbbbbbbbbbbbbbb'],
      ['soul.memory.store', 1, 70, 20, 'ok', 'cccccccccccccccc'],
      ['concept.summary.compress', 0, 100, 100, 'failed', 'dddddddddddddddd'],
    ]);
    expect(view?.spans[1]).toMatchObject({
      parentJobId: 'outer',
      startedMs: 20,
      endedMs: 60,
      agents: ['a1'],
    });
    expect(view?.spans[1]?.marks).toEqual([{ type: 'soul.memory.recalled', offsetMs: 40 }]);
    expect(view?.spans[3]?.error).toEqual({ code: 'PRECONDITION_FAILED', message: 'no' });
  });

  it('keeps unfinished jobs open to the end of the trace', () => {
    const view = buildTrace(TRACE, [
      submitted('q', 0, 'aaaaaaaaaaaaaaaa', 'a.b'),
      submitted('r', 30, 'bbbbbbbbbbbbbbbb', 'a.c'),
      started('r', 50),
    ]);
    expect(view?.spans.map((s) => [s.status, s.durationMs, s.startedMs])).toEqual([
      ['queued', 50, undefined],
      ['running', 20, 50],
    ]);
  });

  it('shows spans whose causation loops as roots', () => {
    const view = buildTrace(TRACE, [
      submitted('x', 0, 'aaaaaaaaaaaaaaaa', 'a.x', 'y'),
      submitted('y', 5, 'bbbbbbbbbbbbbbbb', 'a.y', 'x'),
      submitted('z', 9, 'cccccccccccccccc', 'a.z', 'z'),
    ]);
    expect(view?.spans.map((s) => [s.verb, s.depth])).toEqual([
      ['a.x', 0],
      ['a.y', 0],
      ['a.z', 0],
    ]);
  });

  it('is undefined when no job is in the trace', () => {
    expect(buildTrace(TRACE, [])).toBeUndefined();
    expect(buildTrace(TRACE, [started('x', 0)])).toBeUndefined();
  });
});

describe('renderWaterfall', () => {
  it('draws bars scaled to the width, indented by depth, with queue and work time', () => {
    const view = buildTrace(TRACE, sample(), [ev('soul.memory.recalled', 'inner', 40)])!;
    const text = renderWaterfall(view, { width: 150 });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(`trace ${TRACE} · 4 spans · 200 ms · started 2025-01-01T00:00:00.000Z`);
    expect(lines[1]).toMatch(/^verb\s+span\s+start\s+duration\s+status/);
    expect(lines).toHaveLength(2 + 4 + 1);
    const bars = lines
      .filter((l) => l.includes('|'))
      .map((l) => l.slice(l.indexOf('|') + 1, l.lastIndexOf('|')));
    expect(new Set(bars.map((b) => b.length)).size).toBe(1);
    const width = bars[0]!.length;
    expect(lines.every((l) => l.length <= 150)).toBe(true);
    // outer: queued 0–10 ms, working 10–100 ms: half the bar
    expect(bars[0]!.indexOf('░')).toBe(0);
    expect(bars[0]!.indexOf('█')).toBe(Math.floor((10 / 200) * width));
    expect(bars[0]!.lastIndexOf('█')).toBe(Math.floor((100 / 200) * width));
    // the failed job starts half-way
    expect(bars[3]!.search(/[░█]/)).toBe(Math.floor(width / 2));
    expect(lines[3]).toMatch(/^ {2}soul\.memory\.recall\s+bbbbbbbbbbbbbbbb\s+20 ms\s+40 ms\s+ok/);
    expect(lines[4]).toMatch(/^ {4}· soul\.memory\.recalled\s+40 ms$/);
    expect(lines[6]).toMatch(/failed PRECONDITION_FAILED/);
    expect(text).not.toContain('\u001b[');
  });

  it('colours by status only when asked', () => {
    const view = buildTrace(TRACE, sample())!;
    const text = renderWaterfall(view, { width: 120, color: true });
    expect(text).toContain('\u001b[32m');
    expect(text).toContain('\u001b[31m');
  });

  it('keeps a usable bar on a narrow terminal', () => {
    const view = buildTrace(TRACE, sample())!;
    const bar = renderWaterfall(view, { width: 20 }).split('\n')[2]!;
    expect(bar.slice(bar.indexOf('|') + 1, bar.lastIndexOf('|')).length).toBeGreaterThanOrEqual(10);
  });
});

describe('shouldColor and formatMs', () => {
  it('colours a terminal unless NO_COLOR or --no-color', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({}, {})).toBe(false);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({ isTTY: true }, {}, false)).toBe(false);
  });

  it('writes durations', () => {
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(999)).toBe('999 ms');
    expect(formatMs(1234)).toBe('1.23 s');
    expect(formatMs(125_000)).toBe('2 min 5 s');
  });
});
