import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { counterTable, histogramTable, promNumber } from '../../src/observability/metrics/series-table.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

/**
 * The samples of a scrape as comparable strings: name, labels sorted by name (their values
 * kept escaped, exactly as written), value — so two writers of the same figures compare equal
 * whatever order they write labels and series in.
 */
function samplesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`bad sample line: ${line}`);
    const labels: string[] = [];
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    let read = 0;
    for (let l = LABEL.exec(body); l !== null; l = LABEL.exec(body)) {
      labels.push(`${l[1]!}=${l[2]!}`);
      read = LABEL.lastIndex;
    }
    if (read !== body.length) throw new Error(`bad labels: ${line}`);
    out.push(`${m[1]!}{${labels.sort().join(',')}} ${m[3]!}`);
  }
  return out.sort();
}

/** HELP and TYPE lines, in order. */
const headersOf = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('#'));

/** Label values with the characters the format escapes, and plain ones. */
const labelValue = fc.oneof(
  fc.constantFrom('a.b', 'tenant-1', 'other', 'none', ''),
  fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '\n', 'n', ' ', 'é'), maxLength: 6 }),
);
/** Observations: seconds, on and between bucket bounds. */
const observed = fc.oneof(fc.constantFrom(0, ...BUCKETS, 11), fc.double({ min: 0, max: 20, noNaN: true }));

describe('series tables (OBS-51)', () => {
  it('write the same samples and headers as prom-client for the same observations, scraped twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(labelValue, labelValue, observed), { maxLength: 60 }),
        async (observations) => {
          const registry = new Registry();
          const init = { name: 'x_seconds', help: 'Time, \\ and\nnewline.', labelNames: ['verb', 'tenant'] };
          const promHistogram = new Histogram({ ...init, buckets: BUCKETS, registers: [registry] });
          const promCounter = new Counter({ ...init, name: 'x_total', registers: [registry] });
          const histogram = histogramTable(init, BUCKETS);
          const counter = counterTable({ ...init, name: 'x_total' });
          for (const [i, [verb, tenant, seconds]] of observations.entries()) {
            // a scrape half way: the series it renders must not keep their old text after
            if (i === Math.floor(observations.length / 2)) histogram.render([]);
            promHistogram.observe({ verb, tenant }, seconds);
            promCounter.inc({ verb, tenant }, seconds);
            histogram.observe([verb, tenant], seconds);
            counter.inc([verb, tenant], seconds);
          }
          const out: string[] = [];
          histogram.render(out);
          counter.render(out);
          const ours = out.join('\n');
          const theirs = await registry.metrics();
          expect(samplesOf(ours)).toEqual(samplesOf(theirs));
          expect(headersOf(ours)).toEqual(headersOf(theirs));
          const again: string[] = []; // nothing observed since: the same text
          histogram.render(again);
          counter.render(again);
          expect(again.join('\n')).toBe(ours);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('add every series up: cumulative buckets, sum, count, and totals by label', () => {
    const histogram = histogramTable({ name: 'h', help: 'h', labelNames: ['verb'] }, [1, 2]);
    for (const [verb, s] of [
      ['a', 0.5],
      ['b', 1.5],
      ['a', 3],
      ['b', 1],
    ] as const)
      histogram.observe([verb], s);
    expect(histogram.total()).toEqual({ buckets: [2, 3, 4], sum: 6, count: 4 });
    const counter = counterTable({ name: 'c_total', help: 'c', labelNames: ['verb', 'status'] });
    counter.inc(['a', 'success']);
    counter.inc(['a', 'TIMEOUT'], 2);
    counter.inc(['b', 'success'], 3);
    expect(counter.total()).toBe(6);
    expect(counter.total({ label: 'status', value: 'success' })).toBe(2);
    const out: string[] = [];
    counter.render(out);
    const scrape = parsePrometheusText(out.join('\n'));
    expect(scrape.types.get('c_total')).toBe('counter');
    expect(sampleValue(scrape, 'c_total', { verb: 'a', status: 'TIMEOUT' })).toBe(2);
  });

  it('writes only the headers of a family with no series, like prom-client', async () => {
    const out: string[] = [];
    histogramTable({ name: 'h', help: 'h', labelNames: ['verb'] }, [1]).render(out);
    const registry = new Registry();
    new Histogram({ name: 'h', help: 'h', labelNames: ['verb'], buckets: [1], registers: [registry] });
    expect(out.join('\n')).toBe((await registry.metrics()).trimEnd());
  });

  it('refuses bucket bounds that are not finite and ascending', () => {
    for (const bad of [[1, 1], [2, 1], [1, Infinity], [Number.NaN]])
      expect(() => histogramTable({ name: 'h', help: 'h', labelNames: [] }, bad)).toThrow(RangeError);
  });

  it('writes numbers as prom-client does', () => {
    expect([NaN, Infinity, -Infinity, 0.1, 1e21, 3].map(promNumber)).toEqual([
      'Nan',
      '+Inf',
      '-Inf',
      '0.1',
      '1e+21',
      '3',
    ]);
  });
});
