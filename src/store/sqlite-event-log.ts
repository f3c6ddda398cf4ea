/**
 * The SQLite event log (the default backend): the shared engine over `better-sqlite3` in
 * WAL mode, one file `<dir>/events.db`.
 *
 * Table design follows DESIGN §7: `seq INTEGER PRIMARY KEY` (the rowid, time-ordered), no
 * UNIQUE index on hashes, secondary indexes `(type, seq)` and `(causation, seq)` (a job's
 * events, read back when a finished job is no longer kept in memory), and `(data.key, seq)` of
 * `job.submitted` (an idempotency key no longer kept in memory, A2A-23); every batch is one
 * `BEGIN IMMEDIATE` transaction through prepared statements. `data` is stored as JSON text.
 *
 * Durability: `synchronous=NORMAL` (default) makes every commit survive a crash of the
 * process (kill -9) — the WAL is written before the promise resolves — but the last commits
 * may be lost on a power cut or kernel crash. `synchronous: 'full'` fsyncs every commit.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { Event } from '../core/records/event.js';
import { createEventLog, type EventLogInit } from './create-event-log.js';
import { deepFreeze } from './event-chain.js';
import type { EventQuery } from './event-filter.js';
import type { EventLogBackend, ScannedRow, SealBatch } from './event-log-backend.js';
import { startSqliteWriter, type SqliteWriter } from './sqlite-writer.js';
import type { EventLog, EventLogHead } from './event-log.js';
import type { EventMap, EventTypes } from './event-map.js';

/** File name of the event database inside the data directory. */
export const EVENT_DB_FILE = 'events.db';

/** Schema version kept in `PRAGMA user_version`. */
export const EVENT_DB_SCHEMA_VERSION = 1;

/** Options of {@link sqliteEventLog}. */
export interface SqliteEventLogInit extends EventLogInit {
  /** The node's data directory; created if missing. The log is `<dir>/events.db`. */
  readonly dir: string;
  /**
   * SQLite `synchronous` mode. `normal` survives a process crash; `full` also a power cut,
   * at the cost of an fsync per commit.
   * @default 'normal'
   */
  readonly synchronous?: 'normal' | 'full';
  /**
   * Where appends are sealed (CIDs hashed) and committed: `'thread'` on a writer thread with
   * its own connection, off the event loop (reads stay on the calling thread); `'main'` on the
   * calling thread. Same log, same durability either way: an append resolves after its commit.
   * @default 'thread'
   */
  readonly writer?: 'thread' | 'main';
  /**
   * WAL pages (4 KiB each) after which a commit copies the write-ahead log back into the
   * database file (SQLite `wal_autocheckpoint`). Each checkpoint stalls the writer while it
   * writes and syncs the file; an append-only log rewrites the same tail pages in every
   * commit, so a longer interval copies each of them once instead of many times and stalls
   * less often. The WAL file is trimmed back to {@link WAL_SIZE_LIMIT_BYTES} after a
   * checkpoint. A whole number ≥ 100.
   * @default DEFAULT_CHECKPOINT_PAGES (10000, about 40 MiB of WAL)
   */
  readonly checkpointPages?: number;
}

/** The default {@link SqliteEventLogInit.checkpointPages} (Perf-P5-002). */
export const DEFAULT_CHECKPOINT_PAGES = 10_000;

/** The size, in bytes, the WAL file is trimmed back to after a checkpoint (`journal_size_limit`). */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/** @throws PlexusError `INVALID_PARAMS` unless `pages` is a whole number ≥ 100. */
function checkCheckpointPages(pages: number): number {
  if (!Number.isSafeInteger(pages) || pages < 100) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `checkpointPages must be a whole number of at least 100 WAL pages, got ${String(pages)}`,
    );
  }
  return pages;
}

/** The SQLite event log, with the path of its database file. */
export interface SqliteEventLog<M extends EventTypes = EventMap> extends EventLog<M> {
  /** Absolute or relative path of the database file (`<dir>/events.db`). */
  readonly path: string;
}

interface Row {
  seq: number;
  cid: string;
  prev: string | null;
  type: string;
  data: string;
  causation: string | null;
  trace: string | null;
  tenant: string | null;
  time: string;
}

/**
 * The one event type whose data's \`key\` is indexed (\`events_submitted_key_seq\`, a partial
 * index): the runtime's idempotency key on \`job.submitted\` (D5, A2A-23), looked up when the
 * idempotency projection no longer keeps it in memory.
 */
const INDEXED_KEY_TYPE = 'job.submitted';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY,
  cid TEXT NOT NULL,
  prev TEXT,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  causation TEXT,
  trace TEXT,
  tenant TEXT,
  time TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS events_type_seq ON events (type, seq);
