import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeVector,
  encodeVector,
  normalizeInPlace,
  vectorIndex,
  type VectorIndex,
  type VectorLabels,
} from '../../../src/primitives/memory/index.js';
import { seededRandom } from '../../../src/primitives/memory/product-quantizer.js';

const DIM = 32;
const W: VectorLabels = { tenant: null, session: null, tier: 'working' };

/** Clustered unit vectors: 40 centres, each point a centre plus noise. */
function clustered(n: number, seed = 3): Float32Array[] {
  const random = seededRandom(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: DIM }, gauss));
  return Array.from({ length: n }, (_, i) => {
    const c = centres[i % centres.length]!;
    return normalizeInPlace(Float32Array.from(c, (x) => x + 0.6 * gauss()));
  });
}

describe('vectorIndex', () => {
  it('finds what the exact scan finds (recall@10 >= 0.9) once trained on 3,000 vectors', () => {
    const data = clustered(3000);
    const index = vectorIndex({ dimensions: DIM, subspaces: 8, trainAt: 1000, rerank: 64 });
    data.forEach((v, i) => {
      index.upsert(`k${i}`, v, W);
    });
    index.build();
    expect(index.stats()).toMatchObject({ size: 3000, trained: true, trainedOn: 3000, subspaces: 8 });
    const queries = clustered(60, 9);
    let recall = 0;
    for (const q of queries) {
      const exact = index.searchExact(q, { limit: 10, tenant: null });
      const approx = index.search(q, { limit: 10, tenant: null });
      expect(exact).toHaveLength(10);
      const truth = new Set(exact.map((h) => h.key));
      recall += approx.filter((h) => truth.has(h.key)).length / 10;
      // similarities are exact even when the candidate set is approximate
      for (const h of approx)
        expect(h.similarity).toBeCloseTo(exact.find((e) => e.key === h.key)?.similarity ?? h.similarity, 5);
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.9);
  });

  it('filters by tenant, session and tier inside the scan', () => {
    const data = clustered(2000);
    const index = vectorIndex({ dimensions: DIM, subspaces: 8, trainAt: 500, exactSubset: 10 });
    data.forEach((v, i) => {
      index.upsert(`k${i}`, v, {
        tenant: i % 2 === 0 ? 'a' : 'b',
        session: `s${i % 50}`,
        tier: i % 3 === 0 ? 'archival' : 'working',
      });
    });
    index.build();
    const q = data[7]!;
    const hits = index.search(q, { limit: 20, tenant: 'b', tier: 'archival' });
    expect(hits.length).toBe(20);
    for (const h of hits) {
      const i = Number(h.key.slice(1));
      expect(i % 2).toBe(1);
      expect(i % 3).toBe(0);
    }
    const session = index.search(q, { limit: 100, tenant: 'b', session: 's7' });
    expect(session.map((h) => h.key).sort()).toEqual(
      Array.from({ length: 40 }, (_, j) => `k${7 + 50 * j}`)
        .filter((k) => Number(k.slice(1)) % 2 === 1)
        .sort(),
    );
    expect(index.search(q, { limit: 5, tenant: 'nobody' })).toEqual([]);
    expect(index.search(q, { limit: 5, tenant: null })).toEqual([]);
    expect(index.search(q, { limit: 5, tenant: 'a', session: 'unknown' })).toEqual([]);
  });

  it('applies the threshold and the limit, best first, ties by key', () => {
    const index = vectorIndex({ dimensions: 4 });
    index.upsert('b', Float32Array.of(1, 0, 0, 0), W);
    index.upsert('a', Float32Array.of(2, 0, 0, 0), W);
    index.upsert('c', Float32Array.of(1, 1, 0, 0), W);
    index.upsert('d', Float32Array.of(0, 0, 1, 0), W);
    const q = Float32Array.of(1, 0, 0, 0);
    expect(
      index
        .search(q, { limit: 10, tenant: null, threshold: 0.5 })
        .map((h) => [h.key, Number(h.similarity.toFixed(3))]),
    ).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 0.707],
    ]);
    expect(index.search(q, { limit: 1, tenant: null }).map((h) => h.key)).toEqual(['a']);
  });

  it('keeps answers right through removals, replacements and relabels (property, against a naive scan)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('add', 'remove', 'archive'), fc.integer({ min: 0, max: 30 })), {
          maxLength: 80,
        }),
        (ops) => {
          const vecs = clustered(31, 5);
          const index = vectorIndex({ dimensions: DIM });
          const model = new Map<string, string>();
          for (const [op, i] of ops) {
            const key = `k${i}`;
            if (op === 'add') {
              index.upsert(key, vecs[i]!, W);
              model.set(key, 'working');
            } else if (op === 'remove') {
              expect(index.remove(key)).toBe(model.delete(key));
            } else if (model.has(key)) {
              expect(index.relabel(key, { ...W, tier: 'archival' })).toBe(true);
              model.set(key, 'archival');
            }
          }
          expect(index.size).toBe(model.size);
          const q = vecs[0]!;
          const got = index
            .search(q, { limit: 50, tenant: null, tier: 'working' })
            .map((h) => h.key)
            .sort();
          const want = [...model]
            .filter(([, t]) => t === 'working')
            .map(([k]) => k)
            .sort();
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('rejects vectors of the wrong size and bad limits', () => {
    const index = vectorIndex({ dimensions: 4 });
    expect(() => {
      index.upsert('x', new Float32Array(3), W);
    }).toThrow(/3 dimensions/);
    expect(() => index.search(new Float32Array(5), { limit: 1, tenant: null })).toThrow(/5 dimensions/);
    expect(() => index.search(new Float32Array(4), { limit: 0, tenant: null })).toThrow(/limit/);
    expect(() => vectorIndex({ dimensions: 0 })).toThrow(/dimensions/);
  });
});

