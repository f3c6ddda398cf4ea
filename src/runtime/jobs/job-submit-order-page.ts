/**
 * One page of the job listing in the `submitted` order (docs/decisions/job-listing.md JL-1,
 * JL-3): descending `seq` of each job's `job.submitted` event (`JobEntry.firstSeq`), the order
 * in which the node recorded its jobs (D9's total order). Jobs never move in it.
 *
 * The projection's submit-order index (OBS-52) serves the part of the range it holds
 * completely; below it the walk goes over the log's `job.submitted` events backwards in
 * windows, each job taken from the projection when it is there and otherwise rebuilt from its
 * own events (`jobEntryFromLog`, by causation).
 */
import type { Event } from '../../core/records/event.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import { RUNTIME_EVENTS } from '../events.js';
import {
  jobMatches,
  tenantMatches,
  verbMatches,
  type CheckedJobListQuery,
  type JobPage,
} from './job-list-query.js';
import {
  FIRST_WINDOW,
  completeFrom,
  eventsIn,
  nextWindow,
  stopBelowOf,
  workBounds,
  type PageWalk,
} from './job-log-walk.js';
import { jobEntryFromLog, jobsNewestFirst, type JobEntry } from './jobs-projection.js';

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

/** A page of jobs in descending `firstSeq` below `walk.bound`. */
export async function submitOrderPage(walk: PageWalk): Promise<JobPage> {
  const { components, query: q, bound, page, signal } = walk;
  const { log, jobs } = components;
  const signalOption = signal === undefined ? {} : { signal };

  // 1. The part of the range the projection holds completely: its jobs newest first, from the
  //    bound down (its submit-order index, OBS-52), until the page is full (one synchronous walk).
  const state = jobs.state();
  const floor = completeFrom(state, q.unfinishedOnly);
  const items: JobEntry[] = [];
  let more = floor > 1;
  for (const entry of jobsNewestFirst(state, bound)) {
    if (entry.firstSeq < floor) break;
    if (!jobMatches(q, entry.job)) continue;
    if (items.length === q.limit) {
      more = true; // one more match below the page
      break;
    }
    items.push(entry);
  }
  const lastRecent = items[q.limit - 1];
  if (lastRecent !== undefined) return page(items, more ? lastRecent.firstSeq : undefined);

  // 2. Older jobs: walk the log's job.submitted events backwards below min(bound, floor).
  const max = workBounds(walk);
  const stopBelow = stopBelowOf(q);
  let examined = 0;
  let loaded = 0;
  let hi = Math.min(bound, floor) - 1; // inclusive
  let window = FIRST_WINDOW;
  while (hi >= 1) {
    const lo = Math.max(0, hi - window);
    const events = await eventsIn(log, RUNTIME_EVENTS.jobSubmitted, lo, hi, q.tenant, signal);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (examined >= max.examined || loaded >= max.loaded) return page(items, event.seq + 1);
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
    window = nextWindow(window, events.length);
  }
  return page(items);
}
