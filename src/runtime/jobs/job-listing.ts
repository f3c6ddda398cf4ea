/**
 * `Runtime.jobs.list` (docs/decisions/job-listing.md): pages of a node's jobs, newest first in
 * one of two orders (JL-11) — `status` (the default: by each job's latest status event,
 * `job-status-order-page.ts`) or `submitted` (by each job's `job.submitted` event,
 * `job-submit-order-page.ts`). The cursor (`job-cursor.ts`) carries the `seq` the next page
 * starts below, so no page repeats a job.
 *
 * Both walks serve the part of the range the jobs projection holds completely from one of its
 * indexes, then walk the log backwards for jobs it no longer keeps; a page does a bounded
 * amount of log work and, when the bound is reached, ends early (possibly short or empty) with
 * a cursor where the walk stopped (`job-log-walk.ts`).
 */
import type { SignalOptions } from '../../store/event-log.js';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';
import { checkJobListQuery, type JobListQuery, type JobPage } from './job-list-query.js';
import type { JobListingComponents, JobListingLimits, PageWalk } from './job-log-walk.js';
import { statusOrderPage } from './job-status-order-page.js';
import { submitOrderPage } from './job-submit-order-page.js';
import type { JobEntry } from './jobs-projection.js';

export { SINCE_CLOCK_SLACK_MS, type JobListingComponents, type JobListingLimits } from './job-log-walk.js';

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
  const { signal } = options;
  const signalOption = signal === undefined ? {} : { signal };
  const head = (await c.log.head(signalOption)).seq;
  await c.jobs.waitFor(head, signalOption);
  const walk: PageWalk = {
    components: c,
    query: q,
    bound: Math.min(cursor?.before ?? head + 1, head + 1), // exclusive
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...signalOption,
    page: (items: readonly JobEntry[], next?: number): JobPage => ({
      jobs: items.map((e) => e.job),
      ...(next === undefined ? {} : { nextCursor: encodeJobCursor(next, q) }),
    }),
  };
  return q.order === 'status' ? statusOrderPage(walk) : submitOrderPage(walk);
}
