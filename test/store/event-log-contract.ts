import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventCid } from '../../src/core/cid.js';
import { validateEvent } from '../../src/core/records/event.js';
import type { EventInput, AnyEvents, EventLog } from '../../src/store/index.js';
import { runEventLogLiveContract } from './event-log-contract-live.js';
import {
  codeOf,
  ev,
  TRACE_A,
  TRACE_A2,
  TRACE_B,
  type EventLogHarness,
  type EventLogHarnessFactory,
} from './event-log-harness.js';

/** The one contract every event log backend passes (DESIGN §6, D9). */
export function runEventLogContract(name: string, factory: EventLogHarnessFactory): void {
  describe(`EventLog contract: ${name}`, () => {
    let h: EventLogHarness;
    let log: EventLog<AnyEvents>;
    beforeEach(async () => {
      h = await factory();
      log = h.create();
      await log.start();
    });
    afterEach(async () => {
      await log.stop();
      await h.cleanup();
    });

    describe('append', () => {
      it('assigns seq from 1, prev null for the first event, then the previous cid', async () => {
        expect(await log.head()).toEqual({ seq: 0, cid: null });
        const a = await log.append(ev('job.submitted', { id: 'j1' }));
        const b = await log.append(ev('job.started', { id: 'j1' }));
        expect(a.seq).toBe(1);
        expect(a.prev).toBeNull();
        expect(b.seq).toBe(2);
        expect(b.prev).toBe(a.cid);
        expect(b.cid).not.toBe(a.cid);
        expect(await log.head()).toEqual({ seq: 2, cid: b.cid });
      });

      it('computes cid as the core eventCid of the event without seq', async () => {
        const e = await log.append(
          ev('agent.registered', { id: 'echo', n: 10, x: [1, 'ü', null] }, { tenant: 't1' }),
        );
        expect(e.cid).toMatch(/^bagaaiera/);
        expect(eventCid({ ...e })).toBe(e.cid);
        expect(eventCid({ ...e, seq: 999 })).toBe(e.cid);
        expect(eventCid({ ...e, tenant: 't2' })).not.toBe(e.cid);
        expect(validateEvent(e)).toEqual([]);
      });

      it('stamps time as RFC 3339 and keeps optional fields only when given', async () => {
        const plain = await log.append(ev('a.b', 1));
        expect(plain.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(Object.keys(plain).sort()).toEqual(['cid', 'data', 'prev', 'seq', 'time', 'type']);
        const full = await log.append(ev('a.b', 2, { causation: 'req-1', trace: TRACE_A, tenant: 'acme' }));
        expect(full).toMatchObject({ causation: 'req-1', trace: TRACE_A, tenant: 'acme' });
      });

      it('appends a list atomically with consecutive seqs', async () => {
        await log.append(ev('x.first'));
        const list = await log.append([ev('x.a', 1), ev('x.b', 2), ev('x.c', 3)]);
        expect(list.map((e) => e.seq)).toEqual([2, 3, 4]);
        expect(list.map((e) => e.data)).toEqual([1, 2, 3]);
        expect(list[1]?.prev).toBe(list[0]?.cid);
      });

      it('returns frozen events and is immune to later mutation of the input', async () => {
        const data = { nested: { v: 1 } };
        const promise = log.append(ev('x.y', data));
        data.nested.v = 2;
        const e = await promise;
        expect(e.data).toEqual({ nested: { v: 1 } });
        expect(Object.isFrozen(e)).toBe(true);
        expect(() => {
          (e.data as { nested: { v: number } }).nested.v = 3;
        }).toThrow();
        const [stored] = await log.read();
        expect(stored?.data).toEqual({ nested: { v: 1 } });
      });

      const bad: [string, unknown][] = [
        ['an empty type', { type: '', data: 1 }],
        ['a type with capitals', { type: 'Job.Done', data: 1 }],
        ['a type with a trailing dot', { type: 'job.', data: 1 }],
        ['a missing type', { data: 1 }],
        ['missing data', { type: 'a.b' }],
        ['a function in data', { type: 'a.b', data: { f: () => 1 } }],
        ['NaN in data', { type: 'a.b', data: [Number.NaN] }],
        ['a bigint in data', { type: 'a.b', data: { n: 1n } }],
        ['a Date in data', { type: 'a.b', data: { at: new Date(0) } }],
        ['a Map in data', { type: 'a.b', data: new Map() }],
        ['undefined in an array', { type: 'a.b', data: [1, undefined] }],
        ['a lone surrogate', { type: 'a.b', data: '\ud800' }],
        ['a seq given by the caller', { type: 'a.b', data: 1, seq: 5 }],
        ['an unknown field', { type: 'a.b', data: 1, color: 'red' }],
        ['an empty tenant', { type: 'a.b', data: 1, tenant: '' }],
        ['a trace that is not a traceparent', { type: 'a.b', data: 1, trace: 'abc' }],
        ['a numeric causation', { type: 'a.b', data: 1, causation: 7 }],
        ['a non-object event', 'a.b'],
      ];
      it.each(bad)('rejects %s with INVALID_PARAMS and appends nothing', async (_what, input) => {
        await log.append(ev('ok.first'));
        expect(await codeOf(log.append(input as EventInput<AnyEvents>))).toBe('INVALID_PARAMS');
        expect(await codeOf(log.append([ev('ok.other'), input as EventInput<AnyEvents>]))).toBe(
          'INVALID_PARAMS',
        );
        expect((await log.head()).seq).toBe(1);
      });

      it('rejects cyclic data and an empty list', async () => {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await expect(log.append(ev('a.b', cyclic))).rejects.toThrow(/cyclic/);
        expect(await codeOf(log.append([]))).toBe('INVALID_PARAMS');
        expect((await log.head()).seq).toBe(0);
      });
    });

    describe('read', () => {
      const seed: EventInput<AnyEvents>[] = [
        ev('job.submitted', 1, { tenant: 'acme', causation: 'r1', trace: TRACE_A }),
        ev('job.started', 2, { tenant: 'acme', causation: 'r1', trace: TRACE_A2 }),
        ev('agent.registered', 3, { tenant: 'other' }),
        ev('job.completed', 4, { tenant: 'other', causation: 'r2', trace: TRACE_B }),
        ev('jobs.archived', 5),
        ev('job.submitted', 6, { tenant: 'acme', causation: 'r3' }),
      ];
      const seqs = async (options: Parameters<EventLog['read']>[0]): Promise<number[]> =>
        (await log.read(options)).map((e) => e.seq);
      beforeEach(async () => {
        await log.append(seed);
      });

      it('reads everything after a seq, in order, up to a limit and until a seq', async () => {
        expect(await seqs({})).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await seqs({ afterSeq: 4 })).toEqual([5, 6]);
        expect(await seqs({ afterSeq: 6 })).toEqual([]);
        expect(await seqs({ afterSeq: 100 })).toEqual([]);
        expect(await seqs({ limit: 2 })).toEqual([1, 2]);
        expect(await seqs({ afterSeq: 1, untilSeq: 3 })).toEqual([2, 3]);
        expect(await seqs({ untilSeq: 0 })).toEqual([]);
      });

      it('filters by exact type, type list and type prefix', async () => {
        expect(await seqs({ type: 'job.submitted' })).toEqual([1, 6]);
        expect(await seqs({ type: ['job.started', 'agent.registered'] })).toEqual([2, 3]);
        expect(await seqs({ typePrefix: 'job.' })).toEqual([1, 2, 4, 6]);
        expect(await seqs({ typePrefix: 'job' })).toEqual([1, 2, 4, 5, 6]);
        expect(await seqs({ typePrefix: '' })).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await seqs({ typePrefix: 'job.', type: 'job.completed' })).toEqual([4]);
        expect(await seqs({ type: 'nothing.here' })).toEqual([]);
      });

      it('filters by tenant, causation and trace id', async () => {
        expect(await seqs({ tenant: 'acme' })).toEqual([1, 2, 6]);
        expect(await seqs({ causation: 'r1' })).toEqual([1, 2]);
        expect(await seqs({ trace: TRACE_A })).toEqual([1, 2]);
        expect(await seqs({ trace: TRACE_A.slice(3, 35) })).toEqual([1, 2]);
        expect(await seqs({ trace: TRACE_B })).toEqual([4]);
      });

      it('filters by the data key (indexed for job.submitted), with any other condition', async () => {
        await log.append([
          ev('job.submitted', { id: 'j7', key: '|a2a:m1' }, { tenant: 'acme' }),
          ev('job.completed', { id: 'j7', key: '|a2a:m1' }),
          ev('job.submitted', { id: 'j9', key: '|a2a:m2' }),
          ev('job.submitted', { id: 'j10', key: '|a2a:m1' }),
          ev('job.submitted', { id: 'j11', key: 42 }),
          ev('job.submitted', { id: 'j12', nested: { key: '|a2a:m1' } }),
        ]);
        expect(await seqs({ type: 'job.submitted', key: '|a2a:m1' })).toEqual([7, 10]);
        expect(await seqs({ key: '|a2a:m1' })).toEqual([7, 8, 10]);
        expect(await seqs({ type: 'job.submitted', key: '|a2a:m1', afterSeq: 7 })).toEqual([10]);
        expect(await seqs({ type: 'job.submitted', key: '|a2a:m1', tenant: 'acme' })).toEqual([7]);
        expect(await seqs({ type: ['job.submitted', 'job.completed'], key: '|a2a:m1' })).toEqual([7, 8, 10]);
        expect(await seqs({ type: 'job.submitted', key: '42' })).toEqual([]);
        expect(await seqs({ type: 'job.submitted', key: "x' OR 1=1 --" })).toEqual([]);
        expect(await codeOf(log.read({ key: '' }))).toBe('INVALID_PARAMS');
      });

      it('combines conditions with AND and applies the limit after filtering', async () => {
        expect(await seqs({ tenant: 'acme', typePrefix: 'job.', causation: 'r3' })).toEqual([6]);
        expect(await seqs({ tenant: 'acme', limit: 2, afterSeq: 1 })).toEqual([2, 6]);
        expect(await seqs({ tenant: 'other', trace: TRACE_A })).toEqual([]);
      });

      it.each([
        [{ limit: 0 }],
        [{ limit: 100_001 }],
        [{ limit: 1.5 }],
        [{ afterSeq: -1 }],
        [{ afterSeq: '3' }],
        [{ untilSeq: Number.NaN }],
        [{ type: 'Bad Type' }],
        [{ type: [] }],
        [{ typePrefix: 'JOB' }],
        [{ tenant: '' }],
        [{ trace: 'xyz' }],
      ])('rejects the bad read option %j', async (options) => {
        expect(await codeOf(log.read(options as Parameters<EventLog['read']>[0]))).toBe('INVALID_PARAMS');
      });

      it('honours an aborted signal', async () => {
        const ac = new AbortController();
        ac.abort();
        expect(await codeOf(log.read({ signal: ac.signal }))).toBe('CANCELLED');
        expect(await codeOf(log.head({ signal: ac.signal }))).toBe('CANCELLED');
        expect(await codeOf(log.verifyChain({ signal: ac.signal }))).toBe('CANCELLED');
      });
    });

    describe('verifyChain', () => {
      it('accepts an empty log and an intact one', async () => {
        expect(await log.verifyChain()).toEqual({ ok: true, count: 0, head: { seq: 0, cid: null } });
        await log.append([ev('a.b', 1), ev('a.c', { x: [1, 2] }, { tenant: 't' })]);
        const last = await log.append(ev('a.d', 'z', { trace: TRACE_B, causation: 'c' }));
        expect(await log.verifyChain()).toEqual({ ok: true, count: 3, head: { seq: 3, cid: last.cid } });
      });

      const seedFive = async (): Promise<void> => {
        for (let i = 1; i <= 5; i++) await log.append(ev('t.e', { i }));
      };

      it('detects altered data as a cid mismatch at that event', async () => {
        await seedFive();
        log = await h.tamper(log, { seq: 3, set: { data: { i: 33 } } });
        expect(await log.verifyChain()).toMatchObject({ ok: false, count: 2, seq: 3, fault: 'cid-mismatch' });
      });

      it('detects an altered type or time as a cid mismatch', async () => {
        await seedFive();
        log = await h.tamper(log, { seq: 2, set: { type: 't.other' } });
        expect(await log.verifyChain()).toMatchObject({ ok: false, seq: 2, fault: 'cid-mismatch' });
        log = await h.tamper(log, { seq: 2, set: { type: 't.e', time: '2000-01-01T00:00:00.000Z' } });
        expect(await log.verifyChain()).toMatchObject({ ok: false, seq: 2, fault: 'cid-mismatch' });
      });

      it('detects a rewritten cid at that event and a broken prev link after it', async () => {
        await seedFive();
        const [e4] = await log.read({ afterSeq: 3, limit: 1 });
        log = await h.tamper(log, { seq: 4, set: { cid: eventCid({ ...e4, data: 'forged' }) } });
        const result = await log.verifyChain();
        expect(result).toMatchObject({ ok: false, seq: 4, fault: 'cid-mismatch' });
        if (!result.ok) expect(result.reason).toMatch(/altered/);
      });

      it('detects a changed prev link', async () => {
        await seedFive();
        const [e1] = await log.read({ limit: 1 });
        log = await h.tamper(log, { seq: 3, set: { prev: e1?.cid } });
        expect(await log.verifyChain()).toMatchObject({
          ok: false,
          count: 2,
          seq: 3,
          fault: 'prev-mismatch',
        });
      });

      it('detects a removed event as a gap', async () => {
        await seedFive();
        log = await h.tamper(log, { seq: 2, remove: true });
        const result = await log.verifyChain();
        expect(result).toMatchObject({ ok: false, count: 1, seq: 3, fault: 'seq-gap' });
      });

      it('detects a first event whose prev is not null', async () => {
        await seedFive();
        const [, e2] = await log.read({ limit: 2 });
        log = await h.tamper(log, { seq: 1, set: { prev: e2?.cid } });
        expect(await log.verifyChain()).toMatchObject({
          ok: false,
          count: 0,
          seq: 1,
          fault: 'prev-mismatch',
        });
      });
    });

    runEventLogLiveContract(() => ({ h, log }));
  });
}
