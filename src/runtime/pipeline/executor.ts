/**
 * Pipeline step `execute`: running one job on the agent(s) the router chose — a local
 * handler under supervision, or a remote agent through the `RemoteInvoker` — raced against
 * the job's signal (deadline, cancellation, node stop).
 *
 * A handler that throws a PlexusError fails its job with that error. Anything else thrown
 * (or a stray rejection from inside the handler) is a crash: the job fails `INTERNAL` and
 * the agent's supervisor re-creates the instance. A handler that hangs is left behind when
 * the signal aborts; its job fails `TIMEOUT` (or is `CANCELED`) on time.
 */
import { cleanTracestate } from '../../core/tracestate.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError, type ErrorData } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { summarizeProblems, problemsDetails, type SchemaValidator } from '../../core/schema-validator.js';
import { assertRecordable } from '../../core/recordable.js';
import { runContained } from '../supervision/containment.js';
import { callerOutputProblems } from './output-problems.js';
import type { HandlerContext, InvocationMode, Principal } from '../context.js';
import { asError } from '../jobs/deadline.js';
import { InputRequired, inputRequester } from '../jobs/input-request.js';
import { sampler, type CallerChannel } from '../jobs/caller-channel.js';
import { abortErrorOf, raceAbortSource, signalSource, type AbortSource } from '../jobs/lazy-abort.js';
import type { Observer, ObserverAttributes } from '../observer.js';
import { telemetryAttributes } from './telemetry.js';
import type { Logger } from '../../core/logger.js';
import type { RemoteInvoker } from '../routing/remote.js';
import { isFallbackAnswer } from '../routing/fallback-answers.js';
import type { Candidate } from '../routing/router.js';
import type { EffectRunner } from '../effects/effect-runner.js';
import { createEffectScope, type EffectScope } from '../effects/effect-scope.js';
import type { AgentSupervisor, CrashOrigin } from '../supervision/supervisor.js';
import type { AgentOutcomes } from '../agents/agent-outcomes.js';

/** The job as the executor sees it. */
export interface ExecutedJob {
  readonly id: string;
  readonly request: Envelope;
  readonly principal: Principal | undefined;
  /** Unix ms. */
  readonly deadlineAt: number;
  readonly attempt: number;
  /** The caller's answers to the handler's `requestInput` calls so far, in order. */
  readonly inputs?: readonly JsonValue[];
  /** The live channel to the caller, when its face gave one (`ctx.sample`). */
  readonly caller?: CallerChannel;
  /** Reports progress of the running job. */
  progress(data: JsonValue): void;
  /** Sync or async: a remote leg of an async job has the far job's progress forwarded. @default 'sync' */
  readonly mode?: InvocationMode;
  /** The `runtime.execute` span's `traceparent`, when the node traces: forwarded hops are its children. */
  readonly traceparent?: string;
  /** Sets attributes on the invocation's span, when the node traces. */
  readonly telemetry?: (attributes: ObserverAttributes) => void;
}

/** What the executor needs from the runtime. */
export interface ExecutorComponents {
  readonly supervisors: ReadonlyMap<string, AgentSupervisor>;
  readonly remote: RemoteInvoker | undefined;
  /** Running remote calls per remote agent id (the router's load for remote agents). */
  readonly remoteLoad: Map<string, number>;
  readonly observer: Observer;
  /** Where crashed handlers and contained rejections are logged (with their stacks). */
  readonly logger: Logger;
  readonly validator: SchemaValidator;
  /** Check outputs against the capability's output schema. */
  readonly validateOutput: boolean;
  /** Runs local legs between their verb's declared effects (docs/effects.md). @default none */
  readonly effects?: EffectRunner;
  /** Where each leg's outcome and duration is recorded for the router's ranking (MESH-44). @default none */
  readonly outcomes?: Pick<AgentOutcomes, 'record'>;
}

/** The result of one agent's part of a job. */
export type LegResult =
  | { readonly agent: string; readonly ok: true; readonly data: JsonValue }
  | {
      readonly agent: string;
      readonly ok: false;
      readonly error: PlexusError;
      /** Set when the handler asked for input (the job pauses rather than fails). */
      readonly input?: InputRequired;
    };

