/**
 * The derived search index of the memory primitive, kept as a projection of the same
 * `memory.*` events so it is rebuilt from the log at every start and follows every append.
 * It is not part of `MEMORY_PROJECTIONS` (not compared by `plexus replay --verify`): its
 * state is an in-memory ANN index, and its JSON form is only a summary.
 *
 * The vector of a stored memory comes from the event when the event carries one made by the
 * configured embedder; otherwise, when the configured embedder is deterministic and local,
 * it is recomputed from the content (never a network call). A memory whose vector cannot be
 * had either way (stored through a remote model other than the configured one) is counted
 * in `unindexed` and is found by `get` / `list` but not by `search`.
 */
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import type { Embedder } from './embedder.js';
import { MEMORY_EVENTS, storedData } from './memory-projection.js';
import { decodeVector } from './vector-math.js';
import { vectorIndex, type VectorIndex, type VectorIndexInit, type VectorLabels } from './vector-index.js';

/** The index and what it could not index. */
export interface MemoryIndexState {
  /** Created at the first vector (its length fixes the dimensions). */
  index: VectorIndex | undefined;
  /** Labels of every indexed memory (to relabel on archive). */
  readonly labels: Map<string, VectorLabels>;
  /** Memories stored but not searchable under the configured embedder. */
  unindexed: number;
}

/** Options of the index (dimensions come from the first vector). */
export type MemoryIndexOptions = Omit<VectorIndexInit, 'dimensions'>;

/** Creates the index projection for one embedder. */
export function memoryIndexProjection(
  embedder: Embedder,
  options: MemoryIndexOptions = {},
): Projection<MemoryIndexState> {
  const vectorOf = (
    content: string,
    embedderId: string,
    stored: string | undefined,
  ): Float32Array | undefined => {
    if (stored !== undefined && embedderId === embedder.id) {
      try {
        return decodeVector(stored);
      } catch {
        return undefined;
      }
    }
    return embedder.embedSync?.(content);
  };
  const apply = (state: MemoryIndexState, event: Event): MemoryIndexState => {
    if (event.type === MEMORY_EVENTS.stored) {
      const d = storedData(event.data);
      if (d === undefined || state.labels.has(d.id)) return state;
      const vector = vectorOf(d.content, d.embedder, typeof d.vector === 'string' ? d.vector : undefined);
      state.index ??=
        vector === undefined ? undefined : vectorIndex({ ...options, dimensions: vector.length });
      if (vector === undefined || state.index === undefined || vector.length !== state.index.dimensions) {
        state.unindexed++;
        return state;
      }
      const labels: VectorLabels = { tenant: event.tenant ?? null, session: d.sessionId, tier: d.tier };
      state.index.upsert(d.id, vector, labels);
      state.labels.set(d.id, labels);
      return state;
    }
    const data = event.data as { id?: unknown } | null;
    const id = typeof data?.id === 'string' ? data.id : undefined;
    const labels = id === undefined ? undefined : state.labels.get(id);
    if (id === undefined || labels === undefined) return state;
    if (event.type === MEMORY_EVENTS.deleted) {
      state.index?.remove(id);
      state.labels.delete(id);
    } else if (event.type === MEMORY_EVENTS.archived) {
      const next = { ...labels, tier: 'archival' };
      state.index?.relabel(id, next);
      state.labels.set(id, next);
    }
    return state;
  };
  return {
    name: 'memory.index',
    version: 1,
    filter: { typePrefix: 'memory.' },
    initial: () => ({ index: undefined, labels: new Map(), unindexed: 0 }),
    apply,
    toJson: (state) => ({
      indexed: state.index?.size ?? 0,
      unindexed: state.unindexed,
      ids: [...state.labels.keys()].sort(),
    }),
    fromJson: () => {
      // Never restored from a snapshot: the index is always rebuilt from the log.
      return { index: undefined, labels: new Map(), unindexed: 0 };
    },
  };
}
