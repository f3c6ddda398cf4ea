/**
 * The store seam: what a storage backend gives a node — its event log, its artifact store and
 * its projection snapshots, plus any exclusive hold it takes on the storage (the data-directory
 * lock of the SQLite backend) — and the factory a node is configured with.
 */
import type { ArtifactStore } from './artifacts.js';
import type { EventLog } from './event-log.js';
import type { SnapshotStore } from './projection-snapshots.js';

/**
 * An exclusive hold a backend keeps on its storage while a node uses it (one data directory,
 * one node). Taken when the factory runs, released after the log and the artifacts stop.
 */
export interface StoreLock {
  /** Records the port the holder listens on, so a refused second node can name it. */
  announce(port: number): void;
  /** Releases the hold. Idempotent. */
  release(): void;
}

/** The storage of one node run: created unstarted by a {@link StoreFactory}. */
export interface Store {
  /** The event log (DESIGN D9). Started and stopped by the node. */
  readonly log: EventLog;
  /** The artifact store. Started and stopped by the node. */
  readonly artifacts: ArtifactStore;
  /** Where projections keep their snapshots. */
  readonly snapshots: SnapshotStore;
  /** The backend's exclusive hold on its storage, if it takes one. */
  readonly lock?: StoreLock;
}

/** What a node tells its store factory. */
export interface StoreContext {
  /** The node's data directory, absolute; it exists (created by the node). */
  readonly dataDir: string;
}

/**
 * Creates the storage of a node, once per `start()`: what `NodeInit.store` takes.
 * `sqliteStore()` and `memoryStore()` are the two backends today.
 *
 * Adding a backend (PostgreSQL, …) is one new factory: its `log` passes
 * `test/store/event-log-contract.ts`, its `artifacts` pass `test/store/artifact-store-contract.ts`,
 * and its `snapshots` pass `test/store/snapshot-store-contract.ts`. The node needs nothing else.
 *
 * @throws PlexusError `UNAVAILABLE` when the storage is held by another node or cannot be opened.
 */
export type StoreFactory = (context: StoreContext) => Store;
