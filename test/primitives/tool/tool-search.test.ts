import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  avgLatencyOf,
  discoverTools,
  latencyOf,
  matchesGeo,
  matchesText,
  reputationOf,
  successRateOf,
  words,
  type ToolRecord,
} from '../../../src/primitives/tool/index.js';

function record(extra: Partial<ToolRecord> = {}): ToolRecord {
  return {
    toolId: 'tool-1',
    name: 'web-search',
    description: 'Full-text web search',
    schema: { input: true, output: true },
    capabilities: [],
    verb: 'search.web',
    prior: 0.5,
    peerId: 'p',
    owner: 'o',
    at: '2026-01-01T00:00:00.000Z',
    registeredAt: '2026-01-01T00:00:00.000Z',
    invocations: 0,
    successes: 0,
    totalDuration: 0,
    ...extra,
  };
}

describe('tool search', () => {
  it('splits text into lower-case words of any script', () => {
    expect(words('Full-text WEB search, v2 — café')).toEqual(['full', 'text', 'web', 'search', 'v2', 'café']);
  });

  it('matches a query made of prefixes of the tool’s own words', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.nat(8),
        (ws, pick, cut) => {
          const tool = { name: ws.join('-'), description: '' };
          const w = ws[pick % ws.length]!;
          return matchesText(tool, w.slice(0, Math.max(1, cut))) && matchesText(tool, ws.join(' '));
        },
      ),
    );
    expect(matchesText({ name: 'web-search', description: '' }, 'image')).toBe(false);
  });

  it('matches a region and its sub-regions only', () => {
    expect(matchesGeo('us-east', 'us')).toBe(true);
    expect(matchesGeo('us-east-1', 'us-east')).toBe(true);
    expect(matchesGeo('us-east', 'us-e')).toBe(false);
    expect(matchesGeo(undefined, 'us')).toBe(false);
  });

  it('keeps reputation a blend of the prior and the observed rate, within 0…1', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat(10_000),
        fc.nat(10_000),
        fc.nat(50),
        (prior, a, b, w) => {
          const invocations = Math.max(a, b);
          const successes = Math.min(a, b);
          const r = reputationOf(record({ prior, invocations, successes }), { priorWeight: w });
          const rate = invocations === 0 ? prior : successes / invocations;
          // A blend: between the prior and the observed rate (equal to the rate with no prior weight).
          const lo = Math.min(prior, rate) - 1e-4;
          const hi = Math.max(prior, rate) + 1e-4;
          return r >= 0 && r <= 1 && r >= lo && r <= hi && (w > 0 || Math.abs(r - rate) < 1e-4);
        },
      ),
    );
    expect(reputationOf(record({ prior: 0.8 }))).toBe(0.8);
    expect(reputationOf(record({ prior: 0.5, invocations: 10, successes: 10 }))).toBe(0.75);
    expect(reputationOf(record({ prior: 0.9, invocations: 10_000, successes: 0 }))).toBeLessThan(0.001);
  });

  it('reports 0 latency and success rate before any call, and rounded averages after', () => {
    expect(avgLatencyOf(record())).toBe(0);
    expect(successRateOf(record())).toBe(0);
    expect(avgLatencyOf(record({ invocations: 3, totalDuration: 100 }))).toBe(33);
    expect(successRateOf(record({ invocations: 3, successes: 2 }))).toBe(0.6667);
  });
});

describe('latency of mesh tools (MESH-43)', () => {
  const state = (...tools: ToolRecord[]) => ({
    tools: new Map(tools.map((t) => [t.toolId, t])),
    byOwnerName: new Map<string, string>(),
  });
  const ids = (found: unknown[]) => found.map((t) => (t as { id: string }).id);

  it('filters by the measured round trip before any call, by the calls after', () => {
    const far = record({ toolId: 'far', latencyMs: 120 });
    const near = record({ toolId: 'near', latencyMs: 3 });
    const called = record({ toolId: 'called', latencyMs: 1, invocations: 2, totalDuration: 900 });
    const unknown = record({ toolId: 'unknown' });
    expect(latencyOf(far)).toBe(120);
    expect(latencyOf(called)).toBe(450);
    expect(latencyOf(unknown)).toBeUndefined();
    const found = discoverTools(state(far, near, called, unknown), { query: '', maxLatency: 100 });
    expect(ids(found).sort()).toEqual(['near', 'unknown']);
    // ranked by reputation (equal), then latency: unknown counts as 0
    expect(ids(discoverTools(state(far, near, unknown), { query: '' }))).toEqual(['unknown', 'near', 'far']);
    expect((found.find((t) => (t as { id: string }).id === 'near') as { latency: number }).latency).toBe(3);
  });
});
