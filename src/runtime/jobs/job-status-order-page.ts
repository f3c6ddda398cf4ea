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
import { JOB_STATUS_EVENT_TYPES, TERMINAL_JOB_EVENT_TYPES } from '../events.js';
import type { JobPage } from './job-list-query.js';
import { walkPage, type ListingOrder, type PageWalk } from './job-log-walk.js';
import { jobsByStatusNewestFirst } from './jobs-projection.js';

/** The status order: the key is `statusSeq`, the job's latest status event. */
const STATUS_ORDER: ListingOrder = {
  key: (entry) => entry.statusSeq,
  newestFirst: jobsByStatusNewestFirst,
  types: JOB_STATUS_EVENT_TYPES,
  // every job event names its job in its causation
  candidate: (_query, event) => (typeof event.causation === 'string' ? event.causation : undefined),
  // a job the projection no longer keeps is finished: only a terminal event can be its latest
  loadable: (event) => TERMINAL_JOB_EVENT_TYPES.has(event.type),
};

/** A page of jobs in descending `statusSeq` below `walk.bound`. */
export function statusOrderPage(walk: PageWalk): Promise<JobPage> {
  return walkPage(walk, STATUS_ORDER);
}
