import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AnyEvents, Event, EventLog } from '../../src/store/index.js';
import { memoryEventLog } from '../../src/store/index.js';
import { runEventLogContract } from './event-log-contract.js';
import type { Tamper } from './event-log-harness.js';

/** Tampering with a memory log: read its events, change them, load them into a new log. */
async function tamperMemory(log: EventLog<AnyEvents>, tamper: Tamper): Promise<EventLog<AnyEvents>> {
  const events: Event[] = [];
  for (let after = 0; ;) {
    const page = await log.read({ afterSeq: after, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) break;
    after = page[page.length - 1]!.seq;
  }
  await log.stop();
  const changed = events.flatMap((e) => {
    if (e.seq !== tamper.seq) return [e];
    return 'remove' in tamper ? [] : [{ ...e, ...tamper.set } as Event];
  });
  const next = memoryEventLog<AnyEvents>({ events: changed });
  await next.start();
  return next;
}

runEventLogContract('memory', () =>
  Promise.resolve({
    create: (init = {}) => memoryEventLog<AnyEvents>(init),
    tamper: tamperMemory,
    cleanup: () => Promise.resolve(),
  }),
);

describe('memoryEventLog', () => {
  it('continues after imported events', async () => {
    const source = memoryEventLog<AnyEvents>();
    await source.start();
    await source.append([
      { type: 'a.b', data: 1 },
      { type: 'a.b', data: 2 },
    ]);
    const events = await source.read();
    const copy = memoryEventLog<AnyEvents>({ events });
    await copy.start();
    const next = await copy.append({ type: 'a.b', data: 3 });
    expect(next.seq).toBe(3);
    expect(next.prev).toBe(events[1]?.cid);
    expect(await copy.verifyChain()).toMatchObject({ ok: true, count: 3 });
    await copy.stop();
    await source.stop();
  });
});

describe('memoryEventLog reads by key and by causation (Store-027)', () => {
  it('answers a key or causation read from its postings exactly as a scan of every event would', async () => {
    const keys = ['k1', 'k2', 'k3'];
    const causes = ['c1', 'c2'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            type: fc.constantFrom('a.b', 'job.submitted'),
            key: fc.option(fc.constantFrom(...keys), { nil: undefined }),
            causation: fc.option(fc.constantFrom(...causes), { nil: undefined }),
          }),
          { maxLength: 60 },
        ),
        fc.record({
          by: fc.constantFrom('key', 'causation', 'both'),
          key: fc.constantFrom(...keys, 'absent'),
          causation: fc.constantFrom(...causes),
          type: fc.option(fc.constantFrom('a.b', 'job.submitted'), { nil: undefined }),
          afterSeq: fc.nat({ max: 70 }),
          untilSeq: fc.option(fc.nat({ max: 70 }), { nil: undefined }),
          limit: fc.integer({ min: 1, max: 20 }),
        }),
        fc.boolean(),
        async (inputs, q, imported) => {
          const source = memoryEventLog<AnyEvents>();
          await source.start();
          const half = Math.floor(inputs.length / 2);
          const toInput = (i: (typeof inputs)[number], n: number) => ({
            type: i.type,
            data: i.key === undefined ? { n } : { key: i.key, n },
            ...(i.causation === undefined ? {} : { causation: i.causation }),
          });
          if (half > 0) await source.append(inputs.slice(0, half).map(toInput));
          // Postings built from imported events, then extended by appends.
          const log = imported ? memoryEventLog<AnyEvents>({ events: await source.read() }) : source;
          if (imported) await log.start();
          if (inputs.length > half) await log.append(inputs.slice(half).map((i, n) => toInput(i, half + n)));
          const everything = await log.read({ afterSeq: 0, limit: 1000 });
          const filter = {
            ...(q.by !== 'causation' ? { key: q.key } : {}),
            ...(q.by !== 'key' ? { causation: q.causation } : {}),
            ...(q.type === undefined ? {} : { type: q.type }),
          };
          const read = await log.read({
            ...filter,
            afterSeq: q.afterSeq,
            ...(q.untilSeq === undefined ? {} : { untilSeq: q.untilSeq }),
            limit: q.limit,
          });
          const expected = everything
            .filter(
              (e) =>
                e.seq > q.afterSeq &&
                (q.untilSeq === undefined || e.seq <= q.untilSeq) &&
                (filter.key === undefined || (e.data as { key?: string }).key === filter.key) &&
                (filter.causation === undefined || e.causation === filter.causation) &&
                (filter.type === undefined || filter.type === e.type),
            )
            .slice(0, q.limit);
          expect(read.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
          await log.stop();
          if (imported) await source.stop();
        },
      ),
      { seed: 27, numRuns: 150 },
    );
  });
});
