/**
 * The memory primitive's approximate nearest-neighbour index: every vector in one Float32Array
 * (row-major, L2-normalised, so inner product = cosine similarity), a product-quantised code
 * of each, and three labels an entry is filtered by (tenant, session, tier).
 *
 * A search scans the codes by asymmetric distance (`pq-scan.ts`), keeps the best `rerank`
 * candidates that pass the filter, and re-scores those exactly from the full vectors, so the
 * similarities it reports are exact and only the candidate set is approximate. Entries not
 * coded yet, every entry below `trainAt`, and a session with few memories are scored exactly.
 *
 * Training never holds the event loop for long: once the index reaches `trainAt` entries (and
 * again when it has grown `retrainGrowth`-fold since), a background task copies a bounded
 * sample, runs k-means in steps, then codes every entry, all in time slices (`sliced-task.ts`).
 * Meanwhile searches go on with the previous codes (or exactly); the new codes replace them
 * only once every entry has one. `build()` does the same work synchronously (bulk loading).
 *
 * Removal swaps the last entry into the freed slot, so scans stay dense.
 */
import { PlexusError } from '../../core/errors.js';
import { codebook, type Codebook } from './pq-codebook.js';
import { ANY_LABEL, quantizeTable, scanCodes } from './pq-scan.js';
import {
  PQ_CENTROIDS,
  productQuantizerSteps,
  runToEnd,
  sampleRows,
  seededRandom,
} from './product-quantizer.js';
import { scoreHeap } from './score-heap.js';
import { slicedTask, type SlicedTask, type SlicedTaskInit } from './sliced-task.js';
import type {
  VectorHit,
  VectorIndex,
  VectorIndexInit,
  VectorLabels,
  VectorQuery,
} from './vector-index-types.js';
import { dotAt, normalizeInPlace } from './vector-math.js';

export type {
  VectorHit,
  VectorIndex,
  VectorIndexInit,
  VectorIndexStats,
  VectorLabels,
  VectorQuery,
} from './vector-index-types.js';

const NONE = -1;
/** An interned value never seen: matches no entry. */
const UNSEEN = -2;

/**
 * Creates an empty index.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad dimension.
 */
