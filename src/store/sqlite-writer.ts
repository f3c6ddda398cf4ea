/**
 * The SQLite log's writer thread: seals each batch (the CID chain of D9) and commits it in
 * one `BEGIN IMMEDIATE` transaction on a `worker_threads` worker with its own connection, so
 * the hashing and the SQLite work of every append leave the node's event loop (Perf-P3-001).
 * The main thread keeps a connection for reads; WAL lets both work at once.
 *
 * The worker's code is {@link writerMain}, a self-contained function (no imports, no closure)
 * started from its source text (`eval`), so the same code runs from `dist/` and from the
 * TypeScript sources under test. It computes CIDs exactly as `sealEvent` does — the tests
 * compare the two, and `verifyChain` recomputes every CID on the independent core path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { PlexusError, toPlexusError } from '../core/errors.js';
import type { SealBatch } from './event-log-backend.js';

/** A running writer thread. */
export interface SqliteWriter {
  /**
   * Seals and commits a batch; resolves with each event's CID once it is committed.
   * @throws PlexusError `CONFLICT` when the stored head is not `firstSeq − 1` (another
   *   writer); `UNAVAILABLE` when the commit fails or the thread has stopped.
   */
  commit(batch: SealBatch): Promise<readonly string[]>;
  /** Finishes the commit in flight, closes the connection and ends the thread. Safe twice. */
  close(): Promise<void>;
}

/** Options of {@link startSqliteWriter}. */
export interface SqliteWriterInit {
  /** The database file (its schema already created). */
  readonly path: string;
  readonly synchronous: 'normal' | 'full';
  /** For messages: `sqlite event log at …`. */
  readonly description: string;
  /** SQLite `wal_autocheckpoint` of the writer's connection, in pages. */
  readonly checkpointPages: number;
  /** SQLite `journal_size_limit`, in bytes: the WAL is trimmed to it after a checkpoint. */
  readonly walSizeLimitBytes: number;
}

/** Fields per event in a commit message: type, dataText, causation, trace, tenant. */
const FIELDS = 5;

/** Characters of one CID (`bagaaiera` + 52 base32 characters). */
const CID_CHARS = 61;

interface WriterData {
  readonly sqlite: string;
  readonly path: string;
  readonly synchronous: 'NORMAL' | 'FULL';
  readonly checkpointPages: number;
  readonly walSizeLimitBytes: number;
}

interface CommitMessage {
  readonly id: number;
  readonly firstSeq: number;
  readonly time: string;
  /** The length of each field, {@link FIELDS} per event; -1 for an absent one. */
  readonly lengths: Int32Array;
  /** Every present field, concatenated in order. */
  readonly text: string;
}

type WriterReply =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'closed' }
  | { readonly id: number; readonly cids: string }
  | { readonly id: number; readonly conflict?: boolean; readonly message: string };

/* eslint-disable */
/**
 * The worker: opens its connection, then for each commit message computes every event's
 * hashed body (RFC 8785 key order: causation, data, prev, tenant, time, trace, type), its
 * CIDv1 (json codec, sha2-256, base32) and inserts the rows in one transaction. Replies with
 * the CIDs concatenated (61 characters each). Self-contained: it runs from its source text.
 */
