import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/core/records/event.js';
import { normalizeFilter } from '../../src/store/event-filter.js';
import { deliver, type Subscriber } from '../../src/store/subscription.js';

/** A sealed-looking event of `type` at `seq` (deliver reads only type, seq and the filter fields). */
function event(seq: number, type: string, causation?: string): Event {
  return {
    seq,
    cid: `c${seq}`,
    prev: null,
    type,
    data: null,
    time: '2026-11-27T00:00:00.000Z',
    ...(causation === undefined ? {} : { causation }),
  };
}

/** A waiting subscriber of `filter` whose wake-ups are counted. */
function waiting(filter: Parameters<typeof normalizeFilter>[0]): Subscriber & { wakes: number } {
  const s = {
    filter: normalizeFilter(filter),
    buffer: [] as Event[],
    overflow: false,
    closed: false,
    wakes: 0,
    wake: undefined as (() => void) | undefined,
  };
  s.wake = () => {
    s.wakes++;
  };
  return s;
}

describe('deliver (Perf-P6-001)', () => {
  it('does not wake a subscriber that no event of the batch matches', () => {
    const s = waiting({ type: ['agent.registered'] });
    deliver(s, [event(1, 'job.submitted'), event(2, 'job.completed')], 100);
    expect(s.wakes).toBe(0);
    expect(s.buffer).toEqual([]);
  });

  it('wakes it once per batch with a match, buffering only the matches', () => {
    const s = waiting({ causation: 'job-a', typePrefix: 'job.' });
    const batch = [
      event(1, 'job.submitted', 'job-b'),
      event(2, 'job.started', 'job-a'),
      event(3, 'job.completed', 'job-a'),
    ];
    deliver(s, batch, 100);
    expect(s.wakes).toBe(1);
    expect(s.buffer.map((e) => e.seq)).toEqual([2, 3]);
  });

  it('wakes it when the buffer overflows, then leaves it to catch up from storage', () => {
    const s = waiting({ typePrefix: 'job.' });
    deliver(s, [event(1, 'job.a'), event(2, 'job.b'), event(3, 'job.c')], 2);
    expect(s.overflow).toBe(true);
    expect(s.buffer).toEqual([]);
    expect(s.wakes).toBe(1);
    deliver(s, [event(4, 'job.d')], 2);
    expect(s.buffer).toEqual([]); // read back from storage by the iterator, not buffered
  });

  it('never touches a closed subscriber', () => {
    const s = waiting(undefined);
    s.closed = true;
    deliver(s, [event(1, 'job.a')], 10);
    expect(s.wakes).toBe(0);
    expect(s.buffer).toEqual([]);
  });
});
