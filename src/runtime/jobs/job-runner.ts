/**
 * The job engine: the in-memory side of jobs that are not finished yet. It queues accepted
 * jobs (FIFO, at most `concurrency` running), routes and dispatches them, arms their
 * deadline, cancels them, and records every step as a `job.*` event. Decisions are taken
 * here, synchronously, on the job's in-memory state (so a cancel and a completion cannot
 * both win); the durable state is the projection of the events written.
 *
 * A job leaves the engine only after its final event is committed and both the jobs and the
 * idempotency projections have applied it, so a duplicate arriving at any moment finds the
 * job either here or in the projections.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isTerminalJobState, type JobState } from '../../core/records/job.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import { jobAbort, jobEvent, takeHeld, type ActiveJob, type JobOutcome } from './active-job.js';
import {
  broadcastOutputs,
  runLegWith,
  type ExecutorComponents,
  type ExecutedJob,
} from '../pipeline/executor.js';
import {
  RUNTIME_EVENTS,
  type JobInputProvidedData,
  type JobInputRequiredData,
  type JobStartedData,
  type RouteKind,
} from '../events.js';
import type { JsonValue } from '../../core/json.js';
import { problemsDetails, summarizeProblems, type JsonSchema } from '../../core/schema-validator.js';
import type { InputRequired } from './input-request.js';
import type { IdempotencyState } from '../pipeline/idempotency.js';
import type { JobsState } from './jobs-projection.js';
import type { Observer, ObserverSpanOptions } from '../observer.js';
import { EXECUTE_SPAN, STORE_COMMIT_SPAN } from '../../observability/span-names.js';
import type { Logger } from '../../core/logger.js';
import { runPostEffects, type PostEffect } from '../pipeline/effects.js';
import { runStep } from '../pipeline/steps.js';
import { selectCandidate, type Candidate, type RouteState } from '../routing/router.js';
import { wasNeverSent } from '../routing/unsent.js';

/** A job's spans sit under its invocation's span (or, recovered after a restart, under its request's). */
function underJob(job: ActiveJob): ObserverSpanOptions | undefined {
  const parent = job.trace?.traceparent ?? job.request.traceparent;
  return parent === undefined ? undefined : { parent };
}

/** What the engine needs from the runtime. */
export interface JobRunnerComponents {
  readonly log: EventLog;
  readonly jobs: ProjectionView<JobsState>;
  readonly idempotency: ProjectionView<IdempotencyState>;
  readonly executor: ExecutorComponents;
  readonly routeState: RouteState;
  readonly postEffects: readonly PostEffect[];
  readonly observer: Observer;
  /** Where failed appends and post-effects are logged. */
  readonly logger: Logger;
  readonly now: () => number;
  /** Most jobs running at once. */
  readonly concurrency: number;
  /** The node's id, the `from` of broadcast answers. */
  readonly nodeId: string;
}

