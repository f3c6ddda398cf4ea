import { describe, expect, it } from 'vitest';
import type { Event, AnyEvents, EventLog } from '../../src/store/index.js';
import { codeOf, ev, take, tick, type EventLogHarness } from './event-log-harness.js';

/** Concurrency, group commit, subscriptions and lifecycle: part of runEventLogContract. */
export function runEventLogLiveContract(ctx: () => { h: EventLogHarness; log: EventLog<AnyEvents> }): void {
  describe('group commit and concurrency', () => {
    it('keeps a gap-free total order under many concurrent callers, each getting its own events', async () => {
      const { log } = ctx();
      const callers = Array.from({ length: 120 }, (_, c) => {
        const size = (c % 3) + 1;
        const inputs = Array.from({ length: size }, (_, k) => ev('load.item', { c, k }));
        return (async () => {
          await tick(c % 4);
          return size === 1 ? [await log.append(inputs[0]!)] : await log.append(inputs);
        })();
      });
      const results = await Promise.all(callers);
      results.forEach((events, c) => {
        expect(events.map((e) => e.data)).toEqual(events.map((_, k) => ({ c, k })));
        events.forEach((e, k) => {
          if (k > 0) expect(e.seq).toBe(events[k - 1]!.seq + 1);
        });
      });
      const all = results
        .flat()
        .map((e) => e.seq)
        .sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
      const stored = await log.read({ limit: 1000 });
      expect(stored.map((e) => e.cid)).toEqual(
        results
          .flat()
          .sort((a, b) => a.seq - b.seq)
          .map((e) => e.cid),
      );
      expect(await log.verifyChain()).toMatchObject({ ok: true, count: all.length });
    });

    it('commits appends made in the same turn as one batch (they share one time stamp)', async () => {
      const { h } = ctx();
      let clock = 1_700_000_000_000;
      const log = h.create({ now: () => (clock += 1000) });
      await log.start();
      try {
        const same = await Promise.all(Array.from({ length: 30 }, (_, i) => log.append(ev('b.e', i))));
        expect(new Set(same.map((e) => e.time)).size).toBe(1);
        const later = await log.append(ev('b.e', 'later'));
        expect(later.time).not.toBe(same[0]?.time);
      } finally {
        await log.stop();
      }
    });

    it('splits a large queue into batches of at most maxBatch but never splits one append', async () => {
      const { h } = ctx();
      let clock = 1_700_000_000_000;
      const log = h.create({ now: () => (clock += 1000), maxBatch: 4 });
      await log.start();
      try {
        const calls = [3, 3, 1, 6].map((n, c) =>
          log.append(Array.from({ length: n }, (_, k) => ev('s.e', { c, k }))),
        );
        const res = await Promise.all(calls);
        const times = res.map((events) => new Set(events.map((e) => e.time)));
        times.forEach((t) => {
          expect(t.size).toBe(1);
        });
        expect([...times[0]!][0]).not.toBe([...times[1]!][0]);
        expect([...times[1]!][0]).toBe([...times[2]!][0]);
        expect(res[3]!.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12, 13]);
      } finally {
        await log.stop();
      }
    });
  });

  describe('subscribe', () => {
    it('replays the backlog, then yields live events with no gap or duplicate', async () => {
      const { log } = ctx();
      await log.append(Array.from({ length: 5 }, (_, i) => ev('s.x', i)));
      const received = take(log.subscribe(2), 7);
      await tick();
      await log.append(ev('s.x', 5));
      await Promise.all([log.append(ev('s.x', 6)), log.append(ev('s.x', 7)), log.append(ev('s.x', 8))]);
      expect((await received).map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    });

    it('crosses the backlog/live boundary exactly while appends race it (small pages, tiny buffer)', async () => {
      const { h } = ctx();
      const log = h.create({ pageSize: 3, subscriberHighWater: 2 });
      await log.start();
      try {
        await log.append(Array.from({ length: 10 }, (_, i) => ev('r.x', i)));
        const total = 200;
        const writer = (async () => {
          for (let i = 10; i < total; i += 1 + (i % 3)) {
            const n = Math.min(1 + (i % 3), total - i);
            await log.append(Array.from({ length: n }, (_, k) => ev('r.x', i + k)));
            if (i % 7 === 0) await tick();
          }
        })();
        const seen: Event[] = [];
        for await (const e of log.subscribe(4)) {
          seen.push(e);
          if (seen.length % 13 === 0) await tick();
          if (e.seq === total) break;
        }
        await writer;
        expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: total - 4 }, (_, i) => i + 5));
        expect(seen.map((e) => e.data)).toEqual(Array.from({ length: total - 4 }, (_, i) => i + 4));
      } finally {
        await log.stop();
      }
    });

    it('keeps events committed while the consumer is still handling the backlog', async () => {
      const { log } = ctx();
      await log.append(Array.from({ length: 5 }, (_, i) => ev('s.x', i)));
      const seen: number[] = [];
      for await (const e of log.subscribe(0)) {
        seen.push(e.seq);
        if (e.seq === 2) await log.append([ev('s.x', 5), ev('s.x', 6)]);
        if (e.seq === 7) break;
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it('yields no duplicate when a backlog page overlaps buffered live events', async () => {
      const { h } = ctx();
      const log = h.create({ pageSize: 2 });
      await log.start();
      try {
        await log.append(Array.from({ length: 6 }, (_, i) => ev('s.x', i)));
        const seen: number[] = [];
        for await (const e of log.subscribe(0)) {
          seen.push(e.seq);
          if (seen.length === 1) await log.append(ev('s.x', 6));
          if (seen.length === 7) await log.append(ev('s.x', 7));
          if (seen.length === 8) break;
        }
        expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      } finally {
        await log.stop();
      }
    });

    it('applies the filter to backlog and live events alike', async () => {
      const { log } = ctx();
      await log.append([ev('job.a', 1, { tenant: 'x' }), ev('agent.b', 2, { tenant: 'x' }), ev('job.c', 3)]);
      const received = take(log.subscribe(0, { typePrefix: 'job.', tenant: 'x' }), 3);
      await tick();
      await log.append([ev('job.d', 4), ev('job.e', 5, { tenant: 'x' }), ev('agent.f', 6, { tenant: 'x' })]);
      await log.append(ev('job.g', 7, { tenant: 'x' }));
      expect((await received).map((e) => e.data)).toEqual([1, 5, 7]);
    });

    it('ends cleanly when the signal aborts while waiting for news', async () => {
      const { log } = ctx();
      await log.append(ev('w.a', 1));
      const ac = new AbortController();
      const seen: number[] = [];
      const loop = (async () => {
        for await (const e of log.subscribe(0, {}, { signal: ac.signal })) seen.push(e.seq);
      })();
      await tick(5);
      ac.abort();
      await loop;
      expect(seen).toEqual([1]);
    });

    it('yields nothing for an already aborted signal', async () => {
      const { log } = ctx();
      await log.append(ev('w.a', 1));
      const ac = new AbortController();
      ac.abort();
      expect(await take(log.subscribe(0, {}, { signal: ac.signal }), 1)).toEqual([]);
    });

    it('stops delivering after the consumer breaks', async () => {
      const { log } = ctx();
      await log.append([ev('w.a', 1), ev('w.a', 2)]);
      expect((await take(log.subscribe(0), 1)).map((e) => e.seq)).toEqual([1]);
      await log.append(ev('w.a', 3));
      expect((await take(log.subscribe(2), 1)).map((e) => e.seq)).toEqual([3]);
    });

    it('ends when the log stops', async () => {
      const { h } = ctx();
      const log = h.create();
      await log.start();
      const seen: number[] = [];
      const loop = (async () => {
        for await (const e of log.subscribe(0)) seen.push(e.seq);
      })();
      await log.append(ev('w.a', 1));
      await tick(5);
      await log.stop();
      await loop;
      expect(seen).toEqual([1]);
    });

    it('rejects a bad afterSeq or filter from the first next()', async () => {
      const { log } = ctx();
      expect(await codeOf(take(log.subscribe(-1), 1))).toBe('INVALID_PARAMS');
      expect(await codeOf(take(log.subscribe(0, { type: 'NOPE' }), 1))).toBe('INVALID_PARAMS');
    });
  });

  describe('lifecycle', () => {
    it('is safe to stop twice, and rejects appends after stop with UNAVAILABLE', async () => {
      const { h } = ctx();
      const log = h.create();
      await log.start();
      await log.append(ev('l.a', 1));
      await Promise.all([log.stop(), log.stop()]);
      await log.stop();
      const error = await log.append(ev('l.a', 2)).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'PlexusError', code: 'UNAVAILABLE' });
      expect((error as Error).message).toMatch(/start\(\)/);
      expect(await codeOf(log.read())).toBe('UNAVAILABLE');
      expect(await codeOf(log.head())).toBe('UNAVAILABLE');
    });

    it('rejects use before start', async () => {
      const { h } = ctx();
      const log = h.create();
      expect(await codeOf(log.append(ev('l.a', 1)))).toBe('UNAVAILABLE');
      expect(await codeOf(take(log.subscribe(0), 1))).toBe('UNAVAILABLE');
      await log.stop();
    });

    it('commits appends queued before stop, then continues seq and chain after start', async () => {
      const { h } = ctx();
      const log = h.create();
      await log.start();
      const queued = [log.append(ev('l.a', 1)), log.append(ev('l.a', 2))];
      await log.stop();
      const [a, b] = await Promise.all(queued);
      expect(b?.seq).toBe(2);
      await log.start();
      await log.start();
      const c = await log.append(ev('l.a', 3));
      expect(c.seq).toBe(3);
      expect(c.prev).toBe(b?.cid);
      expect(a?.seq).toBe(1);
      expect(await log.verifyChain()).toMatchObject({ ok: true, count: 3 });
      await log.stop();
    });

    it('rejects an append whose signal aborts before its batch commits, and appends nothing', async () => {
      const { log } = ctx();
      const ac = new AbortController();
      const pending = log.append(ev('l.a', 1), { signal: ac.signal });
      ac.abort();
      expect(await codeOf(pending)).toBe('CANCELLED');
      const pre = new AbortController();
      pre.abort();
      expect(await codeOf(log.append(ev('l.a', 2), { signal: pre.signal }))).toBe('CANCELLED');
      expect(await log.head()).toEqual({ seq: 0, cid: null });
      expect((await log.append(ev('l.a', 3))).seq).toBe(1);
    });
  });
}
