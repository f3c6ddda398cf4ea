/**
 * What both orders of the job listing share (docs/decisions/job-listing.md JL-3, JL-4, JL-13):
 * the part of the log the jobs projection holds completely, the bounds on one page's log work,
 * reading one `seq` window of the log's events of some types, and the page walk itself — the
 * projection's index first, then the log backwards — over a {@link ListingOrder}.
 */
import type { Event } from '../../core/records/event.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import { jobMatches, type CheckedJobListQuery, type JobPage } from './job-list-query.js';
import { jobEntryFromLog, oldestFinishedSeq, type JobEntry, type JobsState } from './jobs-projection.js';

/** What the listing reads. */
export interface JobListingComponents {
  readonly log: EventLog;
  /** The live jobs projection. */
  readonly jobs: ProjectionView<JobsState>;
}

/** Bounds on the log work of one page. */
export interface JobListingLimits {
  /** Log events looked at per page (`job.submitted`, or status events). @default 20000 */
  readonly examined?: number;
  /** Jobs rebuilt from the log per page is this times the page's limit, plus 100. @default 4 */
  readonly loadedPerItem?: number;
}

/**
 * How far back (ms) the walk goes past `since`, measured on the log's own clock: a job's
 * creation time is never later than the time any of its events was written, so the walk stops
 * at the first one written more than this before `since` (allowing that much wall-clock step
 * backwards between events).
 */
export const SINCE_CLOCK_SLACK_MS = 10 * 60_000;

/** One page being built: the checked query, where it starts, and how it ends. */
export interface PageWalk extends SignalOptions {
  readonly components: JobListingComponents;
  readonly query: CheckedJobListQuery;
  /** The page lists jobs whose order key is below this (exclusive). */
  readonly bound: number;
  readonly limits?: JobListingLimits;
  /** The page of `items`, with a cursor below `next` when given. */
  readonly page: (items: readonly JobEntry[], next?: number) => JobPage;
}

/** The page's bounds on log work (JL-4). */
export function workBounds(walk: PageWalk): { examined: number; loaded: number } {
  return {
    examined: walk.limits?.examined ?? 20_000,
    loaded: (walk.limits?.loadedPerItem ?? 4) * walk.query.limit + 100,
  };
}

/** The log time below which the walk stops for `since` (JL-5), in Unix nanoseconds. */
export function stopBelowOf(query: CheckedJobListQuery): bigint | undefined {
  return query.sinceNanos === undefined
    ? undefined
    : query.sinceNanos - BigInt(SINCE_CLOCK_SLACK_MS) * 1_000_000n;
}

/**
 * The smallest `seq` from which the projection holds every job, in either order (JL-3): the
 * smallest `lastSeq` (= terminal event) of the finished jobs it keeps, since retention drops
 * the earliest finished first and never an unfinished job.
 */
export function completeFrom(state: JobsState, unfinishedOnly: boolean): number {
  if (unfinishedOnly) return 0; // unfinished jobs are always kept
  return oldestFinishedSeq(state) ?? 0; // nothing finished yet: nothing was ever dropped
}

/** First window of the backward walk, in `seq`s; it adapts to the density of the events. */
export const FIRST_WINDOW = 4096;
/** Largest window of the backward walk, in `seq`s. */
const MAX_WINDOW = 1 << 20;
/** Events per log read inside a window. */
const READ_PAGE = 1000;
/** Events a window aims to hold. */
const WINDOW_TARGET = 1000;

/** The next window after one of `window` `seq`s held `n` events. */
export function nextWindow(window: number, n: number): number {
  return Math.min(
    MAX_WINDOW,
    n === 0 ? window * 4 : Math.max(64, Math.min(window * 4, Math.floor((window * WINDOW_TARGET) / n))),
  );
}

/** The events of `types` with `seq` in (lo, hi], oldest first (the `(type, seq)` index). */
export async function eventsIn(
  log: EventLog,
  types: string | readonly string[],
  lo: number,
  hi: number,
  tenant: string | null | undefined,
  signal: AbortSignal | undefined,
): Promise<Event[]> {
  const out: Event[] = [];
  let after = lo;
  for (;;) {
    const page = await log.read({
      type: types,
      afterSeq: after,
      untilSeq: hi,
      limit: READ_PAGE,
      ...(typeof tenant === 'string' ? { tenant } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    out.push(...page);
    const last = page[page.length - 1];
    if (last === undefined || page.length < READ_PAGE) return out;
    after = last.seq;
  }
}

/** One order of the job listing: its key, the projection's index by it, the events that set it. */
export interface ListingOrder {
  /** The job's order key: the `seq` of the event that set it. */
  key(entry: JobEntry): number;
  /** The projection's jobs, newest first by key, below `bound`. */
  newestFirst(state: JobsState, bound: number): Iterable<JobEntry>;
  /** The event types whose `seq` is a key (the backward walk reads these). */
  readonly types: string | readonly string[];
  /** The job `event` may list, before its entry is loaded; `undefined` skips the event. */
  candidate(query: CheckedJobListQuery, event: Event): string | undefined;
  /** Whether a job the projection no longer keeps can have `event` as its key (worth loading). */
  loadable(event: Event): boolean;
}

/**
 * A page of jobs in descending key below `walk.bound`: first the part of the range the
 * projection holds completely, from its index (one synchronous walk); below it the log's
 * events of the order's types backwards in windows, each job listed at the event that is its
 * key only, taken from the projection or rebuilt from its own events.
 */
export async function walkPage(walk: PageWalk, order: ListingOrder): Promise<JobPage> {
  const { components, query: q, bound, page, signal } = walk;
  const { log, jobs } = components;
  const signalOption = signal === undefined ? {} : { signal };

  const state = jobs.state();
  const floor = completeFrom(state, q.unfinishedOnly);
  const items: JobEntry[] = [];
  let more = floor > 1;
  for (const entry of order.newestFirst(state, bound)) {
    if (order.key(entry) < floor) break;
    if (!jobMatches(q, entry.job)) continue;
    if (items.length === q.limit) {
      more = true; // one more match below the page
      break;
    }
    items.push(entry);
  }
  const lastRecent = items[q.limit - 1];
  if (lastRecent !== undefined) return page(items, more ? order.key(lastRecent) : undefined);

  const max = workBounds(walk);
  const stopBelow = stopBelowOf(q);
  let examined = 0;
  let loaded = 0;
  let hi = Math.min(bound, floor) - 1; // inclusive
  let window = FIRST_WINDOW;
  while (hi >= 1) {
    const lo = Math.max(0, hi - window);
    const events = await eventsIn(log, order.types, lo, hi, q.tenant, signal);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (examined >= max.examined || loaded >= max.loaded) return page(items, event.seq + 1);
      examined++;
      // every event of a matching job was written after its creation (JL-5)
      const written = stopBelow === undefined ? undefined : dateTimeToEpochNanos(event.time);
      if (stopBelow !== undefined && written !== undefined && written < stopBelow) return page(items);
      const id = order.candidate(q, event);
      if (id === undefined) continue;
      let entry = jobs.state().get(id);
      if (entry === undefined) {
        if (!order.loadable(event)) continue;
        loaded++;
        entry = await jobEntryFromLog(log, id, signalOption);
      }
      if (entry === undefined || order.key(entry) !== event.seq || !jobMatches(q, entry.job)) continue;
      items.push(entry);
      if (items.length === q.limit) return page(items, event.seq);
    }
    hi = lo;
    window = nextWindow(window, events.length);
  }
  return page(items);
}
