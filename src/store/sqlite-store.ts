/**
 * The durable store backend: the SQLite event log `events.db`, the file artifact store
 * `artifacts/` and the file snapshot store `projections/`, all in the node's data directory,
 * which the backend locks first (one data directory, one node).
 */
import { lockDataDir } from './data-dir-lock.js';
import { fileArtifactStore, type FileArtifactStoreInit } from './file-artifact-store.js';
import { fileSnapshotStore } from './projection-snapshots.js';
import { sqliteEventLog, type SqliteEventLogInit } from './sqlite-event-log.js';
import type { StoreFactory } from './store.js';

/** Options of {@link sqliteStore}: the tuning of its log and artifact store (the directory is the node's). */
export interface SqliteStoreInit {
  /** Options of the SQLite event log. */
  readonly log?: Omit<SqliteEventLogInit, 'dir'>;
  /** Options of the file artifact store. */
  readonly artifacts?: Omit<FileArtifactStoreInit, 'dir'>;
}

/**
 * The SQLite backend, over the node's data directory.
 *
 * @throws PlexusError `UNAVAILABLE` (from the factory) when another node holds the directory.
 * @example
 * const node = createNode({ dataDir: './.plexus', store: sqliteStore() });
 */
export function sqliteStore(init: SqliteStoreInit = {}): StoreFactory {
  return ({ dataDir }) => {
    // The lock comes first: a second node on the directory is refused before it opens the log.
    const lock = lockDataDir(dataDir);
    try {
      return {
        log: sqliteEventLog({ ...init.log, dir: dataDir }),
        artifacts: fileArtifactStore({ ...init.artifacts, dir: dataDir }),
        snapshots: fileSnapshotStore({ dir: dataDir }),
        lock,
      };
    } catch (error) {
      lock.release();
      throw error;
    }
  };
}
