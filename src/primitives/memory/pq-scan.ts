/**
 * The hot loop of the vector index: the asymmetric-distance scan of product-quantised codes.
 *
 * The query's float table (`subspaces × 256` inner products) is first turned into integers
 * (scaled so any sum of `subspaces` entries fits in 31 bits; the rounding error is ~1e-8 of
 * the largest entry, far below any gap PQ can resolve), so the scan adds small integers read
 * from an Int32Array. Codes are one contiguous Uint8Array, a row of `subspaces` bytes an
 * entry; the row sum is unrolled for 8 and 16 subspaces. A row is compared with the running
 * floor (the r-th best score so far) before anything else; only a row above it has its labels
 * checked and enters the candidate heap, so filters and the heap cost nothing on most rows.
 */
import { PQ_CENTROIDS } from './product-quantizer.js';
import type { ScoreHeap } from './score-heap.js';

/** A label filter value that matches everything. */
export const ANY_LABEL = -3;

/** The interned label filter of a scan: tenant always, session and tier unless {@link ANY_LABEL}. */
export interface ScanFilter {
  readonly tenant: number;
  readonly session: number;
  readonly tier: number;
}

/** Largest magnitude of a row sum of the integer table (31-bit signed range with headroom). */
const INT_RANGE = 2 ** 30;

/**
 * Writes the integer form of a float table (`subspaces × 256`) into `out` and answers the
 * scale (integer = round(float × scale)); 0 when the table is all zeros.
 */
export function quantizeTable(table: Float32Array, out: Int32Array, subspaces: number): number {
  const n = subspaces * PQ_CENTROIDS;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(table[i] as number);
    if (a > max) max = a;
  }
  if (max === 0 || !Number.isFinite(max)) {
    out.fill(0, 0, n);
    return 0;
  }
  const scale = INT_RANGE / (subspaces * max);
  for (let i = 0; i < n; i++) out[i] = Math.round((table[i] as number) * scale);
  return scale;
}

/**
 * Scans the codes of entries `[0, count)` and leaves in `heap` (fed negated scores, so its
 * top is the worst kept) the best `keep` entries that pass `filter`. The heap is cleared first.
 */
export function scanCodes(
  t: Int32Array,
  codes: Uint8Array,
  subspaces: number,
  count: number,
  labels: Int32Array,
  filter: ScanFilter,
  heap: ScoreHeap,
  keep: number,
): void {
  heap.clear();
  const { tenant, session, tier } = filter;
  let floor = -Infinity;
  const take = (s: number, score: number): void => {
    const l = s * 3;
    if (
      labels[l] !== tenant ||
      (session !== ANY_LABEL && labels[l + 1] !== session) ||
      (tier !== ANY_LABEL && labels[l + 2] !== tier)
    )
      return;
    if (heap.size < keep) {
      heap.push(-score, s);
      if (heap.size === keep) floor = -heap.topScore();
    } else {
      heap.replaceTop(-score, s);
      floor = -heap.topScore();
    }
  };
  if (subspaces === 16) {
    for (let s = 0, b = 0; s < count; s++, b += 16) {
      const score =
        (t[codes[b] as number] as number) +
        (t[256 + (codes[b + 1] as number)] as number) +
        (t[512 + (codes[b + 2] as number)] as number) +
        (t[768 + (codes[b + 3] as number)] as number) +
        ((t[1024 + (codes[b + 4] as number)] as number) +
          (t[1280 + (codes[b + 5] as number)] as number) +
          (t[1536 + (codes[b + 6] as number)] as number) +
          (t[1792 + (codes[b + 7] as number)] as number)) +
        ((t[2048 + (codes[b + 8] as number)] as number) +
          (t[2304 + (codes[b + 9] as number)] as number) +
          (t[2560 + (codes[b + 10] as number)] as number) +
          (t[2816 + (codes[b + 11] as number)] as number)) +
        ((t[3072 + (codes[b + 12] as number)] as number) +
          (t[3328 + (codes[b + 13] as number)] as number) +
          (t[3584 + (codes[b + 14] as number)] as number) +
          (t[3840 + (codes[b + 15] as number)] as number));
      if (score > floor) take(s, score);
    }
  } else if (subspaces === 8) {
    for (let s = 0, b = 0; s < count; s++, b += 8) {
      const score =
        (t[codes[b] as number] as number) +
        (t[256 + (codes[b + 1] as number)] as number) +
        (t[512 + (codes[b + 2] as number)] as number) +
        (t[768 + (codes[b + 3] as number)] as number) +
        ((t[1024 + (codes[b + 4] as number)] as number) +
          (t[1280 + (codes[b + 5] as number)] as number) +
          (t[1536 + (codes[b + 6] as number)] as number) +
          (t[1792 + (codes[b + 7] as number)] as number));
      if (score > floor) take(s, score);
    }
  } else {
    for (let s = 0, b = 0; s < count; s++, b += subspaces) {
      let score = 0;
      for (let m = 0; m < subspaces; m++) score += t[(m << 8) + (codes[b + m] as number)] as number;
      if (score > floor) take(s, score);
    }
  }
}
