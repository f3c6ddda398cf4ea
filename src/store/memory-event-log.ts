/**
 * The in-memory event log: the shared engine over an array. Same behaviour as the SQLite
 * log (the one contract suite holds both), nothing survives the process. Events are kept
 * frozen, so what a reader gets cannot change the log. Reads by data key or by causation go
 * through a posting list of each (Store-027), as the SQLite log's go through its indexes: a
 * key lookup (idempotency past the projection's window, MCP session records) costs the events
 * with that key, not the whole log.
 */
import { PlexusError } from '../core/errors.js';
import type { Event } from '../core/records/event.js';
import { createEventLog, type EventLogInit } from './create-event-log.js';
import { deepFreeze } from './event-chain.js';
import { dataKeyOf, matchesAll, matchesFilter, type EventQuery } from './event-filter.js';
import type { EventLogBackend, ScannedRow } from './event-log-backend.js';
import type { EventLog } from './event-log.js';
import type { EventMap, EventTypes } from './event-map.js';

/** Options of {@link memoryEventLog}. */
export interface MemoryEventLogInit extends EventLogInit {
  /**
   * Events to start from, taken as stored (for imports and tests): they are not checked,
   * so call `verifyChain()` before trusting them. Appends continue after the last one.
   * @default []
   */
  readonly events?: readonly Event[];
}

/** Index of the first event with `seq` > `afterSeq` in a list sorted by seq. */
function firstAfter(events: readonly Event[], afterSeq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid]?.seq ?? 0) <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Positions (into the log's array, ascending) of the events sharing one value. */
type Postings = Map<string, number[]>;

function post(postings: Postings, value: string | undefined, position: number): void {
  if (value === undefined) return;
  const list = postings.get(value);
  if (list === undefined) postings.set(value, [position]);
  else list.push(position);
}

/** Index into `list` of the first position whose event has `seq` > `afterSeq`. */
function firstPostingAfter(events: readonly Event[], list: readonly number[], afterSeq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[list[mid] ?? 0]?.seq ?? 0) <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Creates an in-memory event log. Call `start()` before use; `stop()` then `start()` keeps
 * the events (like reopening a database).
 *
 * @example
 * const log = memoryEventLog();
 * await log.start();
 * const event = await log.append({ type: 'job.submitted', data: { id: 'j1' } });
 */
export function memoryEventLog<M extends EventTypes = EventMap>(init: MemoryEventLogInit = {}): EventLog<M> {
  const events: Event[] = (init.events ?? []).map((e) => deepFreeze(structuredClone(e)));
  const byKey: Postings = new Map();
  const byCausation: Postings = new Map();
  const index = (event: Event, position: number): void => {
    post(byKey, dataKeyOf(event), position);
    post(byCausation, event.causation, position);
  };
  events.forEach(index);
  const backend: EventLogBackend = {
    description: 'memory event log',
    open() {
      const last = events[events.length - 1];
      return last === undefined ? { seq: 0, cid: null } : { seq: last.seq, cid: last.cid };
    },
    commit(batch) {
      const last = events[events.length - 1];
      if ((last?.seq ?? 0) + 1 !== batch[0]?.seq) {
        throw new PlexusError('CONFLICT', 'memory event log: the stored head moved under the writer');
      }
      for (const event of batch) index(event, events.push(event) - 1);
    },
    read(query: EventQuery) {
      const out: Event[] = [];
      const postings =
        query.key !== undefined
          ? (byKey.get(query.key) ?? [])
          : query.causation !== undefined
            ? (byCausation.get(query.causation) ?? [])
            : undefined;
      if (postings !== undefined) {
        for (
          let i = firstPostingAfter(events, postings, query.afterSeq);
          i < postings.length && out.length < query.limit;
          i++
        ) {
          const event = events[postings[i] ?? -1];
          if (event === undefined) break;
          if (query.untilSeq !== undefined && event.seq > query.untilSeq) break;
          if (matchesFilter(event, query)) out.push(event);
        }
        return out;
      }
      const all = matchesAll(query);
      for (let i = firstAfter(events, query.afterSeq); i < events.length && out.length < query.limit; i++) {
        const event = events[i];
        if (event === undefined) break;
        if (query.untilSeq !== undefined && event.seq > query.untilSeq) break;
        if (all || matchesFilter(event, query)) out.push(event);
      }
      return out;
    },
    scan(afterSeq: number, limit: number): readonly ScannedRow[] {
      const start = firstAfter(events, afterSeq);
      return events.slice(start, start + limit);
    },
    close() {
      // nothing to release
    },
  };
  return createEventLog<M>(backend, init);
}
