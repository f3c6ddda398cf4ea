/**
 * What `Runtime.jobs.list` takes (docs/decisions/job-listing.md): filters on a job's state, verb,
 * creation time and tenant, a page size and a cursor; checking it, and matching a job against
 * it.
 */
import { PlexusError } from '../../core/errors.js';
import { dateTimeToEpochNanos } from '../../core/records/datetime.js';
import {
  ESRP_JOB_STATUSES,
  JOB_STATES,
  JOB_STATE_TO_ESRP,
  isJobState,
  isTerminalJobState,
  type EsrpJobStatus,
  type Job,
  type JobState,
} from '../../core/records/job.js';
import { VERB_SEGMENT_PATTERN, stripVerbVersion, verbNameProblem } from '../../core/verb-name.js';
import type { Principal } from '../context.js';
import { isTenantBound } from '../pipeline/tenancy.js';

/** Jobs per page when the query names no `limit`. */
export const DEFAULT_JOB_LIST_LIMIT = 50;
/** The largest `limit` of one page. */
export const MAX_JOB_LIST_LIMIT = 500;

/**
 * The orders of a job listing, newest first (JL-11): `status` — by each job's latest status
 * event (a job moves to the top when its state changes; A2A's ListTasks order); `submitted` —
 * by each job's `job.submitted` event (jobs never move, so a paged walk sees every job that
 * existed when it began).
 */
export const JOB_LIST_ORDERS = ['status', 'submitted'] as const;

/** One of {@link JOB_LIST_ORDERS}. */
export type JobListOrder = (typeof JOB_LIST_ORDERS)[number];

/** The order of a listing that names none. */
export const DEFAULT_JOB_LIST_ORDER: JobListOrder = 'status';

/** A query of `Runtime.jobs.list`; every filter given must hold (AND). */
export interface JobListQuery {
  /** The order, newest first ({@link JOB_LIST_ORDERS}). @default 'status' */
  readonly order?: JobListOrder;
  /** Only jobs in one of these states (D8 names). @default every state */
  readonly states?: readonly JobState[];
  /**
   * Only jobs of this verb: exact (`demo.echo.say`; without `@version` it also matches every
   * era of the verb) or a prefix pattern ending in `.*` (`demo.*`, `demo.echo.*`).
   * @default every verb
   */
  readonly verb?: string;
  /** Only jobs created at or after this RFC 3339 date-time. @default no bound */
  readonly since?: string;
  /** Jobs per page, 1 … {@link MAX_JOB_LIST_LIMIT}. @default DEFAULT_JOB_LIST_LIMIT (50) */
  readonly limit?: number;
  /** The `nextCursor` of the previous page, with the same filters; absent for the first page. */
  readonly cursor?: string;
  /**
   * Tenant isolation: a string lists only that tenant's jobs, `null` only jobs with no tenant;
   * absent lists every tenant's jobs (callers that are not tenant-bound, see `tenancy.ts`).
   * @default every tenant
   */
  readonly tenant?: string | null;
  /** Only jobs whose request carried this `sessionId` (an A2A `contextId`). @default every session */
  readonly sessionId?: string;
}

/** One page of jobs, newest first in the query's order. */
export interface JobPage {
  readonly jobs: readonly Job[];
  /** Pass as `cursor` for the next page; absent when there is nothing more. */
  readonly nextCursor?: string;
}

/** A checked {@link JobListQuery}. */
export interface CheckedJobListQuery {
  readonly order: JobListOrder;
  /** `undefined` for every state. */
  readonly states: ReadonlySet<JobState> | undefined;
  readonly verb: string | undefined;
  readonly since: string | undefined;
  /** {@link since} in Unix nanoseconds. */
  readonly sinceNanos: bigint | undefined;
  readonly limit: number;
  readonly cursor: string | undefined;
  /** `undefined`: every tenant; `null`: no tenant. */
  readonly tenant: string | null | undefined;
  readonly sessionId: string | undefined;
  /** True when only unfinished jobs can match (then the jobs projection holds every match). */
  readonly unfinishedOnly: boolean;
}

