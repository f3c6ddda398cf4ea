/**
 * Projection snapshots kept in memory, for tests and nodes whose log lives in memory too. Each
 * snapshot is kept as its JSON text, so what is saved and what is loaded are copies, never the
 * caller's objects.
 */
import { PlexusError, toPlexusError } from '../core/errors.js';
import { checkProjectionName } from './projection.js';
import { checkSnapshot, type ProjectionSnapshot, type SnapshotStore } from './projection-snapshots.js';

/** A {@link SnapshotStore} in memory, with a test hook to damage what it holds. */
export interface MemorySnapshotStore extends SnapshotStore {
  /** Replaces the stored text of `name` (tests: a damaged snapshot). */
  corrupt(name: string, text: string): void;
}

/** Keeps snapshots in memory (tests, ephemeral nodes). Snapshots are copied in and out. */
export function memorySnapshotStore(): MemorySnapshotStore {
  const snapshots = new Map<string, string>();
  const attempt = <T>(run: () => T): Promise<T> => {
    try {
      return Promise.resolve(run());
    } catch (error) {
      return Promise.reject(toPlexusError(error));
    }
  };
  return {
    load(name: string): Promise<ProjectionSnapshot | undefined> {
      return attempt(() => {
        const text = snapshots.get(checkProjectionName(name));
        if (text === undefined) return undefined;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (cause) {
          throw new PlexusError('INTERNAL', `projection snapshot ${name} is damaged: not JSON`, { cause });
        }
        return checkSnapshot(parsed, name);
      });
    },
    save(snapshot: ProjectionSnapshot): Promise<void> {
      return attempt(() => {
        snapshots.set(checkProjectionName(snapshot.name), JSON.stringify(snapshot));
      });
    },
    list(): Promise<readonly string[]> {
      return Promise.resolve([...snapshots.keys()].sort());
    },
    corrupt(name: string, text: string): void {
      snapshots.set(name, text);
    },
  };
}