function writerMain(
  require: (id: string) => any,
  data: {
    sqlite: string;
    path: string;
    synchronous: string;
    checkpointPages: number;
    walSizeLimitBytes: number;
  },
  port: any,
): void {
  const crypto = require('node:crypto');
  const digestOf: (text: string) => any =
    typeof crypto.hash === 'function'
      ? (text) => crypto.hash('sha256', text, 'buffer')
      : (text) => crypto.createHash('sha256').update(text).digest();
  const A: any = 'abcdefghijklmnopqrstuvwxyz234567';
  const cidOf = (text: string): string => {
    const d = digestOf(text);
    let out = 'bagaaiera';
    for (let i = 0; i < 30; i += 5) {
      const hi = (d[i] << 12) | (d[i + 1] << 4) | (d[i + 2] >>> 4);
      const lo = ((d[i + 2] & 15) << 16) | (d[i + 3] << 8) | d[i + 4];
      out += A[hi >>> 15] + A[(hi >>> 10) & 31] + A[(hi >>> 5) & 31] + A[hi & 31];
      out += A[lo >>> 15] + A[(lo >>> 10) & 31] + A[(lo >>> 5) & 31] + A[lo & 31];
    }
    const tail = (d[30] << 8) | d[31];
    return out + A[tail >>> 11] + A[(tail >>> 6) & 31] + A[(tail >>> 1) & 31] + A[(tail & 1) << 4];
  };
  let db: any;
  try {
    const Database = require(data.sqlite);
    db = new Database(data.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = ' + data.synchronous);
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_autocheckpoint = ' + Number(data.checkpointPages));
    db.pragma('journal_size_limit = ' + Number(data.walSizeLimitBytes));
  } catch (error: any) {
    port.postMessage({ type: 'failed', message: String(error && error.message) });
    return;
  }
  const COLUMNS = 'seq, cid, prev, type, data, causation, trace, tenant, time';
  const CHUNK = 16;
  const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
  // One INSERT of k rows per k in 1..CHUNK, prepared on first use: a batch's rows go in one
  // statement per CHUNK rows and one for the rest, not one statement per row (Perf-P6-004).
  const inserts: any[] = [];
  const insertOf = (k: number): any =>
    (inserts[k] ??= db.prepare(
      'INSERT INTO events (' + COLUMNS + ') VALUES ' + Array.from({ length: k }, () => ROW).join(', '),
    ));
  const lastRow = db.prepare('SELECT seq, cid FROM events ORDER BY seq DESC LIMIT 1');
  const CONFLICT = { conflict: true };
  // The head this writer last committed (or found): the chain continues from it.
  const found = lastRow.get();
  let headSeq: number = found === undefined ? 0 : found.seq;
  let headCid: string | null = found === undefined ? null : found.cid;
  const tx = db.transaction((msg: any): string => {
    const last = lastRow.get();
    const stored = last === undefined ? 0 : last.seq;
    if (stored !== headSeq) {
      throw Object.assign(new Error('the stored head is seq ' + stored + ', expected ' + headSeq), CONFLICT);
    }
    // The fields arrive as one text and their lengths (-1: absent): far cheaper to post than
    // a list of strings.
    const lengths = msg.lengths;
    const text = msg.text;
    let pos = 0;
    const f: (string | null)[] = new Array(lengths.length);
    for (let k = 0; k < lengths.length; k++) {
      const len = lengths[k];
      if (len < 0) f[k] = null;
      else {
        f[k] = text.slice(pos, pos + len);
        pos += len;
      }
    }
    const n = f.length / 5;
    const time = msg.time;
    const timeJson = JSON.stringify(time);
    let prev = headCid;
    let cids = '';
    const params: any[] = [];
    let rows = 0;
    for (let i = 0; i < n; i++) {
      const type = f[i * 5];
      const dataText = f[i * 5 + 1];
      const causation = f[i * 5 + 2];
      const trace = f[i * 5 + 3];
      const tenant = f[i * 5 + 4];
      let body = '{';
      if (causation !== null) body += '"causation":' + JSON.stringify(causation) + ',';
      body += '"data":' + dataText + ',"prev":' + (prev === null ? 'null' : JSON.stringify(prev));
      if (tenant !== null) body += ',"tenant":' + JSON.stringify(tenant);
      body += ',"time":' + timeJson;
      if (trace !== null) body += ',"trace":' + JSON.stringify(trace);
      body += ',"type":' + JSON.stringify(type) + '}';
      const cid = cidOf(body);
      params.push(msg.firstSeq + i, cid, prev, type, dataText, causation, trace, tenant, time);
      prev = cid;
      cids += cid;
      if (++rows === CHUNK) {
        insertOf(CHUNK).run(params);
        params.length = 0;
        rows = 0;
      }
    }
    if (rows > 0) insertOf(rows).run(params);
    return cids;
  });
  const commit = (msg: any): string => {
    const cids = tx.immediate(msg);
    const n = msg.lengths.length / 5;
    if (n > 0) {
      headSeq = msg.firstSeq + n - 1;
      headCid = cids.slice(cids.length - 61);
    }
    return cids;
  };
  port.on('message', (msg: any) => {
    if (msg.type === 'close') {
      try {
        db.close();
      } finally {
        port.postMessage({ type: 'closed' });
        port.close();
      }
      return;
    }
    if (msg.firstSeq !== headSeq + 1) {
      // an earlier batch failed: this one was numbered after it
      port.postMessage({ id: msg.id, message: 'an earlier commit failed, so this one was not made' });
      return;
    }
    try {
      port.postMessage({ id: msg.id, cids: commit(msg) });
    } catch (error: any) {
      port.postMessage({
        id: msg.id,
        conflict: error !== null && typeof error === 'object' && error.conflict === true,
        message: String(error && error.message),
      });
    }
  });
  port.postMessage({ type: 'ready' });
}
/* eslint-enable */

/** The worker's script: {@link writerMain} called with the worker's `require`, data and port. */
const WRITER_SOURCE = `'use strict';
const { workerData, parentPort } = require('node:worker_threads');
(${writerMain.toString()})(require, workerData, parentPort);`;

/** Absolute path of better-sqlite3, for the worker's `require` (its cwd may be anywhere). */
const SQLITE_MODULE = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Starts the writer thread on an existing database file and waits until it has opened it.
 *
 * @throws PlexusError `UNAVAILABLE` when the thread cannot start or open the file.
 */
export function startSqliteWriter(init: SqliteWriterInit): Promise<SqliteWriter> {
  const data: WriterData = {
    sqlite: SQLITE_MODULE,
    path: init.path,
    synchronous: init.synchronous === 'full' ? 'FULL' : 'NORMAL',
    checkpointPages: init.checkpointPages,
    walSizeLimitBytes: init.walSizeLimitBytes,
  };
  // No execArgv: an inherited `--input-type=module` would make the eval'd script a module.
  const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: data, execArgv: [] });
  const waiting = new Map<
    number,
    { resolve: (cids: readonly string[]) => void; reject: (e: unknown) => void; size: number }
  >();
  let nextId = 1;
  let stopped: PlexusError | undefined;
  let closing: Promise<void> | undefined;
  let onClosed: (() => void) | undefined;

  const fail = (error: PlexusError): void => {
    stopped ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
    worker.unref();
  };

  return new Promise<SqliteWriter>((resolveStart, rejectStart) => {
    const cannotStart = (message: string): void => {
      const error = new PlexusError(
        'UNAVAILABLE',
        `${init.description}: the writer thread cannot start: ${message}`,
      );
      fail(error);
      rejectStart(error);
      void worker.terminate();
    };
    worker.on('error', (error: unknown) => {
      const failure = new PlexusError(
        'UNAVAILABLE',
        `${init.description}: the writer thread failed: ${toPlexusError(error).message}`,
        { cause: error },
      );
      fail(failure);
      rejectStart(failure);
    });
    worker.on('exit', () => {
      fail(
        new PlexusError('UNAVAILABLE', `${init.description}: the writer thread has stopped`, {
          retryable: false,
        }),
      );
      onClosed?.();
      rejectStart(
        stopped ?? new PlexusError('UNAVAILABLE', `${init.description}: the writer thread has stopped`),
      );
    });
    worker.on('message', (reply: WriterReply) => {
      if ('type' in reply) {
        if (reply.type === 'ready') {
          worker.unref();
          resolveStart(writer);
        } else if (reply.type === 'failed') cannotStart(reply.message);
        return;
      }
      const w = waiting.get(reply.id);
      if (w === undefined) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) worker.unref();
      if ('cids' in reply) {
        const cids = new Array<string>(w.size);
        for (let i = 0; i < w.size; i++) cids[i] = reply.cids.slice(i * CID_CHARS, (i + 1) * CID_CHARS);
        w.resolve(cids);
      } else if (reply.conflict === true) {
        w.reject(
          new PlexusError(
            'CONFLICT',
            `${init.description}: ${reply.message}; another writer is using this database`,
          ),
        );
      } else {
        w.reject(new PlexusError('UNAVAILABLE', `${init.description}: commit failed: ${reply.message}`));
      }
    });

    const writer: SqliteWriter = {
      commit(batch: SealBatch): Promise<readonly string[]> {
        if (stopped !== undefined || closing !== undefined) {
          return Promise.reject(stopped ?? new PlexusError('UNAVAILABLE', `${init.description} is closed`));
        }
        const lengths = new Int32Array(batch.inputs.length * FIELDS);
        let text = '';
        let k = 0;
        const add = (field: string | undefined): void => {
          if (field === undefined) lengths[k++] = -1;
          else {
            lengths[k++] = field.length;
            text += field;
          }
        };
        for (const input of batch.inputs) {
          add(input.type);
          add(input.dataText);
          add(input.causation);
          add(input.trace);
          add(input.tenant);
        }
        const id = nextId++;
        const message: CommitMessage = { id, firstSeq: batch.firstSeq, time: batch.time, lengths, text };
        return new Promise<readonly string[]>((resolve, reject) => {
          waiting.set(id, { resolve, reject, size: batch.inputs.length });
          worker.ref(); // a commit in flight keeps the process alive
          worker.postMessage(message);
        });
      },
      close(): Promise<void> {
        closing ??= new Promise<void>((resolve) => {
          if (stopped !== undefined) {
            resolve();
            return;
          }
          onClosed = resolve;
          worker.ref();
          worker.postMessage({ type: 'close' });
        });
        return closing;
      },
    };
  });
}
