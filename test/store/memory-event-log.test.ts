import { describe, expect, it } from 'vitest';
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