/** What the verb filter accepts, for error messages. */
export const VERB_FILTER_ACCEPTED =
  'a verb name (namespace.resource.action, optionally @version) or a prefix pattern such as demo.* or demo.echo.*';

/** An `INVALID_PARAMS` naming the parameter and what it accepts. */
export function badListParameter(parameter: string, message: string, accepted: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', `${parameter}: ${message}; accepted: ${accepted}`, {
    details: { parameter, accepted },
  });
}

/** Why `verb` is not a verb filter, or `undefined` when it is one. */
export function verbFilterProblem(verb: string): string | undefined {
  if (verb.endsWith('.*')) {
    const segments = verb.slice(0, -2).split('.');
    if (segments.length > 2 || segments.some((s) => !VERB_SEGMENT_PATTERN.test(s))) {
      return `${JSON.stringify(verb)} is not a prefix pattern (one or two verb segments, then .*)`;
    }
    return undefined;
  }
  return verbNameProblem(verb);
}

/**
 * Checks a query.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter`, `details.accepted`) for a bad member.
 */
export function checkJobListQuery(query: JobListQuery): CheckedJobListQuery {
  let states: Set<JobState> | undefined;
  if (query.states !== undefined) {
    if (!Array.isArray(query.states) || query.states.length === 0) {
      throw badListParameter('state', 'give at least one state', JOB_STATES.join(', '));
    }
    for (const state of query.states) {
      if (!isJobState(state)) {
        throw badListParameter('state', `${JSON.stringify(state)} is not a job state`, JOB_STATES.join(', '));
      }
    }
    states = new Set(query.states);
  }
  const given: unknown = query.order ?? DEFAULT_JOB_LIST_ORDER; // callers may pass anything
  if (!(JOB_LIST_ORDERS as readonly unknown[]).includes(given)) {
    const shown = typeof given === 'string' ? JSON.stringify(given.slice(0, 40)) : typeof given;
    throw badListParameter('order', `${shown} is not a listing order`, JOB_LIST_ORDERS.join(', '));
  }
  const order = given as JobListOrder;
  const { verb, since, cursor, tenant } = query;
  if (verb !== undefined) {
    const problem = typeof verb === 'string' ? verbFilterProblem(verb) : 'it must be a string';
    if (problem !== undefined) throw badListParameter('verb', problem, VERB_FILTER_ACCEPTED);
  }
  let sinceNanos: bigint | undefined;
  if (since !== undefined) {
    sinceNanos = typeof since === 'string' ? dateTimeToEpochNanos(since) : undefined;
    if (sinceNanos === undefined) {
      throw badListParameter(
        'since',
        `${JSON.stringify(since)} is not an RFC 3339 date-time`,
        'an RFC 3339 date-time with a time zone, such as 2026-01-31T12:00:00Z',
      );
    }
  }
  const limit = query.limit ?? DEFAULT_JOB_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_JOB_LIST_LIMIT) {
    throw badListParameter(
      'limit',
      `${String(limit)} is out of range`,
      `a whole number from 1 to ${MAX_JOB_LIST_LIMIT}`,
    );
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === '')) {
    throw badListParameter('cursor', 'it must be a non-empty string', 'the next_cursor of the previous page');
  }
  if (tenant !== undefined && tenant !== null && (typeof tenant !== 'string' || tenant === '')) {
    throw badListParameter(
      'tenant',
      'it must be a non-empty string or null',
      'a tenant id, or null for no tenant',
    );
  }
  const { sessionId } = query;
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw badListParameter(
      'sessionId',
      'it must be a non-empty string',
      'the session id (A2A contextId) of the jobs',
    );
  }
  return {
    order,
    states,
    verb,
    since,
    sinceNanos,
    limit,
    cursor,
    tenant,
    sessionId,
    unfinishedOnly: states !== undefined && [...states].every((s) => !isTerminalJobState(s)),
  };
}