function checkOutput(components: ExecutorComponents, candidate: Candidate, value: unknown): JsonValue {
  const output = value === undefined ? null : value;
  try {
    // What the log can record (lone surrogates too): an output it refuses would lose the job's events.
    assertRecordable(output);
  } catch (cause) {
    throw new PlexusError(
      'INTERNAL',
      `agent ${candidate.card.id} returned a value for ${candidate.capability.verb} that is not JSON: ${toPlexusError(cause).message}`,
      { cause },
    );
  }
  if (components.validateOutput) {
    const found = components.validator.validate(candidate.capability.output, output);
    if (found.length > 0) {
      const problems = callerOutputProblems(output as JsonValue, found); // no internal names
      throw new PlexusError(
        'INTERNAL',
        `agent ${candidate.card.id} returned an output for ${candidate.capability.verb} that does not match its declared output schema: ${summarizeProblems(problems)}`,
        { details: problemsDetails(problems) },
      );
    }
  }
  return output as JsonValue;
}

/** A thrown value's stack trace for the node's log (its text when it has none), at most 8 KB. */
function stackOf(thrown: unknown): string {
  const text =
    thrown instanceof Error ? (thrown.stack ?? `${thrown.name}: ${thrown.message}`) : String(thrown);
  return text.slice(0, 8192);
}

/** The span a handler of `job` runs in: the execute span when tracing, else the request's. */
function spanOf(job: ExecutedJob): string | undefined {
  return job.traceparent ?? job.request.traceparent;
}

/** The job a failure happened in, for the supervision events (made only on a failure). */
function originOf(job: ExecutedJob): CrashOrigin {
  return {
    job: job.id,
    ...(job.request.traceparent === undefined ? {} : { traceparent: job.request.traceparent }),
  };
}

async function runLocal(
  components: ExecutorComponents,
  job: ExecutedJob,
  candidate: Candidate,
  abort: AbortSource,
  effects?: EffectScope,
): Promise<LegResult> {
  const agent = candidate.card.id;
  const supervisor = components.supervisors.get(agent);
  if (supervisor === undefined) {
    return {
      agent,
      ok: false,
      error: new PlexusError('UNAVAILABLE', `agent ${agent} is registered but has no handler on this node`),
    };
  }
  let lease;
  try {
    lease = supervisor.ready() ?? (await raceAbortSource(supervisor.acquire(), abort, `job ${job.id}`));
  } catch (error) {
    return { agent, ok: false, error: toPlexusError(error) };
  }
  const verb = candidate.capability.verb;
  const handler = lease.handlers[verb];
  const scope =
    effects ??
    createEffectScope({
      verb,
      agentId: agent,
      declared: {},
      envelope: job.request,
      principal: job.principal,
      signal: () => abort.signal,
    });
  let joined: AbortSignal | undefined;
  const traceparent = spanOf(job);
  const context: HandlerContext = {
    // read lazily: most handlers never look at their signal, so it is not made for them
    get signal(): AbortSignal {
      // a supervision tree may stop the instance under the job: its signal aborts too
      if (lease.signal === undefined) return abort.signal;
      return (joined ??= AbortSignal.any([abort.signal, lease.signal]));
    },
    jobId: job.id,
    envelope: job.request,
    agentId: agent,
    caller: job.request.from,
    ...(job.principal === undefined ? {} : { principal: job.principal }),
    deadline: job.deadlineAt,
    attempt: job.attempt,
    ...(traceparent === undefined ? {} : { traceparent }),
    progress: (data) => {
      job.progress(data);
    },
    // what the verb declared it reads and emits (without an effect runner: nothing)
    read: scope.read,
    emit: scope.emit,
    telemetry: (report) => {
      const attributes = telemetryAttributes(report); // checked even when not tracing
      job.telemetry?.(attributes);
    },
    requestInput: inputRequester(job.inputs ?? []),
    sample: (request) =>
      sampler(job.caller, job.id, () => ({ signal: context.signal, deadline: job.deadlineAt }))(request),
  };
  const onRejection = (reason: unknown): void => {
    components.logger.error(
      {
        agent,
        job: job.id,
        reason: toPlexusError(reason).message.slice(0, 200),
        stack: stackOf(reason),
        event: 'runtime.contained_rejection',
      },
      'a handler left a promise rejection behind; its agent is restarted',
    );
    supervisor.crashed(lease, reason, originOf(job));
  };
  supervisor.track(1);
  try {
    const work = runContained({ agentId: agent, jobId: job.id, onRejection }, () => {
      try {
        if (handler === undefined)
          throw new PlexusError('INTERNAL', `agent ${agent} has no handler for ${verb}`);
        return Promise.resolve(handler(job.request.data, context));
      } catch (error) {
        return Promise.reject(asError(error));
      }
    });
    const value = await raceAbortSource(
      lease.stopped === undefined ? work : Promise.race([work, lease.stopped]),
      abort,
      `job ${job.id}`,
    );
    return { agent, ok: true, data: checkOutput(components, candidate, value) };
  } catch (error) {
    if (abort.aborted) {
      const aborted = abortErrorOf(abort, `job ${job.id}`);
      // still running at the deadline (not a handler's own error): a hang, for a supervision tree
      if (aborted.code === 'TIMEOUT' && error instanceof PlexusError && error.code === 'TIMEOUT')
        supervisor.hung(
          lease,
          new PlexusError(
            'TIMEOUT',
            `the handler of ${verb} was still running at the deadline of job ${job.id}`,
          ),
          originOf(job),
        );
      return { agent, ok: false, error: aborted };
    }
    if (error instanceof PlexusError) return { agent, ok: false, error };
    if (error instanceof InputRequired)
      return { agent, ok: false, error: waitingError(job, error), input: error };
    supervisor.crashed(lease, error, originOf(job));
    // the stack goes to the node's log, never to the caller
    components.logger.error(
      {
        agent,
        verb,
        job: job.id,
        reason: toPlexusError(error).message.slice(0, 200),
        stack: stackOf(error),
        event: 'runtime.handler_crashed',
      },
      'a handler crashed; its caller got INTERNAL',
    );
    return {
      agent,
      ok: false,
      error: new PlexusError(
        'INTERNAL',
        `the handler of ${verb} on agent ${agent} crashed: ${toPlexusError(error).message}`,
        { cause: error },
      ),
    };
  } finally {
    supervisor.track(-1);
  }
}

