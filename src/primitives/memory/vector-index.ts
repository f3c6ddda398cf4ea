/**
 * The memory primitive's approximate nearest-neighbour index: every vector in one Float32Array
 * (row-major, L2-normalised, so inner product = cosine similarity), a product-quantised code
 * of each, and three labels an entry is filtered by (tenant, session, tier).
 *
 * A search scans the codes by asymmetric distance (a `subspaces`-entry table sum an entry),
 * keeps the best `rerank` candidates that pass the filter, and re-scores those exactly from
 * the full vectors, so the similarities it reports are exact and only the candidate set is
 * approximate. Below `trainAt` entries, and for a session with few memories, it scans exactly.
 * Filters are applied inside the scan, so a filtered search loses no recall.
 *
 * Removal swaps the last entry into the freed slot, so scans stay dense. The quantiser is
 * trained on first need (`build()` or the first search past `trainAt`) and again when the
 * index has grown `retrainGrowth`-fold since, so a bulk load pays training once.
 */
import { PlexusError } from '../../core/errors.js';
import { PQ_CENTROIDS, trainProductQuantizer, type ProductQuantizer } from './product-quantizer.js';
import { scoreHeap } from './score-heap.js';
import { dotAt, normalizeInPlace } from './vector-math.js';

/** Options of {@link vectorIndex}. */
export interface VectorIndexInit {
  /** Vector length. */
  readonly dimensions: number;
  /** Product-quantiser slices (one byte each per entry). @default 16 */
  readonly subspaces?: number;
  /** Entries below which searches scan exactly and no quantiser is trained. @default 4096 */
  readonly trainAt?: number;
  /** Retrain once the index holds this many times the entries it was trained on. @default 8 */
  readonly retrainGrowth?: number;
  /** Candidates re-scored exactly per search (at least 4 × limit). @default 768 */
  readonly rerank?: number;
  /** A session with at most this many entries is searched exactly. @default 4096 */
  readonly exactSubset?: number;
  /** Seed of the quantiser's training. @default 1 */
  readonly seed?: number;
}

/** The labels an entry is filtered by. */
export interface VectorLabels {
  readonly tenant: string | null;
  readonly session: string | null;
  readonly tier: string;
}

/** What a search looks for. `tenant` always applies (null = no tenant); the others when given. */
export interface VectorQuery {
  readonly limit: number;
  /** Minimum similarity (inclusive). @default -1 */
  readonly threshold?: number;
  readonly tenant: string | null;
  readonly session?: string;
  readonly tier?: string;
}

/** One hit, best first. */
export interface VectorHit {
  readonly key: string;
  readonly similarity: number;
}

/** Figures for tests, metrics and the benchmark. */
export interface VectorIndexStats {
  readonly size: number;
  readonly trained: boolean;
  readonly trainedOn: number;
  readonly subspaces: number;
}

/** The index. */
export interface VectorIndex {
  readonly dimensions: number;
  readonly size: number;
  /** Adds or replaces the entry `key` (the vector is copied and normalised). */
  upsert(key: string, vector: Float32Array, labels: VectorLabels): void;
  /** Changes an entry's labels (archiving changes its tier); false when absent. */
  relabel(key: string, labels: VectorLabels): boolean;
  /** Removes an entry; false when absent. */
  remove(key: string): boolean;
  has(key: string): boolean;
  /** Trains the quantiser now (when at or past `trainAt`) and codes every entry: bulk loading. */
  build(): void;
  /** The approximate search (quantised scan + exact re-rank); `query` must be normalised. */
  search(query: Float32Array, q: VectorQuery): VectorHit[];
  /** The exact search: every matching entry scored in full (the brute-force reference). */
  searchExact(query: Float32Array, q: VectorQuery): VectorHit[];
  stats(): VectorIndexStats;
}

