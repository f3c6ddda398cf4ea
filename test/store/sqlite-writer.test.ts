import type { AnyEvents } from '../../src/store/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventCid } from '../../src/core/cid.js';
import type { JsonValue } from '../../src/core/json.js';
import { EVENT_DB_FILE, sqliteEventLog, type EventInput } from '../../src/store/index.js';
import { runEventLogContract } from './event-log-contract.js';
import { codeOf, ev } from './event-log-harness.js';

// The whole contract once more with the sealing and commits on the calling thread.
runEventLogContract('sqlite, writer on the calling thread', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-events-main-'));
  return {
    create: (init = {}) => sqliteEventLog<AnyEvents>({ ...init, dir, writer: 'main' }),
    tamper: async (log, tamper) => {
      await log.stop();
      const db = new Database(join(dir, EVENT_DB_FILE));
      try {
        if ('remove' in tamper) db.prepare('DELETE FROM events WHERE seq = ?').run(tamper.seq);
        else
          for (const [column, value] of Object.entries(tamper.set)) {
            const stored = column === 'data' ? JSON.stringify(value) : value;
            db.prepare(`UPDATE events SET ${column} = ? WHERE seq = ?`).run(stored, tamper.seq);
          }
      } finally {
        db.close();
      }
      const next = sqliteEventLog<AnyEvents>({ dir, writer: 'main' });
      await next.start();
      return next;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

/** Arbitrary event inputs: any JSON data, optional causation / tenant / trace. */
const inputArb: fc.Arbitrary<EventInput<AnyEvents>> = fc.record(
  {
    type: fc.constantFrom('a.b', 'job.submitted', 'x_1.y2.z'),
    data: fc.jsonValue() as fc.Arbitrary<JsonValue>,
    causation: fc.string({ minLength: 1, maxLength: 40 }),
    tenant: fc.string({ minLength: 1, maxLength: 10 }),
    trace: fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
  },
  { requiredKeys: ['type', 'data'] },
);

describe('sqliteEventLog writer thread', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-writer-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('computes every CID as the core eventCid does (any data, any optional fields)', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 8 }), async (inputs) => {
          const events = await log.append(inputs);
          for (const event of events) expect(event.cid).toBe(eventCid(event));
          expect(events[0]?.prev).toBe(
            events[0]!.seq === 1
              ? null
              : (await log.read({ afterSeq: events[0]!.seq - 2, limit: 1 }))[0]?.cid,
          );
        }),
        { numRuns: 60 },
      );
      expect(await log.verifyChain()).toMatchObject({ ok: true });
    } finally {
      await log.stop();
    }
  });

  it('writes the same chain as the calling-thread writer for the same appends', async () => {
    const at = Date.parse('2026-01-02T03:04:05.678Z');
    const appends = [
      [ev('a.b', { z: 1, a: ['ü', 2.5] }, { causation: 'c1', tenant: 't' })],
      [
        ev('c.d', null),
        ev('e.f', [1, 'x'], { trace: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
      ],
    ];
    const cids: string[][] = [];
    for (const writer of ['thread', 'main'] as const) {
      const sub = join(dir, writer);
      const log = sqliteEventLog<AnyEvents>({ dir: sub, writer, now: () => at });
      await log.start();
      const out: string[] = [];
      for (const batch of appends) out.push(...(await log.append(batch)).map((e) => e.cid));
      await log.stop();
      cids.push(out);
    }
    expect(cids[0]).toEqual(cids[1]);
  });

  it('keeps seqs gapless and each caller its own events under many concurrent appends', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    const results = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        i % 4 === 0
          ? log.append([ev('p.q', { i, k: 0 }), ev('p.q', { i, k: 1 })])
          : log.append([ev('p.q', { i })]),
      ),
    );
    results.forEach((events, i) => {
      for (const e of events) expect((e.data as { i: number }).i).toBe(i);
    });
    const seqs = results
      .flat()
      .map((e) => e.seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(await log.verifyChain()).toMatchObject({ ok: true, count: 500 });
    await log.stop();
  });

  it('hands full batches over within a turn and still drops appends aborted while queued', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    const aborts: AbortController[] = [];
    const pending = Array.from({ length: 300 }, (_, i) => {
      if (i % 7 !== 3) return log.append(ev('p.q', { i }));
      const controller = new AbortController();
      aborts.push(controller);
      return log.append(ev('p.q', { i }), { signal: controller.signal });
    });
    // Aborted in the same turn: those still queued are dropped, those handed over are committed.
    for (const controller of aborts) controller.abort();
    const settled = await Promise.allSettled(pending);
    const committed = settled.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    const dropped = settled.filter((r) => r.status === 'rejected');
    for (const r of dropped) expect((r.reason as { code?: string }).code).toBe('CANCELLED');
    expect(dropped.length).toBeGreaterThan(0); // the last ones of the turn were still queued
    settled.forEach((r, i) => {
      if (i % 7 !== 3) expect(r.status).toBe('fulfilled');
    });
    const seqs = committed.map((e) => e.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: committed.length }, (_, i) => i + 1));
    expect(await log.verifyChain()).toMatchObject({ ok: true, count: committed.length });
    expect(await log.read({ type: 'p.q' })).toHaveLength(committed.length);
    await log.stop();
  });

  it('fails a commit the database refuses, and the batch numbered after it, then goes on', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    await log.append(ev('ok.first', 1));
    const db = new Database(join(dir, EVENT_DB_FILE));
    db.exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.type = 'x.refused' BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END;",
    );
    db.close();
    const refused = log.append(ev('x.refused', 1));
    await new Promise((resolve) => setImmediate(resolve)); // the refused batch is handed over
    const after = log.append(ev('ok.after', 2)); // a batch numbered after the refused one
    expect(await codeOf(refused)).toBe('UNAVAILABLE');
    const second = await after.then(
      (e) => e.seq,
      (error: unknown) => (error as { code?: string }).code,
    );
    expect([2, 'UNAVAILABLE']).toContain(second);
    const next = await log.append(ev('ok.next', 3));
    expect(next.seq).toBe(second === 2 ? 3 : 2);
    expect(await log.verifyChain()).toMatchObject({ ok: true, count: next.seq });
    expect((await log.read()).map((e) => e.type)).not.toContain('x.refused');
    await log.stop();
  });

  it('indexes events by causation (a finished job is read back by it)', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    await log.append([
      ev('job.submitted', 1, { causation: 'j1' }),
      ev('job.submitted', 2, { causation: 'j2' }),
    ]);
    expect((await log.read({ causation: 'j2' })).map((e) => e.data)).toEqual([2]);
    await log.stop();
    const db = new Database(join(dir, EVENT_DB_FILE));
    const plan = db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT seq FROM events WHERE seq > ? AND type >= ? AND type < ? AND causation = ? ORDER BY seq LIMIT ?',
      )
      .all(0, 'job.', 'job/', 'j1', 10) as { detail: string }[];
    db.close();
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/events_causation_seq/);
  });

  it('refuses appends after stop and starts again with its chain', async () => {
    const log = sqliteEventLog<AnyEvents>({ dir });
    await log.start();
    const first = await log.append(ev('a.b', 1));
    await log.stop();
    expect(await codeOf(log.append(ev('a.b', 2)))).toBe('UNAVAILABLE');
    await log.start();
    expect(await log.append(ev('a.b', 3))).toMatchObject({ seq: 2, prev: first.cid });
    await log.stop();
    await log.stop();
  });
});
