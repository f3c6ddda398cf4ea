/**
 * The cursor of `Runtime.jobs.list` (docs/decisions/job-listing.md JL-2, JL-12). Jobs are
 * listed newest first by an order key — the `seq` of their latest status event (order
 * `status`, the default) or of their `job.submitted` event (order `submitted`) — so a page is
 * "the newest matching jobs whose key is below `seq` B". The cursor carries B and a
 * fingerprint of the filters it was issued for; its prefix names the order (`j2.` status,
 * `j1.` submitted, the form cursors had before there was a choice); it is opaque to callers:
 * prefix + base64url of `{"b": B, "f": fingerprint}`.
 *
 * Stability: a key only grows, and a job recorded or changed later gets a key above every
 * cursor already handed out, so a later page never repeats a job (JL-12: in the status order a
 * job not yet listed that changes moves above B and is left to a fresh listing).
 */
import { sha256Hex } from '../../core/hash.js';
import { badListParameter, type CheckedJobListQuery, type JobListOrder } from './job-list-query.js';

const PREFIXES: Readonly<Record<JobListOrder, string>> = { status: 'j2.', submitted: 'j1.' };
const ACCEPTED = 'the next_cursor of the previous page, with the same filters and order';

/** What a cursor says. */
export interface JobCursor {
  /** The next page lists jobs whose order key (a `seq`) is below this. */
  readonly before: number;
}

/** A short fingerprint of the filters of `query` (not its limit, tenant or order). */
export function filterFingerprint(query: CheckedJobListQuery): string {
  const states = query.states === undefined ? null : [...query.states].sort();
  const filters: unknown[] = [states, query.verb ?? null, query.since ?? null];
  if (query.sessionId !== undefined) filters.push(query.sessionId); // cursors without it keep their value
  return sha256Hex(JSON.stringify(filters)).slice(0, 16);
}

/** The cursor of the page that lists jobs whose order key is below `before`. */
export function encodeJobCursor(before: number, query: CheckedJobListQuery): string {
  const body = JSON.stringify({ b: before, f: filterFingerprint(query) });
  return PREFIXES[query.order] + Buffer.from(body, 'utf8').toString('base64url');
}

/**
 * Reads a cursor issued for the same filters and order as `query`.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter` `cursor`) for text that is not a
 *   cursor, or a cursor issued for other filters or another order.
 */
export function decodeJobCursor(text: string, query: CheckedJobListQuery): JobCursor {
  const prefix = PREFIXES[query.order];
  const other = (Object.keys(PREFIXES) as JobListOrder[]).find(
    (order) => order !== query.order && text.startsWith(PREFIXES[order]),
  );
  if (other !== undefined) {
    throw badListParameter(
      'cursor',
      `the cursor was issued for the ${other} order, not ${query.order}; repeat order=${other} or start again without a cursor`,
      ACCEPTED,
    );
  }
  let value: unknown;
  try {
    if (!text.startsWith(prefix)) throw new Error('prefix');
    value = JSON.parse(Buffer.from(text.slice(prefix.length), 'base64url').toString('utf8'));
  } catch {
    throw badListParameter(
      'cursor',
      `${JSON.stringify(text.slice(0, 40))} is not a job list cursor`,
      ACCEPTED,
    );
  }
  const { b, f } = (typeof value === 'object' && value !== null ? value : {}) as { b?: unknown; f?: unknown };
  if (typeof b !== 'number' || !Number.isSafeInteger(b) || b < 1 || typeof f !== 'string') {
    throw badListParameter('cursor', 'the cursor is damaged', ACCEPTED);
  }
  if (f !== filterFingerprint(query)) {
    throw badListParameter(
      'cursor',
      'the cursor was issued for other filters (state, verb, since); repeat them unchanged or start again without a cursor',
      ACCEPTED,
    );
  }
  return { before: b };
}
