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
import type { Envelope } from '../../core/envelope.js';
import type { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Job, JobInputRequest, JobState } from '../../core/records/job.js';
import type { EventInput } from '../../store/event-log.js';
import type { EventMap } from '../../store/event-map.js';
import type { JobEventType } from '../events.js';
import type { InvocationMode, Principal } from '../context.js';
import type { CallerChannel } from './caller-channel.js';
import { LazyAbort, signalSource, type AbortSource } from './lazy-abort.js';
import type { Resolution } from '../routing/router.js';
import type { ObserverSpan } from '../observer.js';

/** Where {@link newActiveJob} keeps a job's lazy abort source. */
const JOB_ABORT = Symbol('plexus.runtime.jobAbort');

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
  /** Unix ms; moved on when a job that waited for input runs again (the wait does not count). */
  deadlineAt: number;
  readonly resolution: Resolution;
  state: JobState;
  attempts: number;
  /** The invocation's span, when the job was accepted on this run of the node (its steps are its children). */
  trace?: ObserverSpan;
  /** The caller's answers to the handler's `requestInput`, in order (replayed on each run). */
  inputs: JsonValue[];
  /** The live channel to the caller, when its face gave one (memory only, never recorded). */
  readonly caller?: CallerChannel;
  /** Once its wait for input is recorded: what is asked, and the deadline time left at the pause. */
  waiting?: { readonly request: JobInputRequest; readonly index: number; readonly leftMs: number };
  /** True when the next dispatch continues after an answer (no `job.started`, no new attempt). */
  resumed: boolean;
  /** Resolves at the job's next pause for input (with the recorded job), or never. */
  nextPause(): Promise<JobOutcome>;
  /** Wakes {@link ActiveJob.nextPause} waiters. */
  paused(outcome: JobOutcome): void;
  /** Why the job is run again (recovery, fail-over), written in `job.retried`. */
  retryReason?: string;
  /** Capability providers this run found unreachable (RT-060: not tried again). */
  unreached?: Set<string>;
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
  /**
   * True once the engine let go of the job without recording an end (a stopping node keeping
   * it for the next start): its outcome is never written.
   */
  released: boolean;
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
  /** @default [] */
  readonly inputs?: readonly JsonValue[];
  /** The live channel to the caller (`InvocationContext.caller`). */
  readonly caller?: CallerChannel;
}

/** Creates an {@link ActiveJob} (not yet registered, not yet accepted). */
export function newActiveJob(init: ActiveJobInit): ActiveJob {
  return new EngineJob(init);
}

/** A boolean settled once (the first `set` wins), with its promise made only when read. */
class LazyFlag {
  #value: boolean | undefined;
  #promise: Promise<boolean> | undefined;
  #resolve: ((value: boolean) => void) | undefined;

  promise(): Promise<boolean> {
    if (this.#promise === undefined) {
      const value = this.#value;
      this.#promise =
        value === undefined
          ? new Promise<boolean>((resolve) => {
              this.#resolve = resolve;
            })
          : Promise.resolve(value);
    }
    return this.#promise;
  }

  set(value: boolean): void {
    if (this.#value !== undefined) return;
    this.#value = value;
    this.#resolve?.(value);
    this.#resolve = undefined;
  }
}

/**
 * The engine's job: a class, so every job shares one shape and its methods and the lazy
 * `controller` getter live on the prototype (an object literal with a getter takes V8's
 * slow literal path).
 */
class EngineJob implements ActiveJob {
  readonly id: string;
  readonly request: Envelope;
  readonly principal: Principal | undefined;
  readonly mode: InvocationMode;
  readonly key: string;
  readonly payloadHash: string;
  readonly timeoutMs: number;
  deadlineAt: number;
  readonly resolution: Resolution;
  state: JobState;
  attempts: number;
  inputs: JsonValue[];
  declare readonly caller?: CallerChannel;
  declare waiting?: { readonly request: JobInputRequest; readonly index: number; readonly leftMs: number };
  resumed = false;
  #pauseWaiters: ((outcome: JobOutcome) => void)[] | undefined;
  declare retryReason?: string;
  declare unreached?: Set<string>;
  accepted = false;
  held: EventInput[] | undefined = undefined;
  readonly done: Promise<JobOutcome>;
  declare timer?: NodeJS.Timeout;
  dispatched = false;
  released = false;
  readonly [JOB_ABORT]: LazyAbort = new LazyAbort();
  // `acceptance` and `written` are rarely awaited (async jobs, duplicates, progress), so
  // their promises are made on first read; the first mark wins either way.
  readonly #acceptance = new LazyFlag();
  readonly #written = new LazyFlag();
  #settle: (outcome: JobOutcome) => void = () => undefined;

  constructor(init: ActiveJobInit) {
    this.id = init.id;
    this.request = init.request;
    this.principal = init.principal;
    this.mode = init.mode;
    this.key = init.key;
    this.payloadHash = init.payloadHash;
    this.timeoutMs = init.timeoutMs;
    this.deadlineAt = init.deadlineAt;
    this.resolution = init.resolution;
    this.state = init.state ?? 'SUBMITTED';
    this.attempts = init.attempts ?? 0;
    this.inputs = [...(init.inputs ?? [])];
    if (init.caller !== undefined) (this as { caller?: CallerChannel }).caller = init.caller;
    this.done = new Promise<JobOutcome>((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Made on first read (see lazy-abort.ts); the engine aborts through `jobAbort(job)`. */
  get controller(): AbortController {
    return this[JOB_ABORT].controller;
  }

  get acceptance(): Promise<boolean> {
    return this.#acceptance.promise();
  }

  get written(): Promise<boolean> {
    return this.#written.promise();
  }

  markAccepted(ok: boolean): void {
    if (ok) this.accepted = true;
    this.#acceptance.set(ok);
  }

  markWritten(ok: boolean): void {
    this.#written.set(ok);
  }

  settle(outcome: JobOutcome): void {
    this.#settle(outcome);
    this.#pauseWaiters = undefined;
  }

  nextPause(): Promise<JobOutcome> {
    return new Promise((resolve) => {
      (this.#pauseWaiters ??= []).push(resolve);
    });
  }

  paused(outcome: JobOutcome): void {
    const waiters = this.#pauseWaiters;
    this.#pauseWaiters = undefined;
    for (const wake of waiters ?? []) wake(outcome);
  }
}

/** Takes the job's held events; from then on its events are written as they happen. */
export function takeHeld(job: ActiveJob): EventInput[] {
  const held = job.held ?? [];
  job.held = undefined;
  return held;
}

/** The log event of a job: causation = the job id (how a job's events are found), tenant. */
export function jobEvent<K extends JobEventType>(
  job: ActiveJob,
  type: K,
  data: EventMap[K],
): EventInput<EventMap, K> {
  return {
    type,
    data,
    causation: job.id,
    ...(job.request.tenantId === undefined ? {} : { tenant: job.request.tenantId }),
  };
}

/** How the engine aborts a job and races work against that. */
export interface JobAbort extends AbortSource {
  /** Aborts the job's signal (if made) and every listener; the first call wins. */
  abort(reason: unknown): void;
}

/**
 * The abort source of a job: the lazy one of {@link newActiveJob}, else one over the job's
 * `controller` (a job built some other way).
 */
export function jobAbort(job: ActiveJob): JobAbort {
  const own = (job as { readonly [JOB_ABORT]?: JobAbort })[JOB_ABORT];
  if (own !== undefined) return own;
  const controller = job.controller;
  return Object.assign(signalSource(controller.signal), {
    abort: (reason: unknown) => {
      controller.abort(reason);
    },
  });
}
