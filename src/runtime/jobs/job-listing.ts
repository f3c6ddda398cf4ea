/**
 * `Runtime.jobs.list` (docs/decisions/job-listing.md): pages of a node's jobs, newest first.
 *
 * Order: descending `seq` of each job's `job.submitted` event (`JobEntry.firstSeq`) — the order
 * in which the node recorded its jobs (D9's total order). The cursor (`job-cursor.ts`) carries
 * the `seq` the next page starts below, so new jobs never shift a page.
 *
 * Where jobs come from: the jobs projection keeps every unfinished job and the most recently
 * finished ones. If `L` is the smallest `lastSeq` (the terminal event) among the finished jobs it
 * keeps, every job recorded at or after `L` is in the projection (a job that finished later than
 * the oldest kept one is kept). Jobs recorded before `L` are found by walking the log's
 * `job.submitted` events backwards in windows (the SQLite log indexes `(type, seq)`), each one
 * taken from the projection when it is there and otherwise rebuilt from its own events
 * (`jobEntryFromLog`, by causation). A page does a bounded amount of log work; when the bound
 * is reached it ends early (possibly short or empty) with a cursor where the walk stopped.
 */
import type { Event } from '../../core/records/event.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';
import {
  checkJobListQuery,
  jobMatches,
  tenantMatches,
  verbMatches,
  type CheckedJobListQuery,
  type JobListQuery,
  type JobPage,
} from './job-list-query.js';
import { RUNTIME_EVENTS } from '../events.js';
import {
  jobEntryFromLog,
  jobsNewestFirst,
  oldestFinishedSeq,
  type JobEntry,
  type JobsState,
} from './jobs-projection.js';

/** What the listing reads. */
export interface JobListingComponents {
  readonly log: EventLog;
  /** The live jobs projection. */
  readonly jobs: ProjectionView<JobsState>;
}

/** Bounds on the log work of one page. */
export interface JobListingLimits {
  /** `job.submitted` events looked at per page. @default 20000 */
  readonly examined?: number;
  /** Jobs rebuilt from the log per page is this times the page's limit, plus 100. @default 4 */
  readonly loadedPerItem?: number;
}

/**
 * How far back (ms) the walk goes past `since`, measured on the log's own clock: a job's
 * creation time is never later than the time its `job.submitted` event was written, so the
 * walk stops at the first one written more than this before `since` (allowing that much
 * wall-clock step backwards between events).
 */
export const SINCE_CLOCK_SLACK_MS = 10 * 60_000;

/** First window of the backward walk, in `seq`s; it adapts to the density of jobs. */
const FIRST_WINDOW = 4096;
/** Largest window of the backward walk, in `seq`s. */
const MAX_WINDOW = 1 << 20;
/** Events per log read inside a window. */
const READ_PAGE = 1000;
/** `job.submitted` events a window aims to hold. */
const WINDOW_TARGET = 1000;

/** The smallest `seq` from which the projection holds every job (see the module comment). */
function completeFrom(state: JobsState, unfinishedOnly: boolean): number {
  if (unfinishedOnly) return 0; // unfinished jobs are always kept
  return oldestFinishedSeq(state) ?? 0; // nothing finished yet: nothing was ever dropped
}

