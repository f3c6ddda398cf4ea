// The benchmark report's arithmetic (bench/node/report.js): the 2-core ceiling of a row and
// the budget lines that say whether a target is within what the machine allows. Pure
// functions over made-up rows; no load is run.
import { describe, expect, it } from 'vitest';
import {
  budgetLines,
  capacityLines,
  ceiling,
  ratioLines,
  table,
  type Row,
  type Target,
} from '../../bench/node/report.js';

function row(name: string, rps: number, serverCpu: number, loadCpu: number): Row {
  return {
    name,
    client: 'http',
    clients: 50,
    sent: rps,
    ok: rps,
    errors: 0,
    firstError: undefined,
    seconds: 1,
    rps,
    p50: 1,
    p90: 2,
    p99: 3,
    max: 4,
    serverCpu,
    loadCpu,
    serverMainCpu: serverCpu,
    serverUsPerCall: (serverCpu * 1e6) / rps,
    rounds: 1,
    rpsMin: rps,
    rpsMax: rps,
  };
}

// bare: 10,000 req/s, server 50 µs + load 100 µs per request; face: 2,000 req/s, 400 µs + 50 µs.
const bare = row('bare', 10_000, 0.5, 1.0);
const face = row('face', 2_000, 0.8, 0.1);
const slow = row('slow', 100, 0.5, 0.5);

/** A target of the face against `baseline`, over the bare transport. */
function over(baseline: string | string[], min: number): Target {
  return { subject: 'face', baseline, min, label: `>= ${min}x`, transport: 'bare' };
}

/** The four-event log of these tests: 100 µs a call. */
const LOG = { usPerCall: 100, eventsPerCall: 4 };

describe('bench report', () => {
  it('puts the 2-core ceiling where server and load generator would fill both cores', () => {
    expect(ceiling(bare, 2)).toBeCloseTo((10_000 * 2) / 1.5);
    expect(ceiling(face, 2)).toBeCloseTo((2_000 * 2) / 0.9);
    expect(ceiling({ ...bare, loadCpu: undefined }, 2)).toBeUndefined();
    expect(table([bare], new Map(), 2)).toContain('| 13,333 |');
  });

  it('says a target is beyond the floor when the transport, the client and the log alone exceed the cores', () => {
    const target = over('slow', 100);
    // needs 10,000 req/s; floor 50 + 100 + 100 µs = 250 µs → at most 8,000 req/s on 2 cores
    const [line] = budgetLines([bare, face, slow], [target], 2, LOG);
    expect(line).toContain('needs 10,000 req/s');
    expect(line).toContain('= 250 µs CPU per call, at most 8,000 req/s on 2 cores');
    expect(line).toContain('CANNOT be met on this machine');
  });

  it('gives no verdict when the target is under the floor, and names only the baselines beyond it', () => {
    const reachable = over('slow', 10);
    const [under] = budgetLines([bare, face, slow], [reachable], 2, LOG);
    expect(under).toContain('needs 1,000 req/s');
    expect(under).not.toContain('CANNOT');
    const fast = row('fast', 1_000, 0.5, 0.5);
    const mixed = over(['slow', 'fast'], 20);
    // needs 2,000 (slow) and 20,000 (fast); at most 8,000
    const [line] = budgetLines([bare, face, slow, fast], [mixed], 2, LOG);
    expect(line).toContain('needs 2,000–20,000 req/s');
    expect(line).toContain('CANNOT be met here against fast');
  });

  it('judges by the cheaper log model when a merged-event figure is given', () => {
    const target = over('slow', 100);
    // needs 10,000 req/s; 4 events: 250 µs → 8,000; one merged event: 150 + 40 = 190 µs → 10,526
    const [line] = budgetLines([bare, face, slow], [target], 2, { ...LOG, mergedUsPerCall: 40 });
    expect(line).toContain('at most 8,000 req/s on 2 cores');
    expect(line).toContain('with one merged event per call 190 µs, at most 10,526 req/s');
    expect(line).not.toContain('CANNOT');
  });

  it('skips targets without a transport and keeps the ratio lines', () => {
    const plain: Target = { subject: 'face', baseline: 'bare', min: 0.3, label: '>= 30% of bare' };
    expect(budgetLines([bare, face], [plain], 2)).toEqual([]);
    expect(ratioLines([bare, face], [plain])).toEqual(['- face >= 30% of bare: 20% of bare — NOT MET']);
  });

  it('compares servers by CPU per call and shows the most the stock client lets the harness show', () => {
    // SDK server: 500 req/s at 60% of a core (1,200 µs a call), its client at 70% (1,400 µs a call).
    const sdk = row('sdk', 500, 0.6, 0.7);
    // Plexus: 400 req/s at 16% (400 µs a call): 3x the SDK's capacity, 0.8x its throughput.
    const ours = row('ours', 400, 0.16, 0.7);
    const target: Target = { subject: 'ours', baseline: 'sdk', min: 2, label: '>= 2x', capacity: true };
    const [line] = capacityLines([sdk, ours], [target]);
    expect(line).toContain('server capacity 3.00x (CPU per call 400 µs against 1,200 µs) — MET by capacity');
    // (1,400 + 1,200) / 1,400 = 1.86x at most, below the 2x target
    expect(line).toContain('the stock client costs 1,400 µs a call, so this harness shows at most 1.86x');
    expect(line).toContain('CANNOT be shown on this machine');
    const cheap = row('cheap', 1_000, 0.6, 0.2); // client 200 µs a call: at most 4x
    const [ok] = capacityLines([cheap, ours], [{ ...target, baseline: 'cheap' }]);
    expect(ok).toContain('NOT MET by capacity');
    expect(ok).not.toContain('CANNOT');
    expect(capacityLines([sdk, ours], [{ ...target, capacity: false }])).toEqual([]);
  });
});