/** The engine. */
export interface JobRunner {
  /** Unfinished jobs by id. */
  readonly active: ReadonlyMap<string, ActiveJob>;
  /** The unfinished job holding a scoped idempotency key. */
  byKey(key: string): ActiveJob | undefined;
  /** Registers a job (before `job.submitted` is written), so duplicates attach to it. */
  reserve(job: ActiveJob): void;
  /** Queues an accepted job; arms its deadline. */
  enqueue(job: ActiveJob): void;
  /**
   * Writes the job's held events now (an async job, or a sync job that must become
   * visible) and waits until the projections have them.
   * @throws PlexusError from the log; `UNAVAILABLE` when the job was never accepted.
   */
  persist(job: ActiveJob): Promise<void>;
  /** Drops a registered job that was never queued; its waiters get `error`. */
  abandon(job: ActiveJob, error: PlexusError): void;
  /** Cancels a job. False when the engine does not hold it. */
  cancel(id: string, reason: string): boolean;
  /**
   * Lets go of a running or queued job without recording an end: its handler is aborted, its
   * waiters get `UNAVAILABLE`, and the log keeps it unfinished, so crash recovery picks it up
   * at the next start. For a stopping node's jobs that must outlive it (queued deliveries).
   * False when the engine does not hold it.
   */
  release(id: string, reason: string): boolean;
  /**
   * Answers a job waiting for input (INPUT_REQUIRED): records `job.input_provided` and runs
   * the job again, its handler replaying every answer so far. Resolves once the answer is
   * recorded.
   * @throws PlexusError `CONFLICT` when the job is not waiting for input; `INVALID_PARAMS` when
   *   the answer does not match the requested schema; the log's errors.
   */
  provideInput(id: string, input: JsonValue, principal?: string): Promise<void>;
  /**
   * Holds a job recovered in INPUT_REQUIRED (after a restart) until its caller answers; its
   * deadline is armed only when it runs again.
   */
  hold(job: ActiveJob): void;
  /** Resolves when no job is held other than jobs waiting for input (those wait durably). */
  idle(): Promise<void>;
  /** Starts (true) or stops (false) dispatching queued jobs; stopping leaves them SUBMITTED. */
  dispatching(on: boolean): void;
  /** Appends events, reporting (not throwing) failures. */
  emit(events: EventInput | readonly EventInput[]): void;
}

const TERMINAL_ERROR_EVENT: Readonly<
  Partial<Record<JobState, 'job.failed' | 'job.canceled' | 'job.rejected'>>
> = {
  FAILED: RUNTIME_EVENTS.jobFailed,
  CANCELED: RUNTIME_EVENTS.jobCanceled,
  REJECTED: RUNTIME_EVENTS.jobRejected,
};

/** The job's state now (read after an await, where another path may have moved it). */
function inState(job: ActiveJob, state: JobState): boolean {
  return job.state === state;
}

