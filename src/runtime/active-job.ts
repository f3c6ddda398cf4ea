/**
 * A job the engine holds until it has finished: its request, deadline, in-memory state
 * (where decisions are taken) and the events it has not written yet.
 *
 * Events are written lazily for synchronous jobs: `job.submitted`, the pre-effect events and
 * `job.started` are held and written in one atomic batch with the job's final event, so a
 * sync invocation costs one commit. A sync request is acknowledged only by its answer, so
 * nothing acknowledged is lost: if the process dies first, the client sees no answer and
 * retries. The held events are flushed early when the job must become visible — an async
 * duplicate attaches to it, or it reports progress. Async jobs are written before they are
 * acknowledged.
 */
import type { Envelope } from '../core/envelope.js';
import type { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { Job, JobState } from '../core/records/job.js';
import type { EventInput } from '../store/event-log.js';
import type { InvocationMode, Principal } from './context.js';
import type { Resolution } from './router.js';

/** How a job ended. */
export interface JobOutcome {
  readonly state: JobState;
  readonly outputs?: JsonValue;
  readonly error?: PlexusError;
  /** The agent that answered (the node id for a broadcast). */
  readonly agent: string;
  /** The job record from the projection, when it was recorded. */
  readonly job?: Job;
}

/** A job the engine holds. */
export interface ActiveJob {
  readonly id: string;
  readonly request: Envelope;
  readonly principal: Principal | undefined;
  readonly mode: InvocationMode;
  /** The scoped idempotency key. */
  readonly key: string;
  readonly payloadHash: string;
  readonly timeoutMs: number;
  readonly deadlineAt: number;
  readonly resolution: Resolution;
  state: JobState;
  attempts: number;
  /** Why the job is run again (recovery), written in `job.retried`. */
  retryReason?: string;
  readonly controller: AbortController;
  /** True once the job's `job.submitted` is built (before that, nothing of it is written). */
  readonly accepted: boolean;
  /** Resolves true when the job is accepted, false when it never will be. */
  readonly acceptance: Promise<boolean>;
  /** Marks the job accepted (true) or refused (false); the first call wins. */
  markAccepted(ok: boolean): void;
  /**
   * Events held back, oldest first; the next write takes them along. `undefined` when
   * events are written as they happen.
   */
  held: EventInput[] | undefined;
  /** Resolves true once `job.submitted` is committed and in the projections, false if it never will be. */
  readonly written: Promise<boolean>;
  /** Settles {@link ActiveJob.written} (the first call wins). */
  markWritten(ok: boolean): void;
  /** Resolves when the job has finished and its final event is recorded. */
  readonly done: Promise<JobOutcome>;
  settle(outcome: JobOutcome): void;
  timer?: NodeJS.Timeout;
  dispatched: boolean;
}

/** What {@link newActiveJob} needs. */
export interface ActiveJobInit {
  readonly id: string;
  readonly request: Envelope;
  readonly principal: Principal | undefined;
  readonly mode: InvocationMode;
  readonly key: string;
  readonly payloadHash: string;
  readonly timeoutMs: number;
  readonly deadlineAt: number;
  readonly resolution: Resolution;
  /** @default 'SUBMITTED' */
  readonly state?: JobState;
  /** @default 0 */
  readonly attempts?: number;
}

/** Creates an {@link ActiveJob} (not yet registered, not yet accepted). */
export function newActiveJob(init: ActiveJobInit): ActiveJob {
  let settle: (outcome: JobOutcome) => void = () => undefined;
  const done = new Promise<JobOutcome>((resolve) => {
    settle = resolve;
  });
  let markWritten: (ok: boolean) => void = () => undefined;
  const written = new Promise<boolean>((resolve) => {
    markWritten = resolve;
  });
  let markAccepted: (ok: boolean) => void = () => undefined;
  const acceptance = new Promise<boolean>((resolve) => {
    markAccepted = resolve;
  });
  // Fields listed one by one: spreading `init` into this literal costs V8 its slow path (~10x).
  const job: ActiveJob = {
    id: init.id,
    request: init.request,
    principal: init.principal,
    mode: init.mode,
    key: init.key,
    payloadHash: init.payloadHash,
    timeoutMs: init.timeoutMs,
    deadlineAt: init.deadlineAt,
    resolution: init.resolution,
    state: init.state ?? 'SUBMITTED',
    attempts: init.attempts ?? 0,
    controller: new AbortController(),
    accepted: false,
    acceptance,
    markAccepted: (ok) => {
      if (ok) (job as { accepted: boolean }).accepted = true;
      markAccepted(ok);
    },
    held: undefined,
    written,
    markWritten: (ok) => {
      markWritten(ok);
    },
    done,
    settle: (outcome) => {
      settle(outcome);
    },
    dispatched: false,
  };
  return job;
}

/** Takes the job's held events; from then on its events are written as they happen. */
export function takeHeld(job: ActiveJob): EventInput[] {
  const held = job.held ?? [];
  job.held = undefined;
  return held;
}

/** The log event of a job: causation = the job id (how a job's events are found), tenant. */
export function jobEvent(job: ActiveJob, type: string, data: JsonValue): EventInput {
  return {
    type,
    data,
    causation: job.id,
    ...(job.request.tenantId === undefined ? {} : { tenant: job.request.tenantId }),
  };
}