/** The `job.submitted` events with `seq` in (lo, hi], oldest first. */
async function submittedIn(
  log: EventLog,
  lo: number,
  hi: number,
  tenant: string | null | undefined,
  signal: AbortSignal | undefined,
): Promise<Event[]> {
  const out: Event[] = [];
  let after = lo;
  for (;;) {
    const page = await log.read({
      type: RUNTIME_EVENTS.jobSubmitted,
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

/** Whether a `job.submitted` event can start a matching job (before its entry is loaded). */
function mayMatch(query: CheckedJobListQuery, event: Event): boolean {
  const data = event.data as { verb?: unknown; request?: { sessionId?: unknown } } | null;
  if (!tenantMatches(query.tenant, event.tenant)) return false;
  if (query.sessionId !== undefined && data?.request?.sessionId !== query.sessionId) return false;
  if (typeof data?.verb !== 'string' || !verbMatches(query.verb, data.verb)) return false;
  if (query.sinceNanos === undefined) return true;
  const written = dateTimeToEpochNanos(event.time);
  return written === undefined || written >= query.sinceNanos; // created ≤ written
}

/**
 * Lists jobs, newest first (see the module comment and docs/decisions/job-listing.md).
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter`) for a bad query or cursor; the
 *   log's errors (`UNAVAILABLE`, `CANCELLED`).
 */
export async function listJobs(
  c: JobListingComponents,
  query: JobListQuery = {},
  options: SignalOptions & { readonly limits?: JobListingLimits } = {},
): Promise<JobPage> {
  const q = checkJobListQuery(query);
  const cursor = q.cursor === undefined ? undefined : decodeJobCursor(q.cursor, q);
  const { log, jobs } = c;
  const { signal } = options;
  const signalOption = signal === undefined ? {} : { signal };
  const head = (await log.head(signalOption)).seq;
  await jobs.waitFor(head, signalOption);
  const bound = Math.min(cursor?.before ?? head + 1, head + 1); // exclusive
  const page = (items: readonly JobEntry[], next?: number): JobPage => ({
    jobs: items.map((e) => e.job),
    ...(next === undefined ? {} : { nextCursor: encodeJobCursor(next, q) }),
  });

  // 1. The part of the range the projection holds completely: its jobs newest first, from the
  //    bound down (its submit-order index, OBS-52), until the page is full (one synchronous walk).
  const state = jobs.state();
  const floor = completeFrom(state, q.unfinishedOnly);
  const recent: JobEntry[] = [];
  let more = floor > 1;
  for (const entry of jobsNewestFirst(state, bound)) {
    if (entry.firstSeq < floor) break;
    if (!jobMatches(q, entry.job)) continue;
    if (recent.length === q.limit) {
      more = true; // one more match below the page
      break;
    }
    recent.push(entry);
  }
  const lastRecent = recent[q.limit - 1];
  if (lastRecent !== undefined) return page(recent, more ? lastRecent.firstSeq : undefined);

  // 2. Older jobs: walk the log's job.submitted events backwards below min(bound, floor).
  const items = recent;
  const examinedMax = options.limits?.examined ?? 20_000;
  const loadedMax = (options.limits?.loadedPerItem ?? 4) * q.limit + 100;
  const stopBelow =
    q.sinceNanos === undefined ? undefined : q.sinceNanos - BigInt(SINCE_CLOCK_SLACK_MS) * 1_000_000n;
  let examined = 0;
  let loaded = 0;
  let hi = Math.min(bound, floor) - 1; // inclusive
  let window = FIRST_WINDOW;
  while (hi >= 1) {
    const lo = Math.max(0, hi - window);
    const events = await submittedIn(log, lo, hi, q.tenant, signal);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (examined >= examinedMax || loaded >= loadedMax) return page(items, event.seq + 1);
      examined++;
      const written = stopBelow === undefined ? undefined : dateTimeToEpochNanos(event.time);
      if (stopBelow !== undefined && written !== undefined && written < stopBelow) return page(items);
      if (!mayMatch(q, event)) continue;
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') continue;
      let entry = jobs.state().get(id);
      if (entry === undefined) {
        loaded++;
        entry = await jobEntryFromLog(log, id, signalOption);
      }
      // A job is listed at its own job.submitted event only (a repeated one is skipped).
      if (entry === undefined || entry.firstSeq !== event.seq || !jobMatches(q, entry.job)) continue;
      items.push(entry);
      if (items.length === q.limit) return page(items, event.seq);
    }
    hi = lo;
    const n = events.length;
    window = Math.min(
      MAX_WINDOW,
      n === 0 ? window * 4 : Math.max(64, Math.min(window * 4, Math.floor((window * WINDOW_TARGET) / n))),
    );
  }
  return page(items);
}
