import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEvents, EventLog } from '../../src/store/index.js';
import { EVENT_DB_FILE, sqliteEventLog } from '../../src/store/index.js';
import { normalizeRead } from '../../src/store/event-filter.js';
import { whereOf } from '../../src/store/sqlite-event-log.js';
import { runEventLogContract } from './event-log-contract.js';
import { codeOf, ev, type Tamper } from './event-log-harness.js';

const COLUMNS = new Set(['cid', 'prev', 'type', 'data', 'causation', 'trace', 'tenant', 'time']);

/** Runs raw SQL against a stopped log's database file. */
function raw(dir: string, run: (db: Database.Database) => void): void {
  const db = new Database(join(dir, EVENT_DB_FILE));
  try {
    run(db);
  } finally {
    db.close();
  }
}

/** Tampering with a SQLite log: a raw UPDATE or DELETE on its file, then reopen. */
function tamperSqlite(dir: string) {
  return async (log: EventLog<AnyEvents>, tamper: Tamper): Promise<EventLog<AnyEvents>> => {
    await log.stop();
    raw(dir, (db) => {
      if ('remove' in tamper) {
        db.prepare('DELETE FROM events WHERE seq = ?').run(tamper.seq);
        return;
      }
      for (const [column, value] of Object.entries(tamper.set)) {
        if (!COLUMNS.has(column)) throw new Error(`cannot tamper ${column}`);
        const stored = column === 'data' ? JSON.stringify(value) : value;
        db.prepare(`UPDATE events SET ${column} = ? WHERE seq = ?`).run(stored, tamper.seq);
      }
    });
    const next = sqliteEventLog<AnyEvents>({ dir });
    await next.start();
    return next;
  };
}

runEventLogContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-events-'));
  return {
    create: (init = {}) => sqliteEventLog<AnyEvents>({ ...init, dir }),
    tamper: tamperSqlite(dir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('sqliteEventLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-events-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the data directory and opens events.db in WAL mode', async () => {
    const nested = join(dir, 'a', 'b');
    const log = sqliteEventLog<AnyEvents>({ dir: nested });
    expect(log.path).toBe(join(nested, EVENT_DB_FILE));
    await log.start();
    await log.append(ev('a.b', 1));
    raw(nested, (db) => {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    });
    await log.stop();
  });

  it('checkpoints the WAL every checkpointPages pages, on either writer', async () => {
    /** WAL size after 3,000 events of ~400 bytes (~300 pages, far more with index pages). */
    const walAfterLoad = async (
      sub: string,
      init: { checkpointPages: number; writer: 'thread' | 'main' },
    ) => {
      const log = sqliteEventLog<AnyEvents>({ dir: join(dir, sub), ...init });
      await log.start();
      const text = 'x'.repeat(400);
      for (let i = 0; i < 30; i++) {
        await log.append(Array.from({ length: 100 }, (_, k) => ev('load.event', { i, k, text })));
      }
      const size = statSync(join(dir, sub, `${EVENT_DB_FILE}-wal`)).size;
      await log.stop();
      return size;
    };
    for (const writer of ['thread', 'main'] as const) {
      const small = await walAfterLoad(`small-${writer}`, { checkpointPages: 100, writer });
      const large = await walAfterLoad(`large-${writer}`, { checkpointPages: 100_000, writer });
      // every 100 pages the WAL is copied back and starts over; without, it keeps every frame
      expect(small).toBeLessThan(150 * 4096 + 200 * 1024);
      expect(large).toBeGreaterThan(small * 2);
    }
  });

  it('refuses a checkpoint interval below 100 pages or not a whole number', () => {
    for (const checkpointPages of [0, 99, 1.5, Number.NaN]) {
      expect(() => sqliteEventLog<AnyEvents>({ dir, checkpointPages })).toThrow(
        /checkpointPages must be a whole number/,
      );
    }
  });

  it('looks a job.submitted data key up through its partial index, not a scan (A2A-23)', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    await log.append([
      ev('job.submitted', { id: 'j1', key: '|a2a:m1' }),
      ev('job.completed', { id: 'j1' }),
      ev('job.submitted', { id: 'j2', key: '|a2a:m2' }),
    ]);
    expect((await log.read({ type: 'job.submitted', key: '|a2a:m2' })).map((e) => e.seq)).toEqual([3]);
    await log.stop();
    raw(dir, (db) => {
      const plan = (options: Parameters<typeof normalizeRead>[0]): string => {
        const where = whereOf(normalizeRead(options));
        const rows = db
          .prepare(`EXPLAIN QUERY PLAN SELECT seq FROM events WHERE ${where.sql} ORDER BY seq LIMIT ?`)
          .all(...where.params, 10) as { detail: string }[];
        return rows.map((r) => r.detail).join('; ');
      };
      expect(plan({ type: 'job.submitted', key: '|a2a:m1' })).toMatch(/USING INDEX events_submitted_key_seq/);
      expect(plan({ type: 'job.submitted', key: '|a2a:m1', afterSeq: 5 })).toMatch(
        /USING INDEX events_submitted_key_seq/,
      );
    });
  });

  it('continues seq and chain when a new instance reopens the database', async () => {
    const first = sqliteEventLog<AnyEvents>({ dir });
    await first.start();
    await first.append([ev('a.b', 1), ev('a.b', 2)]);
    const last = await first.append(ev('a.b', 3), {});
    await first.stop();
    const second = sqliteEventLog<AnyEvents>({ dir, synchronous: 'full' });
    await second.start();
    expect(await second.head()).toEqual({ seq: 3, cid: last.cid });
    const next = await second.append(ev('a.b', 4));
    expect(next).toMatchObject({ seq: 4, prev: last.cid });
    expect(await second.verifyChain()).toMatchObject({ ok: true, count: 4 });
    await second.stop();
  });

  it('reports a row whose data is not JSON as malformed, and refuses to read it', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    await log.append([ev('a.b', 1), ev('a.b', 2)]);
    await log.stop();
    raw(dir, (db) => db.prepare("UPDATE events SET data = '{broken' WHERE seq = 2").run());
    await log.start();
    expect(await log.verifyChain()).toMatchObject({ ok: false, count: 1, seq: 2, fault: 'malformed' });
    expect(await codeOf(log.read())).toBe('INTERNAL');
    await log.stop();
  });

  it('detects a second writer on the same database with CONFLICT', async () => {
    const a = sqliteEventLog<AnyEvents>({ dir });
    const b = sqliteEventLog<AnyEvents>({ dir });
    await a.start();
    await b.start();
    await a.append(ev('w.a', 1));
    const error = await b.append(ev('w.b', 1)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFLICT' });
    expect((error as Error).message).toMatch(/another writer/);
    await a.stop();
    await b.stop();
  });

  it('refuses a database written by a newer schema version', async () => {
    raw(dir, (db) => db.pragma('user_version = 99'));
    const log = sqliteEventLog<AnyEvents>({ dir });
    expect(await codeOf(log.start())).toBe('VERSION_MISMATCH');
    await log.stop();
  });
});