export function vectorIndex(init: VectorIndexInit): VectorIndex {
  const dim = init.dimensions;
  if (!Number.isInteger(dim) || dim < 1) {
    throw new PlexusError('INVALID_PARAMS', `vector dimensions must be a positive integer, got ${dim}`);
  }
  const ms = Math.min(init.subspaces ?? 16, dim);
  const trainAt = Math.max(PQ_CENTROIDS, init.trainAt ?? 4096);
  const growth = Math.max(2, init.retrainGrowth ?? 8);
  const rerankBase = Math.max(1, init.rerank ?? 768);
  const exactSubset = init.exactSubset ?? 4096;
  const sampleSize = Math.min(65_536, Math.max(PQ_CENTROIDS, init.sampleSize ?? 4096));
  const background = init.background ?? true;
  const pqInit = {
    dimensions: dim,
    subspaces: ms,
    ...(init.iterations === undefined ? {} : { iterations: init.iterations }),
    ...(init.seed === undefined ? {} : { seed: init.seed }),
  };
  const work = { slices: 0, busyMs: 0, longestSliceMs: 0 };
  const taskInit: SlicedTaskInit = {
    ...(init.sliceMs === undefined ? {} : { sliceMs: init.sliceMs }),
    ...(init.schedule === undefined ? {} : { schedule: init.schedule }),
    onSlice(ms) {
      work.slices++;
      work.busyMs += ms;
      if (ms > work.longestSliceMs) work.longestSliceMs = ms;
    },
  };
  let cap = 1024;
  let vectors = new Float32Array(cap * dim);
  let labels = new Int32Array(cap * 3); // tenant, session, tier (interned)
  const keys: string[] = [];
  const slotOf = new Map<string, number>();
  const sessions = new Map<number, Set<string>>();
  const interned = new Map<string, number>();
  const names: string[] = [];
  /** The codes searches use. */
  let active: Codebook | undefined;
  /** The codes a training under way is filling (kept in step with every change). */
  let next: Codebook | undefined;
  let task: SlicedTask | undefined;
  let closed = false;
  let trainings = 0;
  const floatTable = new Float32Array(ms * PQ_CENTROIDS);
  const intTable = new Int32Array(ms * PQ_CENTROIDS);
  const heap = scoreHeap(1024);
  // The exact top-k keeps its worst entry on top (negated scores); among equal scores the
  // greatest key is the worst, so answers are the same whatever the slot order.
  const worst = scoreHeap(64, (a, b) => (keys[a] as string) > (keys[b] as string));

  const intern = (value: string | null): number => {
    if (value === null) return NONE;
    let id = interned.get(value);
    if (id === undefined) {
      id = names.length;
      names.push(value);
      interned.set(value, id);
    }
    return id;
  };
  const lookup = (value: string | null): number => (value === null ? NONE : (interned.get(value) ?? UNSEEN));

  const grow = (): void => {
    cap *= 2;
    const v = new Float32Array(cap * dim);
    v.set(vectors);
    vectors = v;
    const l = new Int32Array(cap * 3);
    l.set(labels);
    labels = l;
    active?.grow(cap);
    next?.grow(cap);
  };

  const setLabels = (slot: number, key: string, l: VectorLabels): void => {
    const oldSession = labels[slot * 3 + 1] as number;
    if (oldSession !== NONE) sessions.get(oldSession)?.delete(key);
    const session = intern(l.session);
    labels[slot * 3] = intern(l.tenant);
    labels[slot * 3 + 1] = session;
    labels[slot * 3 + 2] = intern(l.tier);
    if (session !== NONE) {
      let set = sessions.get(session);
      if (set === undefined) sessions.set(session, (set = new Set()));
      set.add(key);
    }
  };

  /** Trains on a copied sample, then codes every entry, then makes the new codes the ones in use. */
  function* training(): Generator<undefined, void, undefined> {
    const n0 = keys.length;
    const sample = sampleRows(vectors, n0, dim, sampleSize, seededRandom(init.seed ?? 1));
    const quantizer = yield* productQuantizerSteps(sample, pqInit);
    const book = codebook(quantizer, n0, cap);
    next = book;
    try {
      // ~1M multiply-adds a step (256 centroids × dim each vector)
      const perStep = Math.max(1, Math.floor((1 << 20) / (PQ_CENTROIDS * dim)));
      while (book.encodeNext(vectors, keys.length, perStep) > 0) yield;
      active = book;
      trainings++;
    } finally {
      next = undefined;
    }
  }

  const needsTraining = (): boolean => {
    const n = keys.length;
    return n >= trainAt && (active === undefined || n >= active.trainedOn * growth);
  };

  /** Starts a background training when one is due and none is running. */
  const maybeTrain = (): void => {
    if (!background || closed || (task !== undefined && !task.done) || !needsTraining()) return;
    const started = slicedTask(training(), taskInit);
    task = started;
    void started.finished.then(() => {
      // grown enough meanwhile: train again (not after a failure, which would repeat)
      if (task === started && started.error === undefined) maybeTrain();
    });
  };

  // --- the per-search state of the exact scorer (one search at a time: all synchronous)
  let qv: Float32Array = floatTable; // replaced by the query at each search
  let qLimit = 1;
  let qThreshold = -1;
  let fTenant = NONE;
  let fSession = ANY_LABEL;
  let fTier = ANY_LABEL;

  const prepare = (query: Float32Array, q: VectorQuery): void => {
    qv = query;
    qLimit = q.limit;
    qThreshold = q.threshold ?? -1;
    fTenant = lookup(q.tenant);
    fSession = q.session === undefined ? ANY_LABEL : lookup(q.session);
    fTier = q.tier === undefined ? ANY_LABEL : lookup(q.tier);
    worst.clear();
  };

  /** Scores `slot` exactly and keeps it among the best `qLimit` when it passes the filter. */
  const consider = (slot: number): void => {
    const l = slot * 3;
    if (
      labels[l] !== fTenant ||
      (fSession !== ANY_LABEL && labels[l + 1] !== fSession) ||
      (fTier !== ANY_LABEL && labels[l + 2] !== fTier)
    )
      return;
    const s = dotAt(vectors, slot * dim, qv, 0, dim);
    if (s < qThreshold) return;
    if (worst.size < qLimit) worst.push(-s, slot);
    else if (
      -s < worst.topScore() ||
      (-s === worst.topScore() && (keys[slot] as string) < (keys[worst.topNode()] as string))
    ) {
      worst.replaceTop(-s, slot);
    }
  };

  /** The kept entries, best first, ties by key. */
  const collect = (): VectorHit[] => {
    const hits: VectorHit[] = [];
    for (let i = 0; i < worst.size; i++)
      hits.push({ key: keys[worst.nodeAt(i)] as string, similarity: -worst.scoreAt(i) });
    return hits.sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  };

  const checkQuery = (query: Float32Array, q: VectorQuery): void => {
    if (query.length !== dim) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `query vector has ${query.length} dimensions, the index ${dim}`,
      );
    }
    if (!Number.isInteger(q.limit) || q.limit < 1) {
      throw new PlexusError('INVALID_PARAMS', `limit must be a positive integer, got ${q.limit}`);
    }
  };

  const index: VectorIndex = {
    dimensions: dim,
    get size() {
      return keys.length;
    },
    upsert(key, vector, l) {
      if (vector.length !== dim) {
        throw new PlexusError('INVALID_PARAMS', `vector has ${vector.length} dimensions, the index ${dim}`);
      }
      let slot = slotOf.get(key);
      const added = slot === undefined;
      if (slot === undefined) {
        if (keys.length === cap) grow();
        slot = keys.length;
        keys.push(key);
        slotOf.set(key, slot);
        labels[slot * 3 + 1] = NONE;
      }
      const row = vectors.subarray(slot * dim, slot * dim + dim);
      row.set(vector);
      normalizeInPlace(row);
      setLabels(slot, key, l);
      for (const book of [active, next]) {
        if (book === undefined) continue;
        if (added) book.appended(vectors, slot);
        else book.replaced(vectors, slot);
      }
      if (added) maybeTrain();
    },
    relabel(key, l) {
      const slot = slotOf.get(key);
      if (slot === undefined) return false;
      setLabels(slot, key, l);
      return true;
    },
    remove(key) {
      const slot = slotOf.get(key);
      if (slot === undefined) return false;
      const session = labels[slot * 3 + 1] as number;
      if (session !== NONE) sessions.get(session)?.delete(key);
      const last = keys.length - 1;
      if (slot !== last) {
        const moved = keys[last] as string;
        vectors.copyWithin(slot * dim, last * dim, last * dim + dim);
        labels.copyWithin(slot * 3, last * 3, last * 3 + 3);
        keys[slot] = moved;
        slotOf.set(moved, slot);
      }
      keys.pop();
      slotOf.delete(key);
      active?.removed(vectors, slot, last);
      next?.removed(vectors, slot, last);
      return true;
    },
    has: (key) => slotOf.has(key),
    build() {
      task?.cancel();
      task = undefined;
      if (keys.length >= trainAt) runToEnd(training());
    },
    async whenIdle() {
      while (task !== undefined && !task.done) await task.finished;
    },
    close() {
      closed = true;
      task?.cancel();
    },
    search(query, q) {
      checkQuery(query, q);
      prepare(query, q);
      if (q.session !== undefined) {
        const members = sessions.get(fSession);
        if (members === undefined) return [];
        if (members.size <= exactSubset) {
          for (const k of members) consider(slotOf.get(k) as number);
          return collect();
        }
      }
      const n = keys.length;
      const book = active;
      const coded = book === undefined ? 0 : Math.min(book.coded, n);
      if (book !== undefined && coded > 0) {
        book.quantizer.table(query, floatTable);
        quantizeTable(floatTable, intTable, ms);
        const keep = Math.max(q.rerank ?? rerankBase, 4 * q.limit);
        scanCodes(
          intTable,
          book.codes,
          ms,
          coded,
          labels,
          { tenant: fTenant, session: fSession, tier: fTier },
          heap,
          keep,
        );
        for (let i = 0; i < heap.size; i++) consider(heap.nodeAt(i));
      }
      for (let s = coded; s < n; s++) consider(s); // not coded yet: exactly
      return collect();
    },
    searchExact(query, q) {
      checkQuery(query, q);
      prepare(query, q);
      for (let s = 0; s < keys.length; s++) consider(s);
      return collect();
    },
    codeOf(key) {
      const slot = slotOf.get(key);
      if (slot === undefined || active === undefined || slot >= active.coded) return undefined;
      return active.codes.slice(slot * ms, slot * ms + ms);
    },
    stats: () => ({
      size: keys.length,
      trained: active !== undefined,
      trainedOn: active?.trainedOn ?? 0,
      subspaces: ms,
      coded: active === undefined ? 0 : Math.min(active.coded, keys.length),
      building: task !== undefined && !task.done,
      trainings,
      background: { ...work },
    }),
  };
  return index;
}
