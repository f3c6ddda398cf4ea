/**
 * One page of the job listing in the `status` order, the default (docs/decisions/
 * job-listing.md JL-11…JL-13; A2A §3.1.4, TCK CORE-LIST-003): descending `seq` of each job's
 * latest status event (`JobEntry.statusSeq`; `JOB_STATUS_EVENT_TYPES`: progress and retries do
 * not move a job).
 *
 * The key moves, so the cursor "below `seq` B" needs one rule (JL-12): walking status events
 * below B newest first, an event counts only when it is its job's latest status event. A job
 * listed on one page had its key at or above the cursor, and a key only grows, so no later
 * page repeats it; a job not listed yet whose state changes moves above B and is left to a
 * fresh listing.
 *
 * Where jobs come from (JL-13): every job whose key is at or above the smallest terminal `seq`
 * among the finished jobs the projection keeps is in the projection (its status-order index
 * serves that part in one synchronous walk). Below it the walk goes over the log's status
 * events backwards in windows (the `(type, seq)` index): a job the projection keeps is
 * checked against its entry; a job it no longer keeps is finished, so only a terminal event
 * can be its latest, and the job is rebuilt from its own events (the `(causation, seq)`
 * index) to check that this one is.
 */
import type { Event } from '../../core/records/event.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import { JOB_STATUS_EVENT_TYPES, TERMINAL_JOB_EVENT_TYPES } from '../events.js';
import { jobMatches, type JobPage } from './job-list-query.js';
import {
  FIRST_WINDOW,
  completeFrom,
  eventsIn,
  nextWindow,
  stopBelowOf,
  workBounds,
  type PageWalk,
} from './job-log-walk.js';
import { jobEntryFromLog, jobsByStatusNewestFirst, type JobEntry } from './jobs-projection.js';

/** A page of jobs in descending `statusSeq` below `walk.bound`. */
export async function statusOrderPage(walk: PageWalk): Promise<JobPage> {
  const { components, query: q, bound, page, signal } = walk;
  const { log, jobs } = components;
  const signalOption = signal === undefined ? {} : { signal };

  // 1. The part of the range the projection holds completely, from its status-order index.
  const state = jobs.state();
  const floor = completeFrom(state, q.unfinishedOnly);
  const items: JobEntry[] = [];
  let more = floor > 1;
  for (const entry of jobsByStatusNewestFirst(state, bound)) {
    if (entry.statusSeq < floor) break;
    if (!jobMatches(q, entry.job)) continue;
    if (items.length === q.limit) {
      more = true; // one more match below the page
      break;
    }
    items.push(entry);
  }
  const lastRecent = items[q.limit - 1];
  if (lastRecent !== undefined) return page(items, more ? lastRecent.statusSeq : undefined);

  // 2. Below min(bound, floor): the log's status events, newest first; each counts only as its
  //    job's latest status event.
  const max = workBounds(walk);
  const stopBelow = stopBelowOf(q);
  let examined = 0;
  let loaded = 0;
  let hi = Math.min(bound, floor) - 1; // inclusive
  let window = FIRST_WINDOW;
  while (hi >= 1) {
    const lo = Math.max(0, hi - window);
    const events = await eventsIn(log, JOB_STATUS_EVENT_TYPES, lo, hi, q.tenant, signal);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (examined >= max.examined || loaded >= max.loaded) return page(items, event.seq + 1);
      examined++;
      // every event of a matching job was written after its creation (JL-5)
      const written = stopBelow === undefined ? undefined : dateTimeToEpochNanos(event.time);
      if (stopBelow !== undefined && written !== undefined && written < stopBelow) return page(items);
      const id = event.causation; // every job event names its job there
      if (typeof id !== 'string') continue;
      let entry = jobs.state().get(id);
      if (entry === undefined) {
        // not kept: finished (or not a job), so only a terminal event can be its latest
        if (!TERMINAL_JOB_EVENT_TYPES.has(event.type)) continue;
        loaded++;
        entry = await jobEntryFromLog(log, id, signalOption);
      }
      if (entry === undefined || entry.statusSeq !== event.seq || !jobMatches(q, entry.job)) continue;
      items.push(entry);
      if (items.length === q.limit) return page(items, event.seq);
    }
    hi = lo;
    window = nextWindow(window, events.length);
  }
  return page(items);
}
