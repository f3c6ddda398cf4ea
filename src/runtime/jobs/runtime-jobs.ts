/**
 * `runtime.jobs`: the jobs half of the runtime facade (issue 12 item 7) — reading, listing,
 * waiting for, cancelling and following the jobs that `invoke` and `submit` create.
 */
import type { Envelope } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import type { Job } from '../../core/records/job.js';
import type { SignalOptions } from '../../store/event-log.js';
import type { JobEvent, JobEventsOptions } from './job-events.js';
import type { JobListQuery, JobPage } from './job-list-query.js';

/** Options of {@link RuntimeJobs.cancel}. */
export interface CancelOptions extends SignalOptions {
  /** Why, for the job's error message. @default 'cancelled by request' */
  readonly reason?: string;
}

/** Options of {@link RuntimeJobs.wait}. */
export interface WaitOptions extends SignalOptions {
  /** Also resolve when the job waits for input (INPUT_REQUIRED). @default false */
  readonly orInputRequired?: boolean;
}

/** Options of {@link RuntimeJobs.provideInput}. */
export interface ProvideInputOptions extends SignalOptions {
  /** Who answers (recorded in `job.input_provided`). */
  readonly principal?: string;
}

/** The jobs of a runtime: durable in the log, live while they run. */
export interface RuntimeJobs {
  /** A job's current record. @throws PlexusError `NOT_FOUND`. */
  get(id: string, options?: SignalOptions): Promise<Job>;
  /**
   * A page of jobs, newest first (descending `seq` of their `job.submitted` event), filtered
   * by state, verb, creation time and tenant; `nextCursor` continues below the page and is
   * never disturbed by jobs recorded later (docs/decisions/job-listing.md). Finished jobs the
   * jobs projection no longer keeps are read back from the log. A page may be short, even
   * empty, while `nextCursor` is set (the log work of one page is bounded).
   * @throws PlexusError `INVALID_PARAMS` (`details.parameter`) for a bad query or cursor;
   *   `UNAVAILABLE` when the runtime is not started.
   */
  list(query?: JobListQuery, options?: SignalOptions): Promise<JobPage>;
  /**
   * Resolves with the job once it has finished (or, with `orInputRequired`, once it waits for
   * input).
   * @throws PlexusError `NOT_FOUND`; `CANCELLED` when the signal aborts (the job keeps running).
   */
  wait(id: string, options?: WaitOptions): Promise<Job>;
  /**
   * Answers a job that waits for input (INPUT_REQUIRED, its handler's `ctx.requestInput`):
   * the answer is recorded (`job.input_provided`) and the job runs again, its handler
   * replaying every answer so far. Resolves with the job's record once the answer is recorded.
   * Tenant and caller checks are the face's (as for `get`).
   * @throws PlexusError `NOT_FOUND`; `CONFLICT` when the job does not wait for input;
   *   `INVALID_PARAMS` when the answer does not match the schema the handler asked for.
   */
  provideInput(id: string, input: JsonValue, options?: ProvideInputOptions): Promise<Job>;
  /**
   * Cancels a queued or running job (its handler's signal aborts; state CANCELED) and
   * resolves with its record. A finished job is returned unchanged.
   * @throws PlexusError `NOT_FOUND`.
   */
  cancel(id: string, options?: CancelOptions): Promise<Job>;
  /** The answer envelope of a finished job (for ESRP GET after async). @throws PlexusError `NOT_FOUND`, `CONFLICT` while unfinished. */
  answer(id: string, options?: SignalOptions): Promise<Envelope>;
  /** A job's events after `afterSeq`, in order. @throws PlexusError `NOT_FOUND`. */
  events(id: string, options?: JobEventsOptions): Promise<readonly JobEvent[]>;
  /**
   * Follows a job's events after `afterSeq` until its final event (SSE with resume).
   * @throws PlexusError `NOT_FOUND` (from the first `next()`).
   */
  watch(id: string, options?: Omit<JobEventsOptions, 'limit'>): AsyncIterable<JobEvent>;
  /** Running jobs per local or remote agent id (the router's load). */
  load(agentId: string): number;
}
