/**
 * One data directory, one node: an OS-level lock on the directory, taken before the node
 * opens its event log and held until it stops.
 *
 * The lock is SQLite's own file lock on `node.lock` (an otherwise empty SQLite database)
 * opened with `locking_mode=EXCLUSIVE`: after its first write the connection keeps the
 * exclusive lock (a POSIX advisory lock, `fcntl`, on Unix) until it closes. The kernel drops
 * that lock when the process dies, however it dies (`kill -9` included), so a stale lock
 * never blocks a restart and there is no pid to guess about (docs/decisions/overload.md).
 *
 * Beside it, `node.lock.json` names the holder (`pid`, and `port` once it listens) so a
 * refused start can say which node holds the directory. It is only information: the lock
 * is the database's, and a holder rewrites the file when it takes the lock.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PlexusError } from '../core/errors.js';

/** The lock database, in the data directory. */
export const DATA_DIR_LOCK_FILE = 'node.lock';

/** Who holds the lock (pid, port), in the data directory. */
export const DATA_DIR_HOLDER_FILE = 'node.lock.json';

/** What `node.lock.json` records. */
export interface DataDirHolder {
  readonly pid: number;
  /** The port the holder listens on, once it does. */
  readonly port?: number;
  /** When the holder took the lock, ISO 8601. */
  readonly since: string;
}

/** A held lock on a data directory. */
export interface DataDirLock {
  /** Records the port the holder listens on (shown to a refused second start). */
  announce(port: number): void;
  /** Releases the lock (idempotent). */
  release(): void;
}

function readHolder(dir: string): DataDirHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(join(dir, DATA_DIR_HOLDER_FILE), 'utf8')) as Partial<DataDirHolder>;
    if (typeof value.pid !== 'number' || !Number.isSafeInteger(value.pid)) return undefined;
    return {
      pid: value.pid,
      ...(typeof value.port === 'number' ? { port: value.port } : {}),
      since: typeof value.since === 'string' ? value.since : '',
    };
  } catch {
    return undefined;
  }
}

function writeHolder(dir: string, holder: DataDirHolder): void {
  const path = join(dir, DATA_DIR_HOLDER_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** The refusal of a second node on a held directory, naming the holder. */
function inUse(dir: string, cause: unknown): PlexusError {
  const holder = readHolder(dir);
  const who =
    holder === undefined
      ? 'another process (its pid is not recorded yet)'
      : `the plexus node with pid ${holder.pid}${
          holder.port === undefined ? ' (still starting, no port yet)' : ` listening on port ${holder.port}`
        }`;
  return new PlexusError(
    'UNAVAILABLE',
    `the data directory ${dir} is in use by ${who}; stop that node first, or pass another --data`,
    {
      cause,
      retryable: false,
      details: {
        dataDir: dir,
        ...(holder === undefined ? {} : { pid: holder.pid }),
        ...(holder?.port === undefined ? {} : { port: holder.port }),
      },
    },
  );
}

/**
 * Takes the lock on the data directory `dir` (which must exist) for this process.
 *
 * @throws PlexusError `UNAVAILABLE` (not retryable) naming the holder's pid and port when
 *   another node holds it, or saying why the lock file cannot be opened.
 * @example
 * const lock = lockDataDir('./.plexus');
 * lock.announce(3100);
 * lock.release();
 */
export function lockDataDir(dir: string): DataDirLock {
  let db: Database.Database | undefined;
  try {
    db = new Database(join(dir, DATA_DIR_LOCK_FILE), { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock; in EXCLUSIVE mode it is kept after COMMIT.
    db.exec(
      'BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL);',
    );
    db.prepare('INSERT OR REPLACE INTO holder (id, pid) VALUES (1, ?)').run(process.pid);
    db.exec('COMMIT');
  } catch (cause) {
    try {
      db?.close();
    } catch {
      // closing a connection that never locked anything cannot matter
    }
    if (isBusy(cause)) throw inUse(dir, cause);
    throw new PlexusError(
      'UNAVAILABLE',
      `cannot lock the data directory ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause, retryable: false, details: { dataDir: dir } },
    );
  }
  const held = db;
  const since = new Date().toISOString();
  writeHolder(dir, { pid: process.pid, since });
  let released = false;
  return {
    announce(port) {
      if (!released) writeHolder(dir, { pid: process.pid, port, since });
    },
    release() {
      if (released) return;
      released = true;
      // The information goes first: once the lock is free, a new holder writes its own.
      rmSync(join(dir, DATA_DIR_HOLDER_FILE), { force: true });
      held.close();
    },
  };
}
