/**
 * The types of the vector index (`vector-index.ts`): its options, the labels an entry is
 * filtered by, a query, a hit, its figures and its interface.
 */
import type { SlicedTaskInit } from './sliced-task.js';

/** Options of `vectorIndex`. */
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
  /** Vectors k-means trains on (a seeded sample; 256…65,536). @default 4096 */
  readonly sampleSize?: number;
  /** k-means rounds. @default 6 */
  readonly iterations?: number;
  /** Seed of the quantiser's training. @default 1 */
  readonly seed?: number;
  /** Train and code in background time slices when needed; false: only `build()` trains. @default true */
  readonly background?: boolean;
  /** Longest slice of background work before the event loop gets a turn. @default 4 */
  readonly sliceMs?: number;
  /** Schedules background slices (tests). @default setImmediate */
  readonly schedule?: SlicedTaskInit['schedule'];
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
  /** Candidates re-scored exactly (overrides the index's `rerank`; at least 4 × limit). */
  readonly rerank?: number;
}

/** One hit, best first. */
export interface VectorHit {
  readonly key: string;
  readonly similarity: number;
}

/** Figures for tests, metrics and the benchmark. */
export interface VectorIndexStats {
  readonly size: number;
  /** Whether searches use codes (some entries may still be scored exactly, see `coded`). */
  readonly trained: boolean;
  /** Entries in the index when the codes in use were trained. */
  readonly trainedOn: number;
  readonly subspaces: number;
  /** Entries that have a code in use; the rest are scored exactly. */
  readonly coded: number;
  /** Whether background training or coding is under way. */
  readonly building: boolean;
  /** Quantisers trained so far (background or `build()`). */
  readonly trainings: number;
  /** Background slices run so far, their total and their longest duration (ms). */
  readonly background: { readonly slices: number; readonly busyMs: number; readonly longestSliceMs: number };
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
  /** Trains the quantiser now (at or past `trainAt`) and codes every entry, synchronously: bulk loading. */
  build(): void;
  /** Resolves when no background training or coding is pending. */
  whenIdle(): Promise<void>;
  /** Stops background work for good (a stopping node); the index keeps answering. */
  close(): void;
  /** The approximate search (quantised scan + exact re-rank); `query` must be normalised. */
  search(query: Float32Array, q: VectorQuery): VectorHit[];
  /** The exact search: every matching entry scored in full (the brute-force reference). */
  searchExact(query: Float32Array, q: VectorQuery): VectorHit[];
  /** The code in use for `key` (a copy), undefined when it has none yet: diagnostics. */
  codeOf(key: string): Uint8Array | undefined;
  stats(): VectorIndexStats;
}
