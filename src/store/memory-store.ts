/**
 * The in-memory store backend: a memory event log, artifact store and snapshot store, new at
 * every start (tests, `plexus mock`, throwaway nodes). Nothing outlives the node's `stop()`.
 */
import { memoryArtifactStore, type MemoryArtifactStoreInit } from './memory-artifact-store.js';
import { memoryEventLog, type MemoryEventLogInit } from './memory-event-log.js';
import { memorySnapshotStore } from './memory-snapshot-store.js';
import type { StoreFactory } from './store.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreInit {
  /** Options of the memory event log. */
  readonly log?: MemoryEventLogInit;
  /** Options of the memory artifact store. */
  readonly artifacts?: MemoryArtifactStoreInit;
}

/**
 * The in-memory backend. It takes no lock: the data directory only holds the node key.
 *
 * @example
 * const node = createNode({ store: memoryStore(), port: 0, dev: true });
 */
export function memoryStore(init: MemoryStoreInit = {}): StoreFactory {
  return () => ({
    log: memoryEventLog(init.log),
    artifacts: memoryArtifactStore(init.artifacts),
    snapshots: memorySnapshotStore(),
  });
}