const NONE = -1;

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
  let cap = 1024;
  let vectors = new Float32Array(cap * dim);
  let codes = new Uint8Array(cap * ms);
  let labels = new Int32Array(cap * 3); // tenant, session, tier (interned)
  const keys: string[] = [];
  const slotOf = new Map<string, number>();
  const sessions = new Map<number, Set<string>>();
  const interned = new Map<string, number>();
  const names: string[] = [];
  let quantizer: ProductQuantizer | undefined;
  let trainedOn = 0;
  const table = new Float32Array(ms * PQ_CENTROIDS);
  const heap = scoreHeap(512);
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
  const lookup = (value: string | null): number => (value === null ? NONE : (interned.get(value) ?? -2));

  const grow = (): void => {
    cap *= 2;
    const v = new Float32Array(cap * dim);
    v.set(vectors);
    vectors = v;
    const c = new Uint8Array(cap * ms);
    c.set(codes);
    codes = c;
    const l = new Int32Array(cap * 3);
    l.set(labels);
    labels = l;
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

  const train = (): void => {
    quantizer = trainProductQuantizer(vectors, keys.length, {
      dimensions: dim,
      subspaces: ms,
      ...(init.seed === undefined ? {} : { seed: init.seed }),
    });
    trainedOn = keys.length;
    for (let s = 0; s < keys.length; s++) quantizer.encode(vectors, s * dim, codes, s * ms);
  };

  const ensureTrained = (): void => {
    const n = keys.length;
    if (quantizer === undefined ? n >= trainAt : n >= trainedOn * growth) train();
  };

  /** Whether `slot` passes the interned filter (−2 = a value never seen: nothing matches). */
  const passes = (
    slot: number,
    tenant: number,
    session: number | undefined,
    tier: number | undefined,
  ): boolean =>
    labels[slot * 3] === tenant &&
    (session === undefined || labels[slot * 3 + 1] === session) &&
    (tier === undefined || labels[slot * 3 + 2] === tier);

  const finish = (hits: VectorHit[], q: VectorQuery): VectorHit[] => {
    const threshold = q.threshold ?? -1;
    return hits
      .filter((h) => h.similarity >= threshold)
      .sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, q.limit);
  };

  /** Exact scores of the given slots (or all), filtered, best `limit` kept. */
  const exact = (query: Float32Array, q: VectorQuery, slots: Iterable<number> | undefined): VectorHit[] => {
    const tenant = lookup(q.tenant);
    const session = q.session === undefined ? undefined : lookup(q.session);
    const tier = q.tier === undefined ? undefined : lookup(q.tier);
    const threshold = q.threshold ?? -1;
    worst.clear();
    const consider = (slot: number): void => {
      if (!passes(slot, tenant, session, tier)) return;
      const s = dotAt(vectors, slot * dim, query, 0, dim);
      if (s < threshold) return;
      if (worst.size < q.limit) worst.push(-s, slot);
      else if (
        -s < worst.topScore() ||
        (-s === worst.topScore() && (keys[slot] as string) < (keys[worst.topNode()] as string))
      ) {
        worst.pop();
        worst.push(-s, slot);
      }
    };
    if (slots === undefined) for (let s = 0; s < keys.length; s++) consider(s);
    else for (const s of slots) consider(s);
    const hits: VectorHit[] = [];
    for (let i = 0; i < worst.size; i++)
      hits.push({ key: keys[worst.nodeAt(i)] as string, similarity: -worst.scoreAt(i) });
    return finish(hits, q);
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
      quantizer?.encode(vectors, slot * dim, codes, slot * ms);
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
        codes.copyWithin(slot * ms, last * ms, last * ms + ms);
        labels.copyWithin(slot * 3, last * 3, last * 3 + 3);
        keys[slot] = moved;
        slotOf.set(moved, slot);
      }
      keys.pop();
      slotOf.delete(key);
      return true;
    },
    has: (key) => slotOf.has(key),
    build() {
      if (keys.length >= trainAt) train();
    },
    search(query, q) {
      checkQuery(query, q);
      if (q.session !== undefined) {
        const members = sessions.get(lookup(q.session));
        if (members === undefined) return [];
        if (members.size <= exactSubset) {
          return exact(
            query,
            q,
            [...members].map((k) => slotOf.get(k) as number),
          );
        }
      }
      ensureTrained();
      const pq = quantizer;
      if (pq === undefined) return exact(query, q, undefined);
      const tenant = lookup(q.tenant);
      const session = q.session === undefined ? undefined : lookup(q.session);
      const tier = q.tier === undefined ? undefined : lookup(q.tier);
      pq.table(query, table);
      const r = Math.max(rerankBase, 4 * q.limit);
      heap.clear();
      let floor = -Infinity; // the r-th best approximate score so far
      const n = keys.length;
      for (let s = 0; s < n; s++) {
        const b = s * ms;
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        let a3 = 0;
        let m = 0;
        for (; m + 3 < ms; m += 4) {
          a0 += table[(m << 8) + (codes[b + m] as number)] as number;
          a1 += table[((m + 1) << 8) + (codes[b + m + 1] as number)] as number;
          a2 += table[((m + 2) << 8) + (codes[b + m + 2] as number)] as number;
          a3 += table[((m + 3) << 8) + (codes[b + m + 3] as number)] as number;
        }
        for (; m < ms; m++) a0 += table[(m << 8) + (codes[b + m] as number)] as number;
        const score = a0 + a1 + a2 + a3;
        if (score <= floor || !passes(s, tenant, session, tier)) continue;
        heap.push(-score, s);
        if (heap.size > r) heap.pop();
        if (heap.size === r) floor = -heap.topScore();
      }
      const candidates: number[] = [];
      for (let i = 0; i < heap.size; i++) candidates.push(heap.nodeAt(i));
      return exact(query, q, candidates);
    },
    searchExact(query, q) {
      checkQuery(query, q);
      return exact(query, q, undefined);
    },
    stats: () => ({ size: keys.length, trained: quantizer !== undefined, trainedOn, subspaces: ms }),
  };
  return index;
}
