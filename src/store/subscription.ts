/**
 * Subscriptions to an event log: replay the backlog, then follow live commits, with no gap
 * and no duplicate at the boundary.
 *
 * How: the subscriber registers for live batches *before* reading the backlog, so every
 * event committed from that moment is buffered; the backlog read covers everything before.
 * Overlap is dropped by `seq` (only events above the cursor are yielded). A consumer that
 * falls more than `highWater` events behind loses its buffer and re-reads from storage, so
 * memory stays bounded whatever the consumer's speed.
 */
import type { Event } from '../core/records/event.js';
import { PlexusError } from '../core/errors.js';
import {
  checkSeq,
  matchesFilter,
  normalizeFilter,
  type EventQuery,
  type NormalizedFilter,
} from './event-filter.js';
import type { EventFilter } from './event-log.js';

/** One live subscriber as the log sees it. */
export interface Subscriber {
  readonly filter: NormalizedFilter;
  /** Buffered live events not yet yielded. */
  buffer: Event[];
  /** Set when the buffer overflowed: the subscriber must re-read from storage. */
  overflow: boolean;
  /** Set when the log stopped: the iteration ends. */
  closed: boolean;
  /** Wakes the iterator when it waits for news. */
  wake: (() => void) | undefined;
}

/** What a subscription needs from its log. */
export interface SubscriptionSource {
  /** Adds a subscriber to the live fan-out; returns the function that removes it. @throws when not running. */
  register(subscriber: Subscriber): () => void;
  /** Reads stored events (the log's own `read`, already normalised). */
  read(query: EventQuery, signal: AbortSignal | undefined): Promise<readonly Event[]>;
}

/** Tuning of subscriptions. */
export interface SubscriptionTuning {
  /** Events read from storage per backlog page. */
  readonly pageSize: number;
  /** Buffered live events beyond which a subscriber falls back to reading storage. */
  readonly highWater: number;
}

/**
 * Hands a committed batch to one subscriber (called by the log after each commit). The
 * subscriber is woken only when the batch gave it something to do — an event its filter
 * matches, or an overflow to catch up from — so a follower of a few event types (the MCP
 * face's agent events, a job's SSE stream) costs a filter test per event of every other
 * batch, not a turn of its iterator and a new promise per batch (Perf-P6-001).
 */
export function deliver(subscriber: Subscriber, events: readonly Event[], highWater: number): void {
  if (subscriber.closed || subscriber.overflow) return; // an overflowed one is already awake or catching up
  const { buffer, filter } = subscriber;
  const before = buffer.length;
  for (const event of events) {
    if (matchesFilter(event, filter)) buffer.push(event);
  }
  if (buffer.length === before) return;
  if (buffer.length > highWater) {
    subscriber.overflow = true;
    subscriber.buffer = [];
  }
  subscriber.wake?.();
}

/** Ends a subscriber's iteration (the log is stopping). */
export function closeSubscriber(subscriber: Subscriber): void {
  subscriber.closed = true;
  subscriber.buffer = [];
  subscriber.wake?.();
}

/**
 * Iterates events after `afterSeq` matching `filter`: backlog, then live. Ends without error
 * when `signal` aborts, when the consumer stops iterating, or when the log stops.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad `afterSeq` or filter; `UNAVAILABLE` when the
 *   log is not running at the first `next()`; a storage error while reading the backlog.
 */
export async function* subscribeEvents(
  source: SubscriptionSource,
  afterSeq: number,
  filter: EventFilter | undefined,
  signal: AbortSignal | undefined,
  tuning: SubscriptionTuning,
): AsyncGenerator<Event, void, undefined> {
  let cursor = checkSeq(afterSeq, 'afterSeq');
  const normalized = normalizeFilter(filter);
  if (signal?.aborted === true) return;
  const subscriber: Subscriber = {
    filter: normalized,
    buffer: [],
    overflow: true,
    closed: false,
    wake: undefined,
  };
  const unregister = source.register(subscriber);
  const onAbort = (): void => subscriber.wake?.();
  signal?.addEventListener('abort', onAbort);
  const done = (): boolean => subscriber.closed || signal?.aborted === true;
  try {
    while (!done()) {
      if (subscriber.overflow) {
        // Catch up from storage; live commits from now on are buffered.
        subscriber.overflow = false;
        subscriber.buffer = [];
        for (;;) {
          let page: readonly Event[];
          try {
            page = await source.read(
              { ...normalized, afterSeq: cursor, untilSeq: undefined, limit: tuning.pageSize },
              signal,
            );
          } catch (error) {
            if (done()) return;
            throw error;
          }
          for (const event of page) {
            if (event.seq <= cursor) continue;
            cursor = event.seq;
            yield event;
            if (done()) return;
          }
          if (page.length < tuning.pageSize) break;
        }
        continue;
      }
      if (subscriber.buffer.length > 0) {
        const batch = subscriber.buffer;
        subscriber.buffer = [];
        for (const event of batch) {
          if (event.seq <= cursor) continue;
          cursor = event.seq;
          yield event;
          if (done()) return;
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        subscriber.wake = resolve;
      });
      subscriber.wake = undefined;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unregister();
  }
}

/** The error for subscribing to a log that is not running. */
export function notRunning(description: string): PlexusError {
  return new PlexusError('UNAVAILABLE', `${description} is not running; call start() first`, {
    retryable: false,
  });
}
