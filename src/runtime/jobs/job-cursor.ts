/**
 * The cursor of `Runtime.jobs.list` (docs/decisions/job-listing.md). Jobs are listed in
 * descending order of their position in the log — the `seq` of their `job.submitted` event —
 * so a page is "the newest matching jobs recorded before `seq` B". The cursor carries B and
 * a fingerprint of the filters it was issued for; it is opaque to callers:
 * `j1.` + base64url of `{"b": B, "f": fingerprint}`.
 *
 * Stability: a job recorded later always gets a larger `seq`, so it can never fall below a
 * cursor already handed out: new jobs never shift, repeat or hide a later page.
 */
import { sha256Hex } from '../../core/hash.js';
import { badListParameter, type CheckedJobListQuery } from './job-list-query.js';

const PREFIX = 'j1.';
const ACCEPTED = 'the next_cursor of the previous page, with the same filters';

/** What a cursor says. */
export interface JobCursor {
  /** The next page lists jobs whose `job.submitted` event has a `seq` below this. */
  readonly before: number;
}

/** A short fingerprint of the filters of `query` (not its limit or tenant). */
export function filterFingerprint(query: CheckedJobListQuery): string {
  const states = query.states === undefined ? null : [...query.states].sort();
  const filters: unknown[] = [states, query.verb ?? null, query.since ?? null];
  if (query.sessionId !== undefined) filters.push(query.sessionId); // cursors without it keep their value
  return sha256Hex(JSON.stringify(filters)).slice(0, 16);
}

/** The cursor of the page that lists jobs recorded before `seq` `before`. */
export function encodeJobCursor(before: number, query: CheckedJobListQuery): string {
  const body = JSON.stringify({ b: before, f: filterFingerprint(query) });
  return PREFIX + Buffer.from(body, 'utf8').toString('base64url');
}

/**
 * Reads a cursor issued for the same filters as `query`.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter` `cursor`) for text that is not a
 *   cursor, or a cursor issued for other filters.
 */
export function decodeJobCursor(text: string, query: CheckedJobListQuery): JobCursor {
  let value: unknown;
  try {
    if (!text.startsWith(PREFIX)) throw new Error('prefix');
    value = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8'));
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