/** True when a job of verb `jobVerb` passes the verb filter `verb`. */
export function verbMatches(verb: string | undefined, jobVerb: string): boolean {
  if (verb === undefined) return true;
  if (verb.endsWith('.*')) return jobVerb.startsWith(verb.slice(0, -1));
  if (verb.includes('@')) return jobVerb === verb;
  return jobVerb === verb || stripVerbVersion(jobVerb) === verb;
}

/** True when a record of tenant `tenantId` passes the tenant scope. */
export function tenantMatches(tenant: string | null | undefined, tenantId: string | undefined): boolean {
  return tenant === undefined || (tenant ?? undefined) === tenantId;
}

/** True when a time (RFC 3339) is not before `since` (a time that cannot be read does not pass). */
export function notBefore(sinceNanos: bigint | undefined, time: string): boolean {
  if (sinceNanos === undefined) return true;
  const at = dateTimeToEpochNanos(time);
  return at !== undefined && at >= sinceNanos;
}

/** True when `job` passes every filter of `query`. */
export function jobMatches(query: CheckedJobListQuery, job: Job): boolean {
  return (
    tenantMatches(query.tenant, job.tenantId) &&
    (query.states === undefined || query.states.has(job.state)) &&
    verbMatches(query.verb, job.verb) &&
    (query.sessionId === undefined || query.sessionId === job.sessionId) &&
    notBefore(query.sinceNanos, job.timing.createdAt)
  );
}

/**
 * The {@link JobListQuery.tenant} scope of a caller — the rule of `visibleToTenant`, which
 * hides other tenants' jobs on `GET /v1/jobs/{id}`: a tenant-bound principal sees only its own
 * tenant's jobs (one bound to no tenant: only jobs with no tenant); a caller that is not
 * tenant-bound (no principal, `anonymous`, a trusted `peer`) sees every job.
 */
export function listTenantOf(principal: Principal | undefined): string | null | undefined {
  return isTenantBound(principal) ? (principal.tenantId ?? null) : undefined;
}

/** What a state list accepts, for error messages. */
export const STATE_LIST_ACCEPTED = `comma-separated ESRP states (${ESRP_JOB_STATUSES.join(', ')}) or job states (${JOB_STATES.join(', ')})`;

/**
 * The job states one state name stands for: an ESRP name (exactly as written: `queued`,
 * `started`, `succeeded`, `failed`, `cancelled`) stands for every state the ESRP face shows
 * that way (`started` includes INPUT_REQUIRED and AUTH_REQUIRED, `failed` includes
 * REJECTED); otherwise a D8 name in any case (`COMPLETED`, `working`). `undefined` for
 * neither.
 */
export function statesOfName(name: string): readonly JobState[] | undefined {
  if ((ESRP_JOB_STATUSES as readonly string[]).includes(name)) {
    const status = name as EsrpJobStatus;
    return JOB_STATES.filter((s) => JOB_STATE_TO_ESRP[s] === status);
  }
  const upper = name.toUpperCase();
  return isJobState(upper) ? [upper] : undefined;
}

/**
 * The job states of a list of comma-separated state names ({@link statesOfName}), in
 * {@link JOB_STATES} order.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter` = `parameter`) for an empty or
 *   unknown name.
 */
export function parseStateList(texts: readonly string[], parameter = 'state'): JobState[] {
  const states = new Set<JobState>();
  for (const token of texts.flatMap((t) => t.split(',')).map((t) => t.trim())) {
    const named = token === '' ? undefined : statesOfName(token);
    if (named === undefined) {
      throw badListParameter(
        parameter,
        `${JSON.stringify(token.slice(0, 40))} is not a job state`,
        STATE_LIST_ACCEPTED,
      );
    }
    for (const s of named) states.add(s);
  }
  return JOB_STATES.filter((s) => states.has(s));
}