/** Creates the job engine. */
export function createJobRunner(components: JobRunnerComponents): JobRunner {
  const { log, observer, logger, now } = components;
  const active = new Map<string, ActiveJob>();
  const keys = new Map<string, ActiveJob>();
  const queue: ActiveJob[] = [];
  const idleWaiters = new Set<() => void>();
  let running = 0;
  let dispatchOn = true;

  const report = (what: string, error: unknown): void => {
    logger.warn(
      { what, error: toPlexusError(error).message.slice(0, 200), event: 'runtime.append_failed' },
      'runtime.append_failed',
    );
  };

  const emit = (events: EventInput | readonly EventInput[]): void => {
    const list = Array.isArray(events) ? (events as readonly EventInput[]) : [events as EventInput];
    log.append(list).catch((error: unknown) => {
      report(list[0]?.type ?? 'event', error);
    });
  };

  /** Writes one event of a job, or holds it back while the job's events are held. */
  const write = (job: ActiveJob, event: EventInput): void => {
    if (job.held !== undefined) job.held.push(event);
    else emit(event);
  };

  /** Tells a caller's progress listener of `data` (RT-056); what it throws is logged. */
  const tell = (listener: (data: JsonValue) => void, data: JsonValue): void => {
    try {
      listener(data);
    } catch (error) {
      logger.warn(
        { error: toPlexusError(error).message.slice(0, 200), event: 'runtime.progress_listener_failed' },
        'runtime.progress_listener_failed',
      );
    }
  };

  /** Waits until both projections have seen `seq`. */
  const caughtUp = (seq: number): Promise<unknown> =>
    Promise.all([components.jobs.waitFor(seq), components.idempotency.waitFor(seq)]);

  const persist = async (job: ActiveJob, extra: readonly EventInput[] = []): Promise<void> => {
    if (!job.accepted && !(await job.acceptance)) {
      throw new PlexusError('UNAVAILABLE', `job ${job.id} was not accepted`);
    }
    const batch = [...takeHeld(job), ...extra];
    if (batch.length === 0) {
      if (!(await job.written)) throw new PlexusError('UNAVAILABLE', `job ${job.id} could not be recorded`);
      return;
    }
    try {
      const written = await log.append(batch);
      await caughtUp(written[written.length - 1]?.seq ?? 0);
      job.markWritten(true);
    } catch (error) {
      job.markWritten(false);
      throw toPlexusError(error);
    }
  };

  /** True when every held job waits for input (those outlive a stop: they are durable). */
  const quiet = (): boolean => {
    for (const job of active.values()) if (job.state !== 'INPUT_REQUIRED') return false;
    return true;
  };

  const wakeIdle = (): void => {
    if (idleWaiters.size === 0 || !quiet()) return;
    for (const wake of idleWaiters) wake();
    idleWaiters.clear();
  };

  const forget = (job: ActiveJob): void => {
    active.delete(job.id);
    if (keys.get(job.key) === job) keys.delete(job.key);
    wakeIdle();
  };

  /** Starts the job's deadline timer (at `deadlineAt`). */
  const arm = (job: ActiveJob): void => {
    const timeout = (): void => {
      const error = new PlexusError(
        'TIMEOUT',
        `job ${job.id} (${job.request.verb}) did not finish within its ${job.timeoutMs} ms deadline`,
        { details: { job: job.id, timeoutMs: job.timeoutMs } },
      );
      jobAbort(job).abort(error);
      finish(job, { state: 'FAILED', error, agent: components.nodeId });
    };
    job.timer = setTimeout(timeout, Math.max(0, job.deadlineAt - now()));
    job.timer.unref();
  };

  /**
   * The handler asked for input: the job leaves its running slot and its deadline stops
   * (the time left is kept); `job.input_required` is recorded (with any held events), then
   * synchronous callers waiting on the job are answered with its recorded state.
   */
  const pause = async (job: ActiveJob, input: InputRequired, agent: string, error: PlexusError) => {
    job.state = 'INPUT_REQUIRED';
    if (job.timer !== undefined) clearTimeout(job.timer);
    const leftMs = Math.max(0, job.deadlineAt - now());
    if (job.dispatched) running--;
    job.dispatched = false;
    pump();
    wakeIdle();
    const data: { -readonly [K in keyof JobInputRequiredData]?: JobInputRequiredData[K] } = {
      id: job.id,
      index: input.index,
      prompt: input.request.prompt,
    };
    if (input.request.schema !== undefined) data.schema = input.request.schema;
    try {
      await persist(job, [jobEvent(job, RUNTIME_EVENTS.jobInputRequired, data as JobInputRequiredData)]);
    } catch (cause) {
      // not recorded: the job cannot wait durably, so it fails (and frees its key)
      if (!inState(job, 'INPUT_REQUIRED')) return;
      finish(job, {
        state: 'FAILED',
        agent,
        error: new PlexusError(
          'UNAVAILABLE',
          `job ${job.id} could not record its wait for input: ${toPlexusError(cause).message}`,
          { cause },
        ),
      });
      return;
    }
    if (!inState(job, 'INPUT_REQUIRED')) return; // cancelled meanwhile
    // set once recorded: only then may it be answered (and waiters read it from the projection)
    job.waiting = { request: input.request, index: input.index, leftMs };
    const recorded = components.jobs.state().get(job.id)?.job;
    job.paused({
      state: 'INPUT_REQUIRED',
      agent,
      error,
      ...(recorded === undefined ? {} : { job: recorded }),
    });
  };

  const record = async (job: ActiveJob, outcome: JobOutcome): Promise<void> => {
    let final = outcome;
    if (!job.accepted) {
      job.markAccepted(false);
      forget(job);
      job.settle(outcome);
      return;
    }
    try {
      const terminal =
        outcome.state === 'COMPLETED'
          ? jobEvent(job, RUNTIME_EVENTS.jobCompleted, { id: job.id, outputs: outcome.outputs ?? null })
          : jobEvent(job, TERMINAL_ERROR_EVENT[outcome.state] ?? RUNTIME_EVENTS.jobFailed, {
              error: (outcome.error ?? new PlexusError('INTERNAL', 'no error')).toData(),
              id: job.id,
            });
      const extra = runPostEffects(
        components.postEffects,
        {
          id: job.id,
          verb: job.request.verb,
          state: outcome.state,
          ...(outcome.error ? { error: outcome.error.toData() } : {}),
        },
        job.request,
        (effect, error) => {
          logger.warn(
            {
              effect: effect.name,
              error: toPlexusError(error).message,
              event: 'runtime.post_effect_failed',
            },
            'runtime.post_effect_failed',
          );
        },
      );
      const span = observer.span(
        'runtime.post_effects',
        { job: job.id, events: extra.length + 1 },
        underJob(job),
      );
      const events = [...takeHeld(job), terminal, ...extra];
      // the store commit, a child span (the event log's own append)
      const commit = observer.span(
        STORE_COMMIT_SPAN,
        { events: events.length },
        span.traceparent === undefined ? undefined : { parent: span.traceparent },
      );
      let written;
      try {
        written = await log.append(events);
      } catch (error) {
        const failure = toPlexusError(error);
        commit.end(failure);
        span.end(failure);
        throw error;
      }
      commit.end();
      span.end();
      await caughtUp(written[written.length - 1]?.seq ?? 0);
      job.markWritten(true);
      const recorded = components.jobs.state().get(job.id)?.job;
      if (recorded !== undefined) final = { ...outcome, job: recorded };
    } catch (error) {
      job.markWritten(false);
      report('job outcome', error);
      final = {
        state: 'FAILED',
        agent: outcome.agent,
        error: new PlexusError(
          'UNAVAILABLE',
          `job ${job.id} finished ${outcome.state} but the event log could not record it: ${toPlexusError(error).message}`,
          { cause: error },
        ),
      };
    }
    observer.count('runtime.jobs_finished', { state: final.state });
    forget(job);
    job.settle(final);
  };

  const finish = (job: ActiveJob, outcome: JobOutcome): void => {
    if (isTerminalJobState(job.state)) return;
    job.state = outcome.state;
    if (job.timer !== undefined) clearTimeout(job.timer);
    const at = queue.indexOf(job);
    if (at >= 0) queue.splice(at, 1);
    if (job.dispatched) running--;
    pump();
    if (job.released) {
      forget(job);
      job.settle(outcome);
    } else void record(job, outcome);
  };

  /**
   * RT-060: the provider to fail over to when a capability job's remote agent could not be
   * reached and the request never left this node (`wasNeverSent`): the best other available
   * candidate not yet found unreachable, or `undefined`.
   */
  const failOverTarget = (job: ActiveJob, failed: string, error: PlexusError): Candidate | undefined => {
    if (job.resolution.kind !== 'capability' || !wasNeverSent(error)) return undefined;
    if (job.controller.signal.aborted || job.state !== 'WORKING') return undefined;
    const unreached = (job.unreached ??= new Set()).add(failed);
    const rest = job.resolution.candidates.filter((c) => !unreached.has(c.card.id));
    if (rest.length === 0) return undefined;
    try {
      return selectCandidate(rest, components.routeState);
    } catch {
      return undefined; // none of the others can take it: the first failure stands
    }
  };

  const dispatch = async (job: ActiveJob, next?: Candidate): Promise<void> => {
    let targets: readonly Candidate[];
    try {
      targets = runStep(
        observer,
        'route',
        { job: job.id, kind: job.resolution.kind },
        () =>
          job.resolution.kind === 'broadcast'
            ? job.resolution.candidates
            : [next ?? selectCandidate(job.resolution.candidates, components.routeState)],
        underJob(job),
      );
    } catch (error) {
      finish(job, { state: 'FAILED', error: toPlexusError(error), agent: components.nodeId });
      return;
    }
    const route: RouteKind =
      job.resolution.kind === 'broadcast'
        ? 'broadcast'
        : targets[0]?.card.origin === 'remote'
          ? 'remote'
          : 'local';
    if (job.resumed) {
      job.resumed = false; // `job.input_provided` already moved it to WORKING
    } else {
      const retry = job.state === 'WORKING';
      job.state = 'WORKING';
      job.attempts++;
      // Keys inserted in RFC 8785 order, so the log's canonical form needs no sorted copy.
      const started: { -readonly [K in keyof JobStartedData]?: JobStartedData[K] } = {
        agents: targets.map((t) => t.card.id),
        at: new Date().toISOString(),
        attempt: job.attempts,
        id: job.id,
      };
      if (retry) started.reason = job.retryReason ?? 'the job is run again';
      started.route = route;
      write(
        job,
        jobEvent(
          job,
          retry ? RUNTIME_EVENTS.jobRetried : RUNTIME_EVENTS.jobStarted,
          started as JobStartedData, // every required key is set above
        ),
      );
    }
    // the progress reports of this run told to the caller's listener, in order (RT-056)
    let told: Promise<void> = Promise.resolve();
    const executed: { -readonly [K in keyof ExecutedJob]: ExecutedJob[K] } = {
      id: job.id,
      request: job.request,
      principal: job.principal,
      deadlineAt: job.deadlineAt,
      attempt: job.attempts,
      inputs: job.inputs,
      mode: job.mode,
      ...(job.caller === undefined ? {} : { caller: job.caller }),
      progress: (data) => {
        if (job.state !== 'WORKING') return;
        const event = jobEvent(job, RUNTIME_EVENTS.jobProgress, { id: job.id, progress: data });
        const listener = job.caller?.progress;
        if (listener === undefined) {
          if (job.held === undefined) emit(event);
          else
            persist(job, [event]).catch((error: unknown) => {
              report('job progress', error);
            });
          return;
        }
        // RT-056: the caller's listener hears of the report once it is durable, in order
        const durable = job.held === undefined ? log.append(event) : persist(job, [event]);
        told = told.then(
          () =>
            durable.then(
              () => {
                tell(listener, data);
              },
              (error: unknown) => {
                report('job progress', error);
              },
            ),
          () => undefined,
        );
      },
    };
    const abort = jobAbort(job);
    const span = observer.span(
      EXECUTE_SPAN,
      {
        job: job.id,
        verb: job.request.verb,
        route,
        agents: targets.length,
        ...(job.request.traceparent === undefined ? {} : { traceparent: job.request.traceparent }),
      },
      underJob(job),
    );
    if (span.traceparent !== undefined) executed.traceparent = span.traceparent;
    const invocation = job.trace;
    // what a handler reports (`ctx.telemetry`) lands on the invocation span, with the seed's
    // names: its trace when tracing, and the LLM token meter either way
    if (invocation?.set !== undefined) executed.telemetry = (attributes) => invocation.set?.(attributes);
    const results = await Promise.all(
      targets.map((t) => runLegWith(components.executor, executed, t, abort)),
    );
    // the caller hears of every report before the job's end or pause is recorded (RT-056)
    if (job.caller?.progress !== undefined) await told;
    const first = results[0];
    if (route === 'broadcast') {
      span.end();
      finish(job, { state: 'COMPLETED', outputs: broadcastOutputs(results), agent: components.nodeId });
    } else if (first?.ok === false && first.input !== undefined && job.state === 'WORKING') {
      span.end();
      await pause(job, first.input, first.agent, first.error);
    } else if (first?.ok === true) {
      span.end();
      finish(job, { state: 'COMPLETED', outputs: first.data, agent: first.agent });
    } else {
      const error = first?.ok === false ? first.error : new PlexusError('INTERNAL', 'no agent ran the job');
      span.end(error);
      const other = first === undefined ? undefined : failOverTarget(job, first.agent, error);
      if (other !== undefined) {
        job.retryReason = `agent ${first?.agent ?? '?'} could not be reached and the request never left this node (${error.message}); failing over to agent ${other.card.id}`;
        await dispatch(job, other);
        return;
      }
      finish(job, { state: 'FAILED', error, agent: first?.agent ?? components.nodeId });
    }
  };

  const pump = (): void => {
    while (dispatchOn && running < components.concurrency && queue.length > 0) {
      const job = queue.shift();
      if (job === undefined || isTerminalJobState(job.state)) continue;
      running++;
      job.dispatched = true;
      dispatch(job).catch((error: unknown) => {
        finish(job, { state: 'FAILED', error: toPlexusError(error), agent: components.nodeId });
      });
    }
  };

  return {
    active,
    byKey: (key) => keys.get(key),
    reserve(job) {
      active.set(job.id, job);
      keys.set(job.key, job);
    },
    enqueue(job) {
      arm(job);
      queue.push(job);
      pump();
    },
    hold(job) {
      active.set(job.id, job);
      keys.set(job.key, job);
    },
    async provideInput(id, input, principal) {
      const job = active.get(id);
      const waiting = job?.waiting;
      if (job === undefined || job.state !== 'INPUT_REQUIRED' || waiting === undefined) {
        throw new PlexusError(
          'CONFLICT',
          `job ${id} is ${job?.state ?? 'not running'} here, not waiting for input`,
          { details: { job: id, ...(job === undefined ? {} : { state: job.state }) } },
        );
      }
      const { schema } = waiting.request;
      if (schema !== undefined) {
        const problems = components.executor.validator.validate(schema as JsonSchema, input);
        if (problems.length > 0) {
          throw new PlexusError(
            'INVALID_PARAMS',
            `the answer to job ${id} does not match the schema it asked for: ${summarizeProblems(problems)}`,
            { details: { job: id, ...problemsDetails(problems) } },
          );
        }
      }
      // taken now, so a second answer racing this one is refused
      job.state = 'WORKING';
      const data: { -readonly [K in keyof JobInputProvidedData]?: JobInputProvidedData[K] } = {
        id,
        index: waiting.index,
        input,
      };
      if (principal !== undefined) data.principal = principal;
      try {
        await persist(job, [jobEvent(job, RUNTIME_EVENTS.jobInputProvided, data as JobInputProvidedData)]);
      } catch (error) {
        if (inState(job, 'WORKING')) job.state = 'INPUT_REQUIRED';
        throw toPlexusError(error);
      }
      if (!inState(job, 'WORKING')) return; // cancelled meanwhile
      delete job.waiting; // rare: a job answered after a wait
      job.inputs.push(input);
      job.resumed = true;
      job.deadlineAt = now() + waiting.leftMs;
      arm(job);
      queue.push(job);
      pump();
    },
    abandon(job, error) {
      job.markAccepted(false);
      job.markWritten(false);
      forget(job);
      job.settle({ state: 'FAILED', error, agent: components.nodeId });
    },
    cancel(id, reason) {
      const job = active.get(id);
      if (job === undefined) return false;
      const error = new PlexusError('CANCELLED', `job ${id} was cancelled: ${reason}`, {
        details: { job: id },
      });
      jobAbort(job).abort(error);
      finish(job, { state: 'CANCELED', error, agent: components.nodeId });
      return true;
    },
    release(id, reason) {
      const job = active.get(id);
      if (job === undefined || !job.accepted) return false;
      job.released = true;
      const error = new PlexusError(
        'UNAVAILABLE',
        `job ${id} was left unfinished: ${reason}; it is run again when the node next starts`,
        { details: { job: id } },
      );
      jobAbort(job).abort(error);
      finish(job, { state: 'FAILED', error, agent: components.nodeId });
      return true;
    },
    persist: (job) => persist(job),
    dispatching(on) {
      dispatchOn = on;
      if (on) pump();
    },
    idle() {
      if (quiet()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.add(resolve));
    },
    emit,
  };
}
