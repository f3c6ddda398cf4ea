/**
 * Persisted projection snapshots: a projection's state at a known position of the log, so a
 * node restarts without refolding the whole log, and `plexus replay --verify` has a stored
 * state to check against a rebuild.
 *
 * A snapshot is only a cache: it names the `seq` and `cid` of the last event folded in and
 * the SHA-256 of its state's canonical text. A snapshot that does not match the log, its
 * reducer version or its own digest is ignored and the projection is rebuilt from the log.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { SignalOptions } from './event-log.js';
import { checkProjectionName } from './projection.js';

/** A projection's state at one position of the log. */
export interface ProjectionSnapshot {
  readonly name: string;
  /** The projection's `version` when the snapshot was taken. */
  readonly version: number;
  /** `seq` of the last event folded in (0: none). */
  readonly seq: number;
  /** `cid` of the event at `seq` (`null` at 0), to detect a log that is not the same log. */
  readonly cid: string | null;
  /** SHA-256 hex of the RFC 8785 text of `state`. */
  readonly sha256: string;
  /** The state's JSON form. */
  readonly state: JsonValue;
}

/** Where snapshots are kept. One snapshot per projection name; saving replaces it. */
export interface SnapshotStore {
  /** The snapshot of `name`, or `undefined`. @throws PlexusError `INTERNAL` when it is unreadable. */
  load(name: string, options?: SignalOptions): Promise<ProjectionSnapshot | undefined>;
  /** Stores (replaces) the snapshot atomically. @throws PlexusError `INVALID_PARAMS` for a bad name. */
  save(snapshot: ProjectionSnapshot, options?: SignalOptions): Promise<void>;
  /** Names of all stored snapshots, sorted. */
  list(options?: SignalOptions): Promise<readonly string[]>;
}

/**
 * Checks the stored form of a snapshot (what a backend read back) has every field.
 * @throws PlexusError `INTERNAL` naming `source` when a field is missing or mistyped.
 */
export function checkSnapshot(value: unknown, source: string): ProjectionSnapshot {
  const s = value as Partial<ProjectionSnapshot> | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.name !== 'string' ||
    typeof s.version !== 'number' ||
    typeof s.seq !== 'number' ||
    !(typeof s.cid === 'string' || s.cid === null) ||
    typeof s.sha256 !== 'string' ||
    s.state === undefined
  ) {
    throw new PlexusError('INTERNAL', `projection snapshot ${source} is damaged: missing or mistyped fields`);
  }
  return s as ProjectionSnapshot;
}

/** Options of {@link fileSnapshotStore}. */
export interface FileSnapshotStoreInit {
  /** The node's data directory; snapshots are `<dir>/projections/<name>.json`. */
  readonly dir: string;
}

/**
 * Keeps snapshots as JSON files `<dir>/projections/<name>.json`, each written to a temporary
 * file and renamed into place, so a crash leaves the old or the new snapshot, never half.
 */
export function fileSnapshotStore(init: FileSnapshotStoreInit): SnapshotStore {
  const root = join(init.dir, 'projections');
  const fileOf = (name: string): string => join(root, `${checkProjectionName(name)}.json`);
  return {
    async load(name: string): Promise<ProjectionSnapshot | undefined> {
      const path = fileOf(name);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
        throw new PlexusError('INTERNAL', `cannot read projection snapshot ${path}`, { cause: error });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw new PlexusError('INTERNAL', `projection snapshot ${path} is damaged: not JSON`, { cause });
      }
      return checkSnapshot(parsed, path);
    },
    async save(snapshot: ProjectionSnapshot): Promise<void> {
      const path = fileOf(snapshot.name);
      await mkdir(root, { recursive: true });
      const tmp = `${path}.${randomUUID()}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify(snapshot));
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true });
        throw new PlexusError('UNAVAILABLE', `cannot write projection snapshot ${path}`, { cause: error });
      }
    },
    async list(): Promise<readonly string[]> {
      const files = await readdir(root).catch(() => [] as string[]);
      return files
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
        .sort();
    },
  };
}
