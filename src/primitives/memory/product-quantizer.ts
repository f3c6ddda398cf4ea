/**
 * Product quantisation (Jégou, Douze & Schmid, "Product quantization for nearest neighbor
 * search", 2011): a vector is cut into `subspaces` slices, each slice replaced by the nearest
 * of 256 centroids learnt by k-means on a sample, so a vector is stored as one byte a slice.
 * A query is compared with a code by asymmetric distance: a table of query·centroid inner
 * products (`subspaces × 256`) is built once a query, then a code's score is `subspaces`
 * table look-ups and additions instead of `dimensions` multiply-adds.
 *
 * Training is deterministic (the sample and the initial centroids come from a seeded
 * generator) and can run in bounded steps: {@link productQuantizerSteps} is a generator that
 * yields after about a million multiply-adds, so a caller can interleave it with other work.
 */
import { PlexusError } from '../../core/errors.js';
import { dotAt } from './vector-math.js';

/** Centroids per subspace (one byte a code). */
export const PQ_CENTROIDS = 256;

/** Multiply-adds between two yields of a training generator (~0.5–2 ms of work). */
const STEP_WORK = 1 << 20;

/** Options of {@link trainProductQuantizer} and {@link productQuantizerSteps}. */
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
 * Copies a training sample out of the first `count` rows of `vectors`: every row when
 * `count <= size`, else `size` rows drawn (with replacement) by `random`. The copy does not
 * change when `vectors` does, so training may go on while the index changes.
 */
export function sampleRows(
  vectors: Float32Array,
  count: number,
  dimensions: number,
  size: number,
  random: () => number,
): Float32Array {
  const n = Math.min(count, size);
  const out = new Float32Array(n * dimensions);
  for (let i = 0; i < n; i++) {
    const row = n === count ? i : Math.floor(random() * count);
    out.set(vectors.subarray(row * dimensions, row * dimensions + dimensions), i * dimensions);
  }
  return out;
}

function checkInit(init: ProductQuantizerInit, rows: number): { dim: number; ms: number } {
  const dim = init.dimensions;
  const ms = Math.min(init.subspaces ?? 32, dim);
  if (!Number.isInteger(dim) || dim < 1 || !Number.isInteger(ms) || ms < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'product quantiser needs positive integer dimensions and subspaces',
    );
  }
  if (rows < PQ_CENTROIDS) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `product quantiser needs at least ${PQ_CENTROIDS} training vectors, got ${rows}`,
    );
  }
  return { dim, ms };
}

/**
 * Trains a quantiser on `sample` (row-major, `dimensions` a row, every row used) in steps: the
 * generator yields after about a million multiply-adds and returns the quantiser. Running it
 * to the end without pause gives the same quantiser as any interleaving.
 *
 * @throws PlexusError `INVALID_PARAMS` (at the first `next()`) when the sample has fewer than
 *   256 rows or the sizes are not positive integers.
 */
