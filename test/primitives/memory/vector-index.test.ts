import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeVector,
  encodeVector,
  normalizeInPlace,
  vectorIndex,
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