/** The error a job waiting for input answers its synchronous callers with. */
function waitingError(job: ExecutedJob, input: InputRequired): PlexusError {
  return new PlexusError(
    'CONFLICT',
    `job ${job.id} (${job.request.verb}) waits for input: ${input.request.prompt}; answer it with an A2A message naming the task ${job.id}, or runtime.jobs.provideInput`,
    { details: { job: job.id, state: 'INPUT_REQUIRED', input: input.request as unknown as JsonValue } },
  );
}

function remoteError(card: AgentCard, data: JsonValue): PlexusError {
  if (isJsonObject(data) && typeof data['code'] === 'string' && typeof data['message'] === 'string') {
    return PlexusError.fromData({
      code: data['code'] as ErrorData['code'],
      message: data['message'],
      retryable: data['retryable'] === true,
      ...(isJsonObject(data['details']) ? { details: data['details'] } : {}),
    });
  }
  return new PlexusError(
    'INTERNAL',
    `remote agent ${card.id} answered with an error without code and message`,
  );
}

async function runRemote(
  components: ExecutorComponents,
  job: ExecutedJob,
  candidate: Candidate,
  abort: AbortSource,
): Promise<LegResult> {
  const { card } = candidate;
  const agent = card.id;
  if (components.remote === undefined) {
    return {
      agent,
      ok: false,
      error: new PlexusError(
        'PEER_UNAVAILABLE',
        `agent ${agent} is on another node and no transport is configured to reach it`,
      ),
    };
  }
  // The transport signs what it forwards with the node's key; the caller's block is not reused.
  const forwarded: { -readonly [K in keyof Envelope]: Envelope[K] } = { ...job.request, to: agent };
  // traced: the hop is a child of this node's execute span (same trace id as the request's)
  if (job.traceparent !== undefined) forwarded.traceparent = job.traceparent;
  // OBS-45: only a well-formed tracestate goes on (a malformed one is dropped, never an error)
  const tracestate = cleanTracestate(forwarded.tracestate);
  if (tracestate === undefined) delete forwarded.tracestate;
  else forwarded.tracestate = tracestate;
  delete forwarded.signature;
  components.remoteLoad.set(agent, (components.remoteLoad.get(agent) ?? 0) + 1);
  try {
    const answer = await raceAbortSource(
      components.remote.invoke(card, forwarded, abort.signal, {
        jobId: job.id,
        ...(job.principal === undefined ? {} : { principal: job.principal }),
        // someone may watch an async job: the far handler's progress becomes its progress
        ...(job.mode === 'async'
          ? {
              progress: (data: JsonValue) => {
                job.progress(data);
              },
            }
          : {}),
      }),
      abort,
      `job ${job.id}`,
    );
    if (answer.kind === 'response') {
      // A fallback answer (stale from the cache, or a queued receipt) wraps the output: not checked.
      if (isFallbackAnswer(answer)) return { agent, ok: true, data: answer.data };
      return { agent, ok: true, data: checkOutput(components, candidate, answer.data) };
    }
    if (answer.kind === 'error') return { agent, ok: false, error: remoteError(card, answer.data) };
    return {
      agent,
      ok: false,
      error: new PlexusError(
        'INTERNAL',
        `remote agent ${agent} answered with an envelope of kind ${answer.kind}`,
      ),
    };
  } catch (error) {
    if (abort.aborted) return { agent, ok: false, error: abortErrorOf(abort, `job ${job.id}`) };
    if (error instanceof PlexusError) return { agent, ok: false, error };
    return {
      agent,
      ok: false,
      error: new PlexusError(
        'PEER_UNAVAILABLE',
        `forwarding to agent ${agent} failed: ${toPlexusError(error).message}`,
        {
          cause: error,
        },
      ),
    };
  } finally {
    const left = (components.remoteLoad.get(agent) ?? 1) - 1;
    if (left <= 0) components.remoteLoad.delete(agent);
    else components.remoteLoad.set(agent, left);
  }
}