CREATE INDEX IF NOT EXISTS events_causation_seq ON events (causation, seq) WHERE causation IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_submitted_key_seq ON events (json_extract(data, '$.key'), seq) WHERE type = '${INDEXED_KEY_TYPE}';
`;

const COLUMNS = 'seq, cid, prev, type, data, causation, trace, tenant, time';

/** Rows per multi-row INSERT in a commit (9 parameters each, far below SQLite's limit). */
const INSERT_CHUNK = 16;

const ROW_PLACEHOLDERS = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Appends the column values of `e` to `params`, in {@link COLUMNS} order. */
function pushRow(params: (string | number | null)[], e: Event, dataText: string | undefined): void {
  params.push(
    e.seq,
    e.cid,
    e.prev,
    e.type,
    // the canonical text built for hashing, when given: no second serialisation
    dataText ?? JSON.stringify(e.data),
    e.causation ?? null,
    e.trace ?? null,
    e.tenant ?? null,
    e.time,
  );
}

/** Turns a row into a frozen Event. @throws SyntaxError when `data` is not JSON. */
function toEvent(row: Row): Event {
  const event: { -readonly [K in keyof Event]: Event[K] } = {
    seq: row.seq,
    cid: row.cid,
    prev: row.prev,
    type: row.type,
    data: JSON.parse(row.data) as JsonValue,
    time: row.time,
  };
  if (row.causation !== null) event.causation = row.causation;
  if (row.trace !== null) event.trace = row.trace;
  if (row.tenant !== null) event.tenant = row.tenant;
  return deepFreeze(event);
}

/** Builds the WHERE clause and parameters of a read (exported for the query-plan test). */
export function whereOf(query: EventQuery): { key: string; sql: string; params: (string | number)[] } {
  const parts = ['seq > ?'];
  const params: (string | number)[] = [query.afterSeq];
  let key = '';
  if (query.untilSeq !== undefined) {
    parts.push('seq <= ?');
    params.push(query.untilSeq);
    key += 'u';
  }
  if (query.key !== undefined && query.types?.length === 1 && query.types[0] === INDEXED_KEY_TYPE) {
    // the partial index's own condition, as a literal, so the planner uses it
    parts.push(`type = '${INDEXED_KEY_TYPE}'`);
    key += 'T';
  } else if (query.types !== undefined) {
    parts.push(`type IN (${query.types.map(() => '?').join(',')})`);
    params.push(...query.types);
    key += `t${query.types.length}`;
  }
  if (query.typePrefix !== undefined) {
    // Event types are ASCII below U+007F, so [prefix, prefix + U+007F) is exactly the prefix range.
    parts.push('type >= ? AND type < ?');
    params.push(query.typePrefix, query.typePrefix + '\u007f');
    key += 'p';
  }
  if (query.tenant !== undefined) {
    parts.push('tenant = ?');
    params.push(query.tenant);
    key += 'n';
  }
  if (query.causation !== undefined) {
    parts.push('causation = ?');
    params.push(query.causation);
    key += 'c';
  }
  if (query.key !== undefined) {
    parts.push(`json_extract(data, '$.key') = ?`);
    params.push(query.key);
    key += 'k';
  }
  if (query.traceId !== undefined) {
    parts.push('substr(trace, 4, 32) = ?');
    params.push(query.traceId);
    key += 'r';
  }
  return { key, sql: parts.join(' AND '), params };
}

function sqliteBackend(
  path: string,
  dir: string,
  synchronous: 'normal' | 'full',
  threaded: boolean,
  checkpointPages: number,
): EventLogBackend {
  let db: Database.Database | undefined;
  let writer: SqliteWriter | undefined;
  let insert: Database.Statement | undefined;
  let insertMany: Database.Statement | undefined;
  let lastRow: Database.Statement | undefined;
  let scanRows: Database.Statement | undefined;
  let commitTx: ((events: readonly Event[], dataTexts: readonly string[] | undefined) => void) | undefined;
  const reads = new Map<string, Database.Statement>();
  const description = `sqlite event log at ${path}`;

  /** Closes the calling thread's connection. */
  const close = (): void => {
    reads.clear();
    insert = insertMany = lastRow = scanRows = undefined;
    commitTx = undefined;
    const handle = db;
    db = undefined;
    handle?.close();
  };

  const open = (): Database.Database => {
    if (db === undefined)
      throw new PlexusError('UNAVAILABLE', `${description} is closed`, { retryable: false });
    return db;
  };

  const backend: { -readonly [K in keyof EventLogBackend]: EventLogBackend[K] } = {
    description,
    open(): EventLogHead | Promise<EventLogHead> {
      mkdirSync(dir, { recursive: true });
      const handle = new Database(path);
      try {
        handle.pragma('journal_mode = WAL');
        handle.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
        handle.pragma('busy_timeout = 5000');
        handle.pragma(`wal_autocheckpoint = ${checkpointPages}`);
        handle.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
        const version = handle.pragma('user_version', { simple: true }) as number;
        if (version > EVENT_DB_SCHEMA_VERSION) {
          throw new PlexusError(
            'VERSION_MISMATCH',
            `${description} has schema version ${version}; this Plexus reads up to ${EVENT_DB_SCHEMA_VERSION}. Upgrade Plexus.`,
          );
        }
        handle.exec(SCHEMA);
        handle.pragma(`user_version = ${EVENT_DB_SCHEMA_VERSION}`);
      } catch (error) {
        handle.close();
        throw error;
      }
      db = handle;
      insert = handle.prepare(`INSERT INTO events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      insertMany = handle.prepare(
        `INSERT INTO events (${COLUMNS}) VALUES ${Array.from({ length: INSERT_CHUNK }, () => ROW_PLACEHOLDERS).join(', ')}`,
      );
      lastRow = handle.prepare('SELECT seq, cid FROM events ORDER BY seq DESC LIMIT 1');
      scanRows = handle.prepare(`SELECT ${COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`);
      const tx = handle.transaction((events: readonly Event[], dataTexts: readonly string[] | undefined) => {
        const last = lastRow?.get() as { seq: number } | undefined;
        const first = events[0];
        if (first !== undefined && (last?.seq ?? 0) + 1 !== first.seq) {
          throw new PlexusError(
            'CONFLICT',
            `${description}: the stored head is seq ${last?.seq ?? 0}, expected ${first.seq - 1}; another writer is using this database`,
          );
        }
        // Full chunks go through one multi-row INSERT each (one statement step per chunk, not
        // per event); the remainder row by row.
        const params: (string | number | null)[] = [];
        let i = 0;
        for (; i + INSERT_CHUNK <= events.length; i += INSERT_CHUNK) {
          params.length = 0;
          for (let j = i; j < i + INSERT_CHUNK; j++) pushRow(params, events[j] as Event, dataTexts?.[j]);
          insertMany?.run(params);
        }
        for (; i < events.length; i++) {
          params.length = 0;
          pushRow(params, events[i] as Event, dataTexts?.[i]);
          insert?.run(params);
        }
      });
      commitTx = (events, dataTexts) => {
        tx.immediate(events, dataTexts);
      };
      const row = lastRow.get() as { seq: number; cid: string } | undefined;
      const head: EventLogHead = row === undefined ? { seq: 0, cid: null } : { seq: row.seq, cid: row.cid };
      if (!threaded) return head;
      return startSqliteWriter({
        path,
        synchronous,
        description,
        checkpointPages,
        walSizeLimitBytes: WAL_SIZE_LIMIT_BYTES,
      }).then(
        (started) => {
          writer = started;
          return head;
        },
        (error: unknown) => {
          close();
          throw error;
        },
      );
    },
    commit(events: readonly Event[], dataTexts?: readonly string[]): void {
      open();
      commitTx?.(events, dataTexts?.length === events.length ? dataTexts : undefined);
    },
    read(query: EventQuery): readonly Event[] {
      const handle = open();
      const where = whereOf(query);
      let statement = reads.get(where.key);
      if (statement === undefined) {
        statement = handle.prepare(`SELECT ${COLUMNS} FROM events WHERE ${where.sql} ORDER BY seq LIMIT ?`);
        reads.set(where.key, statement);
      }
      const rows = statement.all(...where.params, query.limit) as Row[];
      return rows.map((row) => {
        try {
          return toEvent(row);
        } catch (cause) {
          throw new PlexusError(
            'INTERNAL',
            `${description}: event seq ${row.seq} is damaged (data is not JSON)`,
            {
              cause,
            },
          );
        }
      });
    },
    scan(afterSeq: number, limit: number): readonly ScannedRow[] {
      open();
      const rows = scanRows?.all(afterSeq, limit) as Row[];
      return rows.map((row): ScannedRow => {
        try {
          return toEvent(row);
        } catch {
          return { seq: row.seq, damaged: `event seq ${row.seq} is damaged: its data is not JSON text` };
        }
      });
    },
    async close(): Promise<void> {
      const running = writer;
      writer = undefined;
      try {
        await running?.close();
      } finally {
        close();
      }
    },
  };
  if (threaded) {
    backend.sealAndCommit = (batch: SealBatch): Promise<readonly string[]> => {
      if (writer === undefined) {
        return Promise.reject(
          new PlexusError('UNAVAILABLE', `${description} is closed`, { retryable: false }),
        );
      }
      return writer.commit(batch);
    };
  }
  return backend;
}

/**
 * Creates the SQLite event log in `init.dir` (file `events.db`). Call `start()` to open it;
 * an existing log is continued (its seq and hash chain). One process writes a log at a
 * time; a second writer is detected at commit and gets `CONFLICT`.
 *
 * @throws PlexusError `INVALID_PARAMS` for a `checkpointPages` that is not a whole number ≥ 100.
 *
 * @example
 * const log = sqliteEventLog({ dir: '.plexus' });
 * await log.start();
 * await log.append({ type: 'agent.registered', data: { id: 'echo' } });
 * await log.stop();
 */
export function sqliteEventLog<M extends EventTypes = EventMap>(init: SqliteEventLogInit): SqliteEventLog<M> {
  const path = join(init.dir, EVENT_DB_FILE);
  const backend = sqliteBackend(
    path,
    init.dir,
    init.synchronous ?? 'normal',
    (init.writer ?? 'thread') === 'thread',
    checkCheckpointPages(init.checkpointPages ?? DEFAULT_CHECKPOINT_PAGES),
  );
  const log = createEventLog<M>(backend, init);
  return Object.assign(log, { path });
}