/** A scheduler the test drives: slices run only when `runOne` / `runAll` says so. */
function manualScheduler(): {
  schedule: (run: () => void) => void;
  readonly pending: number;
  runOne(): boolean;
  runAll(): number;
} {
  const queue: (() => void)[] = [];
  return {
    schedule: (run) => {
      queue.push(run);
    },
    get pending() {
      return queue.length;
    },
    runOne() {
      const run = queue.shift();
      run?.();
      return run !== undefined;
    },
    runAll() {
      let n = 0;
      while (queue.length > 0) {
        queue.shift()?.();
        n++;
      }
      return n;
    },
  };
}

describe('vectorIndex background training', () => {
  const Q = { limit: 10, tenant: null };

  it('trains and codes in slices, answering exactly meanwhile', () => {
    const clock = manualScheduler();
    const data = clustered(3000);
    const index = vectorIndex({
      dimensions: DIM,
      subspaces: 8,
      trainAt: 1000,
      rerank: 64,
      sliceMs: 0,
      schedule: clock.schedule,
    });
    data.forEach((v, i) => {
      index.upsert(`k${i}`, v, W);
    });
    expect(clock.pending).toBe(1); // scheduled, not run: upserts never train
    expect(index.stats()).toMatchObject({ trained: false, building: true, coded: 0 });
    const queries = clustered(20, 9);
    let slices = 0;
    while (index.stats().building && slices < 50) {
      clock.runOne();
      slices++;
      // not trained yet: every search is the exact one
      for (const q of queries.slice(0, 3)) expect(index.search(q, Q)).toEqual(index.searchExact(q, Q));
    }
    expect(slices).toBe(50);
    expect(index.stats()).toMatchObject({ trained: false, building: true });
    const rest = clock.runAll();
    expect(rest).toBeGreaterThan(0);
    const stats = index.stats();
    expect(stats).toMatchObject({
      trained: true,
      building: false,
      coded: 3000,
      trainedOn: 3000,
      trainings: 1,
    });
    expect(stats.background.slices).toBe(50 + rest);
    let recall = 0;
    for (const q of queries) {
      const truth = new Set(index.searchExact(q, Q).map((h) => h.key));
      recall += index.search(q, Q).filter((h) => truth.has(h.key)).length / 10;
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps codes right through changes made while it codes (same codes as a synchronous build)', () => {
    const data = clustered(2400, 4);
    const extra = clustered(400, 8);
    const opts = { dimensions: DIM, subspaces: 8, trainAt: 1000 };
    const clock = manualScheduler();
    const slow = vectorIndex({ ...opts, sliceMs: 0, schedule: clock.schedule });
    const sync = vectorIndex({ ...opts, background: false });
    data.forEach((v, i) => {
      slow.upsert(`k${i}`, v, W);
      sync.upsert(`k${i}`, v, W);
    });
    clock.runOne(); // the background training copies its sample now, as build() does
    sync.build();
    const live = new Set(data.map((_, i) => `k${i}`));
    let op = 0;
    const change = (index: VectorIndex): void => {
      const i = op;
      if (i % 3 === 0) index.remove(`k${(i * 37) % 2400}`);
      else if (i % 3 === 1) index.upsert(`k${(i * 53) % 2400}`, extra[i % 400]!, W);
      else index.upsert(`n${i}`, extra[(i * 7) % 400]!, W);
    };
    while (clock.pending > 0) {
      change(slow);
      change(sync);
      const i = op++;
      if (i % 3 === 0) live.delete(`k${(i * 37) % 2400}`);
      else live.add(i % 3 === 1 ? `k${(i * 53) % 2400}` : `n${i}`);
      clock.runOne();
    }
    expect(op).toBeGreaterThan(30);
    expect(slow.size).toBe(live.size);
    expect(sync.size).toBe(live.size);
    expect(slow.stats()).toMatchObject({ trained: true, coded: live.size, trainedOn: 2400 });
    for (const key of live) {
      const code = slow.codeOf(key);
      expect(code, key).toBeDefined();
      expect([...code!], key).toEqual([...sync.codeOf(key)!]);
    }
  });

  it('retrains in the background once grown, searching with the old codes meanwhile', async () => {
    const clock = manualScheduler();
    const data = clustered(1300, 6);
    const index = vectorIndex({
      dimensions: DIM,
      subspaces: 8,
      trainAt: 600,
      retrainGrowth: 2,
      schedule: clock.schedule,
    });
    data.slice(0, 600).forEach((v, i) => {
      index.upsert(`k${i}`, v, W);
    });
    clock.runAll();
    await index.whenIdle();
    expect(index.stats()).toMatchObject({ trained: true, trainedOn: 600, trainings: 1, coded: 600 });
    data.slice(600, 1199).forEach((v, i) => {
      index.upsert(`k${600 + i}`, v, W);
    });
    // caught up: new entries are coded at once with the codes in use; no retraining yet
    expect(index.stats()).toMatchObject({ trainedOn: 600, coded: 1199, building: false });
    index.upsert('k1199', data[1199]!, W);
    expect(index.stats()).toMatchObject({ trainedOn: 600, coded: 1200, building: true });
    const q = data[5]!;
    expect(index.search(q, { ...Q, limit: 1 })[0]?.key).toBe('k5');
    const idle = index.whenIdle();
    clock.runAll();
    await idle;
    expect(index.stats()).toMatchObject({ trainedOn: 1200, trainings: 2, coded: 1200, building: false });
  });

  it('stops background work at close and still answers', async () => {
    const clock = manualScheduler();
    const data = clustered(1200, 2);
    const index = vectorIndex({ dimensions: DIM, subspaces: 8, trainAt: 1000, schedule: clock.schedule });
    data.forEach((v, i) => {
      index.upsert(`k${i}`, v, W);
    });
    expect(index.stats().building).toBe(true);
    index.close();
    await index.whenIdle();
    expect(index.stats()).toMatchObject({ building: false, trained: false });
    clock.runAll(); // a slice scheduled before close does nothing
    index.upsert('late', data[0]!, W);
    expect(clock.pending).toBe(0);
    expect(index.stats()).toMatchObject({ trained: false, trainings: 0 });
    expect(index.search(data[3]!, { ...Q, limit: 1 })[0]?.key).toBe('k3');
    index.build(); // an explicit build still trains
    expect(index.stats()).toMatchObject({ trained: true, coded: 1201 });
  });
});

describe('vector base64', () => {
  it('round-trips any finite float32 vector (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 64 }), (xs) => {
        const v = Float32Array.from(xs);
        expect(decodeVector(encodeVector(v))).toEqual(v);
      }),
    );
  });

  it('rejects text that is not whole float32s, non-finite values and a wrong length', () => {
    expect(() => decodeVector('not base64!')).toThrow(/base64/);
    expect(() => decodeVector('AAA=')).toThrow(/whole float32/);
    expect(() => decodeVector(encodeVector(Float32Array.of(Infinity)))).toThrow(/non-finite/);
    expect(() => decodeVector(encodeVector(Float32Array.of(1, 2)), 3)).toThrow(/2 dimensions/);
  });
});