export function* productQuantizerSteps(
  sample: Float32Array,
  init: ProductQuantizerInit,
): Generator<undefined, ProductQuantizer, undefined> {
  const rows = Math.floor(sample.length / Math.max(1, init.dimensions));
  const { dim, ms } = checkInit(init, rows);
  const random = seededRandom((init.seed ?? 1) ^ 0x5bd1e995);
  const iterations = Math.max(0, init.iterations ?? 6);
  const bounds = new Int32Array(ms + 1);
  for (let m = 0; m <= ms; m++) bounds[m] = Math.floor((m * dim) / ms);
  const centroids: Float32Array[] = [];
  const norms: Float32Array[] = [];
  const assign = new Int32Array(rows);
  // The loops live in plain functions (optimised early), not in this generator's body.
  for (let m = 0; m < ms; m++) {
    const lo = bounds[m] as number;
    const w = (bounds[m + 1] as number) - lo;
    const chunk = Math.max(1, Math.floor(STEP_WORK / (PQ_CENTROIDS * w)));
    const slice = sliceOf(sample, rows, dim, lo, w);
    const c = new Float32Array(PQ_CENTROIDS * w);
    const cn = new Float32Array(PQ_CENTROIDS);
    for (let k = 0; k < PQ_CENTROIDS; k++) {
      const s = Math.floor(random() * rows);
      c.set(slice.subarray(s * w, s * w + w), k * w);
    }
    const sums = new Float64Array(PQ_CENTROIDS * w);
    const counts = new Int32Array(PQ_CENTROIDS);
    for (let it = 0; it <= iterations; it++) {
      squaredNorms(c, cn, w);
      if (it === iterations) break; // the last centroids need no assignment
      for (let s0 = 0; s0 < rows; s0 += chunk) {
        assignRange(slice, s0, Math.min(rows, s0 + chunk), c, cn, w, assign);
        yield;
      }
      updateCentroids(slice, rows, assign, c, w, sums, counts, random);
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

/**
 * Learns a quantiser from the first `count` vectors of `vectors` (row-major, `dimensions` each)
 * in one go: a sample of `sampleSize` rows, then {@link productQuantizerSteps} run to the end.
 *
 * @throws PlexusError `INVALID_PARAMS` when `count` is below 256 or the sizes disagree.
 */
export function trainProductQuantizer(
  vectors: Float32Array,
  count: number,
  init: ProductQuantizerInit,
): ProductQuantizer {
  checkInit(init, count);
  if (vectors.length < count * init.dimensions) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `product quantiser: ${count} vectors of ${init.dimensions} need ${count * init.dimensions} values, got ${vectors.length}`,
    );
  }
  const sample = sampleRows(
    vectors,
    count,
    init.dimensions,
    init.sampleSize ?? 4096,
    seededRandom(init.seed ?? 1),
  );
  return runToEnd(productQuantizerSteps(sample, init));
}

/** Slice `[lo, lo+w)` of every sample row, contiguous. */
function sliceOf(sample: Float32Array, rows: number, dim: number, lo: number, w: number): Float32Array {
  const out = new Float32Array(rows * w);
  for (let s = 0; s < rows; s++) {
    for (let d = 0; d < w; d++) out[s * w + d] = sample[s * dim + lo + d] as number;
  }
  return out;
}

/** `cn[k]` = ‖centroid k‖². */
function squaredNorms(c: Float32Array, cn: Float32Array, w: number): void {
  for (let k = 0; k < PQ_CENTROIDS; k++) cn[k] = dotAt(c, k * w, c, k * w, w);
}

/** Assigns rows `[from, to)` of `slice` to their nearest centroid. */
function assignRange(
  slice: Float32Array,
  from: number,
  to: number,
  c: Float32Array,
  cn: Float32Array,
  w: number,
  assign: Int32Array,
): void {
  for (let s = from; s < to; s++) assign[s] = nearest(slice, s * w, c, cn, w);
}

/** The k-means update: each centroid becomes the mean of its rows; an empty one restarts at a random row. */
function updateCentroids(
  slice: Float32Array,
  rows: number,
  assign: Int32Array,
  c: Float32Array,
  w: number,
  sums: Float64Array,
  counts: Int32Array,
  random: () => number,
): void {
  sums.fill(0);
  counts.fill(0);
  for (let s = 0; s < rows; s++) {
    const k = assign[s] as number;
    counts[k] = (counts[k] as number) + 1;
    for (let d = 0; d < w; d++) sums[k * w + d] = (sums[k * w + d] as number) + (slice[s * w + d] as number);
  }
  for (let k = 0; k < PQ_CENTROIDS; k++) {
    const n = counts[k] as number;
    if (n === 0) {
      const s = Math.floor(random() * rows);
      c.set(slice.subarray(s * w, s * w + w), k * w);
    } else {
      for (let d = 0; d < w; d++) c[k * w + d] = (sums[k * w + d] as number) / n;
    }
  }
}

/** Runs a step generator to its end and answers what it returns. */
export function runToEnd<T>(steps: Generator<undefined, T, undefined>): T {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/** The centroid nearest `x[xo..xo+w)` in Euclidean distance: argmin ‖c‖² − 2 x·c. */
function nearest(x: Float32Array, xo: number, c: Float32Array, cn: Float32Array, w: number): number {
  if (w === 16) return nearest16(x, xo, c, cn);
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

/** {@link nearest} for slices of 16 (256 dimensions in 16 subspaces): the slice held in locals, ~2× faster. */
function nearest16(x: Float32Array, xo: number, c: Float32Array, cn: Float32Array): number {
  const x0 = x[xo] as number;
  const x1 = x[xo + 1] as number;
  const x2 = x[xo + 2] as number;
  const x3 = x[xo + 3] as number;
  const x4 = x[xo + 4] as number;
  const x5 = x[xo + 5] as number;
  const x6 = x[xo + 6] as number;
  const x7 = x[xo + 7] as number;
  const x8 = x[xo + 8] as number;
  const x9 = x[xo + 9] as number;
  const x10 = x[xo + 10] as number;
  const x11 = x[xo + 11] as number;
  const x12 = x[xo + 12] as number;
  const x13 = x[xo + 13] as number;
  const x14 = x[xo + 14] as number;
  const x15 = x[xo + 15] as number;
  let best = 0;
  let bestScore = Infinity;
  for (let k = 0, o = 0; k < PQ_CENTROIDS; k++, o += 16) {
    const dot =
      x0 * (c[o] as number) +
      x1 * (c[o + 1] as number) +
      x2 * (c[o + 2] as number) +
      x3 * (c[o + 3] as number) +
      (x4 * (c[o + 4] as number) +
        x5 * (c[o + 5] as number) +
        x6 * (c[o + 6] as number) +
        x7 * (c[o + 7] as number)) +
      (x8 * (c[o + 8] as number) +
        x9 * (c[o + 9] as number) +
        x10 * (c[o + 10] as number) +
        x11 * (c[o + 11] as number)) +
      (x12 * (c[o + 12] as number) +
        x13 * (c[o + 13] as number) +
        x14 * (c[o + 14] as number) +
        x15 * (c[o + 15] as number));
    const d = (cn[k] as number) - 2 * dot;
    if (d < bestScore) {
      bestScore = d;
      best = k;
    }
  }
  return best;
}