/** Runs the job on one agent (local or remote). Never rejects. */
export function runLeg(
  components: ExecutorComponents,
  job: ExecutedJob,
  candidate: Candidate,
  signal: AbortSignal,
): Promise<LegResult> {
  return runLegWith(components, job, candidate, signalSource(signal));
}

/** {@link runLeg} raced against an {@link AbortSource} (the engine's lazy job abort). Never rejects. */
export function runLegWith(
  components: ExecutorComponents,
  job: ExecutedJob,
  candidate: Candidate,
  abort: AbortSource,
): Promise<LegResult> {
  const { outcomes } = components;
  if (outcomes === undefined) return runLegOnce(components, job, candidate, abort);
  const started = performance.now();
  return runLegOnce(components, job, candidate, abort).then((result) => {
    // a leg that paused for the caller's input has no outcome yet
    if (result.ok || result.input === undefined) {
      outcomes.record(candidate.card, result.ok ? undefined : result.error.code, performance.now() - started);
    }
    return result;
  });
}

function runLegOnce(
  components: ExecutorComponents,
  job: ExecutedJob,
  candidate: Candidate,
  abort: AbortSource,
): Promise<LegResult> {
  if (candidate.card.origin === 'remote') return runRemote(components, job, candidate, abort);
  const { effects } = components;
  if (effects === undefined) return runLocal(components, job, candidate, abort);
  return effects.run(
    {
      jobId: job.id,
      attempt: job.attempt,
      agentId: candidate.card.id,
      verb: candidate.capability.verb,
      envelope: job.request,
      principal: job.principal,
      signal: () => abort.signal,
      ...(job.traceparent === undefined ? {} : { traceparent: job.traceparent }),
    },
    (scope) => runLocal(components, job, candidate, abort, scope),
  );
}

/**
 * The answer of a broadcast: `{results: [...]}`, one entry per agent sorted by id —
 * `{agent, ok: true, data}` or `{agent, ok: false, error: ErrorData}`.
 */
export function broadcastOutputs(results: readonly LegResult[]): JsonObject {
  const sorted = [...results].sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
  return {
    results: sorted.map((r) =>
      r.ok
        ? { agent: r.agent, ok: true, data: r.data }
        : { agent: r.agent, ok: false, error: r.error.toData() as unknown as JsonValue },
    ),
  };
}
