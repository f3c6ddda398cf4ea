/**
 * One page of the job listing in the `submitted` order (docs/decisions/job-listing.md JL-1,
 * JL-3): descending `seq` of each job's `job.submitted` event (`JobEntry.firstSeq`), the order
 * in which the node recorded its jobs (D9's total order). Jobs never move in it.
 *
 * The projection's submit-order index (OBS-52) serves the part of the range it holds
 * completely; below it the walk (`walkPage`) goes over the log's `job.submitted` events
 * backwards in windows, each job taken from the projection when it is there and otherwise
 * rebuilt from its own events (`jobEntryFromLog`, by causation). A job is listed at its own
 * `job.submitted` event only (a repeated one is skipped).
 */
import type { Event } from '../../core/records/event.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import { RUNTIME_EVENTS } from '../events.js';
import { tenantMatches, verbMatches, type CheckedJobListQuery, type JobPage } from './job-list-query.js';
import { walkPage, type ListingOrder, type PageWalk } from './job-log-walk.js';
import { jobsNewestFirst } from './jobs-projection.js';

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

/** The submitted order: the key is `firstSeq`, the `job.submitted` event. */
const SUBMIT_ORDER: ListingOrder = {
  key: (entry) => entry.firstSeq,
  newestFirst: jobsNewestFirst,
  types: RUNTIME_EVENTS.jobSubmitted,
  candidate(query, event) {
    if (!mayMatch(query, event)) return undefined;
    const id = (event.data as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : undefined;
  },
  loadable: () => true,
};

/** A page of jobs in descending `firstSeq` below `walk.bound`. */
export function submitOrderPage(walk: PageWalk): Promise<JobPage> {
  return walkPage(walk, SUBMIT_ORDER);
}
