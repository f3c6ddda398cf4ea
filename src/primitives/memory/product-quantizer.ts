/**
 * Product quantisation (Jégou, Douze & Schmid, "Product quantization for nearest neighbor
 * search", 2011): a vector is cut into `subspaces` slices, each slice replaced by the nearest
 * of 256 centroids learnt by k-means on a sample, so a vector is stored as one byte a slice.
 * A query is compared with a code by asymmetric distance: a table of query·centroid inner
 * products (`subspaces × 256`) is built once a query, then a code's score is `subspaces`
 * table look-ups and additions instead of `dimensions` multiply-adds.
 *
 * Training is deterministic: the sample and the initial centroids come from a seeded generator.
 */
import { PlexusError } from '../../core/errors.js';
import { dotAt } from './vector-math.js';

/** Centroids per subspace (one byte a code). */
export const PQ_CENTROIDS = 256;

/** Options of {@link trainProductQuantizer}. */
export interface ProductQuantizerInit {
  /** Vector length. */
  readonly dimensions: number;
  /** Slices a vector is cut into (capped at `dimensions`). @default 32 */
  readonly subspaces?: number;
  /** Vectors sampled for k-means. @default 4096 */
  readonly sampleSize?: number;
  /** k-means rounds. @default 6 */
  readonly iterations?: number;
  /** Seed of the sample and the initial centroids. @default 1 */
  readonly seed?: number;
}

/** A trained quantiser. */
export interface ProductQuantizer {
  readonly dimensions: number;
  readonly subspaces: number;
  /** Writes the code of `vectors[vo..vo+dimensions)` into `out[oo..oo+subspaces)`. */
  encode(vectors: Float32Array, vo: number, out: Uint8Array, oo: number): void;
  /** Fills `table` (length `subspaces × 256`) with the query's inner product with every centroid. */
  table(query: Float32Array, table: Float32Array): void;
}

/** A seeded xorshift32 generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * Learns a quantiser from the first `count` vectors of `vectors` (row-major, `dimensions` each).
 *
 * @throws PlexusError `INVALID_PARAMS` when `count` is below 256 or the sizes disagree.
 */
export function trainProductQuantizer(
  vectors: Float32Array,
  count: number,
  init: ProductQuantizerInit,
): ProductQuantizer {
  const dim = init.dimensions;
  const ms = Math.min(init.subspaces ?? 32, dim);
  if (!Number.isInteger(dim) || dim < 1 || !Number.isInteger(ms) || ms < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'product quantiser needs positive integer dimensions and subspaces',
    );
  }
  if (count < PQ_CENTROIDS || vectors.length < count * dim) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `product quantiser needs at least ${PQ_CENTROIDS} training vectors, got ${count}`,
    );
  }
  const random = seededRandom(init.seed ?? 1);
  const bounds = new Int32Array(ms + 1);
  for (let m = 0; m <= ms; m++) bounds[m] = Math.floor((m * dim) / ms);
  // centroids[m] holds 256 centroids of the slice's width, row-major
  const centroids: Float32Array[] = [];
  const norms: Float32Array[] = [];
  const sampleSize = Math.min(count, init.sampleSize ?? 4096);
  const sample = new Int32Array(sampleSize);
  if (sampleSize === count) for (let i = 0; i < count; i++) sample[i] = i;
  else for (let i = 0; i < sampleSize; i++) sample[i] = Math.floor(random() * count);
  const iterations = init.iterations ?? 6;
  const assign = new Int32Array(sampleSize);
  for (let m = 0; m < ms; m++) {
    const lo = bounds[m] as number;
    const w = (bounds[m + 1] as number) - lo;
    const c = new Float32Array(PQ_CENTROIDS * w);
    const cn = new Float32Array(PQ_CENTROIDS);
    const slice = new Float32Array(sampleSize * w);
    for (let s = 0; s < sampleSize; s++) {
      slice.set(
        vectors.subarray((sample[s] as number) * dim + lo, (sample[s] as number) * dim + lo + w),
        s * w,
      );
    }
    for (let k = 0; k < PQ_CENTROIDS; k++) {
      const s = Math.floor(random() * sampleSize);
      c.set(slice.subarray(s * w, s * w + w), k * w);
    }
    const sums = new Float64Array(PQ_CENTROIDS * w);
    const counts = new Int32Array(PQ_CENTROIDS);
    for (let it = 0; it <= iterations; it++) {
      for (let k = 0; k < PQ_CENTROIDS; k++) cn[k] = dotAt(c, k * w, c, k * w, w);
      for (let s = 0; s < sampleSize; s++) assign[s] = nearest(slice, s * w, c, cn, w);
      if (it === iterations) break;
      sums.fill(0);
      counts.fill(0);
      for (let s = 0; s < sampleSize; s++) {
        const k = assign[s] as number;
        counts[k] = (counts[k] as number) + 1;
        for (let d = 0; d < w; d++)
          sums[k * w + d] = (sums[k * w + d] as number) + (slice[s * w + d] as number);
      }
      for (let k = 0; k < PQ_CENTROIDS; k++) {
        const n = counts[k] as number;
        if (n === 0) {
          const s = Math.floor(random() * sampleSize); // an empty cluster restarts at a sample point
          c.set(slice.subarray(s * w, s * w + w), k * w);
        } else {
          for (let d = 0; d < w; d++) c[k * w + d] = (sums[k * w + d] as number) / n;
        }
      }
    }
    centroids.push(c);
    norms.push(cn);
  }
  return {
    dimensions: dim,
    subspaces: ms,
    encode(v, vo, out, oo) {
      for (let m = 0; m < ms; m++) {
        const lo = bounds[m] as number;
        const w = (bounds[m + 1] as number) - lo;
        out[oo + m] = nearest(v, vo + lo, centroids[m] as Float32Array, norms[m] as Float32Array, w);
      }
    },
    table(q, table) {
      for (let m = 0; m < ms; m++) {
        const lo = bounds[m] as number;
        const w = (bounds[m + 1] as number) - lo;
        const c = centroids[m] as Float32Array;
        const base = m * PQ_CENTROIDS;
        for (let k = 0; k < PQ_CENTROIDS; k++) table[base + k] = dotAt(q, lo, c, k * w, w);
      }
    },
  };
}

/** The centroid nearest `x[xo..xo+w)` in Euclidean distance: argmin ‖c‖² − 2 x·c. */
function nearest(x: Float32Array, xo: number, c: Float32Array, cn: Float32Array, w: number): number {
  let best = 0;
  let bestScore = Infinity;
  for (let k = 0; k < PQ_CENTROIDS; k++) {
    const d = (cn[k] as number) - 2 * dotAt(x, xo, c, k * w, w);
    if (d < bestScore) {
      bestScore = d;
      best = k;
    }
  }
  return best;
}
