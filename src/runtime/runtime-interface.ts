/**
 * The public face of the runtime: what `createRuntime` takes and what the transports layer
 * calls: `invoke` and `submit`, `runtime.agents`, `runtime.jobs`, the lifecycle.
 */
import type { Envelope } from '../core/envelope.js';
import type { Job } from '../core/records/job.js';
import type { EnvelopeVerifier } from '../security/envelope-verifier.js';
import type { EventLog, SignalOptions } from '../store/event-log.js';
import type { ProjectionCheck } from '../store/projection-verify.js';
import type { ProjectionView } from '../store/projection-view.js';
import type { SnapshotStore } from '../store/projection-snapshots.js';
import type { InvocationContext } from './context.js';
import type { IdempotencyState } from './pipeline/idempotency.js';
import type { JobsState } from './jobs/jobs-projection.js';
import type { Observer } from './observer.js';
import type { Logger } from '../core/logger.js';
import type { Authorizer } from './pipeline/authorize.js';
import type { EraWarning } from './pipeline/era.js';
import type { PostEffect, PreEffect } from './pipeline/effects.js';
import type { AgentDefinition } from './agents/agent.js';
import type { RegistrationCheck } from './agents/registration-check.js';
import type { Registry } from './agents/registry.js';
import type { RuntimeAgents } from './agents/runtime-agents.js';
import type { RuntimeJobs } from './jobs/runtime-jobs.js';
import type { RemoteInvoker } from './routing/remote.js';
import type { SupervisorSpec } from './supervision/supervision-spec.js';
import type { BudgetLedger } from './effects/budget-ledger.js';
import type { EffectsInit } from './effects/runtime-effects.js';
import type { LedgerState } from './effects/ledger-projection.js';

/** Injected dependencies of the runtime. */
export interface RuntimeComponents {
  /** The node's event log; its owner starts it before, and stops it after, the runtime. */
  readonly log: EventLog;
  /** The registry; by default the runtime creates one over `log` (and starts/stops it). */
  readonly registry?: Registry;
  /** Where spans and counters go. @default noopObserver */
  readonly observer?: Observer;
  /**
   * Where notable happenings are logged, each with its name as the `event` field: crashed
   * handlers and contained rejections (with their stacks) as errors, failures of the runtime's
   * own work (`*_failed`, `*_error`) as warnings, the rest (restarts, requeued jobs) as info.
   * @default silentLogger
   */
  readonly logger?: Logger;
  /** Reaches agents on other nodes; without it, remote targets fail `PEER_UNAVAILABLE`. */
  readonly remote?: RemoteInvoker;
  /** Verifies signed envelopes (D3); without it, signed requests are refused. */
  readonly verifier?: EnvelopeVerifier;
  /** Policies run by the authorise step, in order. @default [] */
  readonly authorizers?: readonly Authorizer[];
  /** Hooks run before dispatch. @default [auditPreEffect] */
  readonly preEffects?: readonly PreEffect[];
  /** Hooks run when a job finishes. @default [] */
  readonly postEffects?: readonly PostEffect[];
  /** Snapshot store for the runtime's projections. @default none (rebuilt from the log) */
  readonly snapshots?: SnapshotStore;
  /** The clock, Unix ms (deadlines in envelopes, idempotency windows, restart periods). @default Date.now */
  readonly now?: () => number;
}

/** Options of the runtime. */
export interface RuntimeInit extends RuntimeComponents {
  /** The node's id: `from` of answers given by the node itself (errors, broadcasts). @default 'plexus' */
  readonly nodeId?: string;
  /** Agents registered (and supervised) at `start()`, before recovery runs. @default [] */
  readonly agents?: readonly AgentDefinition[];
  /**
   * Checks every local agent must pass before it is registered, at `start()` and by
   * `agents.add` (the node passes the MCP face's tool-name check, MCP-52); one that throws
   * refuses the agent, nothing of it registered. @default []
   */
  readonly registrationChecks?: readonly RegistrationCheck[];
  /**
   * A supervision tree over some of `agents` (seed 002 §11.3; docs/supervision.md): the
   * workers are agent ids. A crash or hang of a named agent is handled by its supervisor's
   * strategy and intensity, escalating up the tree; when the root gives up its agents answer
   * `UNAVAILABLE`. Agents the tree does not name keep their own restart policy (one-for-one).
   * @default none
   * @throws PlexusError `INVALID_PARAMS` (from `createRuntime`) for a bad tree or a worker id
   *   that is not one of `agents`.
   */
  readonly supervision?: SupervisorSpec;
  /**
   * The effect handlers run around local verb handlers (seed 002 §3.3; docs/effects.md):
   * budgets of the `charges` effect, more handlers and resource readers. `audits` and
   * `emits` are always handled. @default no budgets (charges not taken)
   */
  readonly effects?: EffectsInit;
  /** Refuse requests without an authenticated caller (`UNAUTHORIZED`). @default false */
  readonly requireAuth?: boolean;
  /** Refuse unsigned requests (`UNAUTHORIZED`). @default false */
  readonly requireSignatures?: boolean;
  /** Timeout of a request that names none, ms. @default 30000 */
  readonly defaultTimeoutMs?: number;
  /** Longer requested timeouts are cut to this, ms. @default 3600000 */
  readonly maxTimeoutMs?: number;
  /** How long a finished job answers duplicates, ms (at least the job's timeout). @default 600000 */
  readonly idempotencyWindowMs?: number;
  /** Most jobs running at once; more wait SUBMITTED in FIFO order. @default 256 */
  readonly concurrency?: number;
  /** Check handler outputs against the declared output schema. @default true */
  readonly validateOutput?: boolean;
  /**
   * Save the jobs and idempotency snapshots after this many events (0: at stop only). Both
   * grow with every call, so a periodic snapshot costs more each time.
   * @default 0
   */
  readonly snapshotEvery?: number;
  /**
   * Finished jobs kept in memory (the most recently finished; unfinished jobs are always
   * kept). Older ones stay in the log: `jobs.get`, `jobs.answer`, `jobs.events` and duplicates inside
   * the idempotency window read them back from it. Keep the default on a node checked with
   * `plexus replay --verify`, which rebuilds the jobs projection with it.
   * @default 10000
   */
  readonly retainFinishedJobs?: number;
  /**
   * Idempotency keys kept in memory (the most recently submitted; a running job's key always
   * stays). An older key still inside its window is looked up in the log's index of
   * `job.submitted` by key, so a duplicate still runs once (A2A-23). Keep the default on a node
   * checked with `plexus replay --verify`.
   * @default 10000
   */
  readonly retainIdempotencyKeys?: number;
  /** Contain stray rejections from handlers (a process-wide listener while started). @default true */
  readonly containRejections?: boolean;
}

/** The answer to a synchronous invocation. */
export interface Invocation {
  /** The answer: kind `response` (data = output) or `error` (data = ErrorData). */
  readonly envelope: Envelope;
  /** The job, when the request got that far (absent for requests refused before a job existed). */
  readonly job?: Job;
  /** True when the request was a duplicate answered by an earlier job (D5). */
  readonly duplicate: boolean;
  /**
   * Deprecation warnings of the era that answered (seed 002 §10.3); absent when there are
   * none. The answer envelope carries the same list in its `_x_warnings` extension.
   */
  readonly warnings?: readonly EraWarning[];
}

/** The answer to an asynchronous submission. */
export interface Submission {
  /** The job (SUBMITTED when new; the earlier job, in whatever state, for a duplicate). */
  readonly job: Job;
  readonly duplicate: boolean;
  /** Deprecation warnings of the era the job was routed to (seed 002 §10.3); absent when none. */
  readonly warnings?: readonly EraWarning[];
}

/** Options of {@link Runtime.stop}. */
export interface StopOptions {
  /** How long to wait for running and queued jobs before cancelling them, ms. @default 10000 */
  readonly drainMs?: number;
}

/** The runtime: the invoker pipeline, the router, jobs, idempotency and supervision. */
export interface Runtime {
  /** The agents: the registry, verb aliases, adding and removing hosted agents. */
  readonly agents: RuntimeAgents;
  /** The jobs: read, list, wait for, cancel and follow them. */
  readonly jobs: RuntimeJobs;
  /** The live projections (for `plexus replay --verify` and diagnostics). */
  readonly views: {
    readonly jobs: ProjectionView<JobsState>;
    readonly idempotency: ProjectionView<IdempotencyState>;
    readonly ledger: ProjectionView<LedgerState>;
  };
  /** The budget ledger of the `charges` effect (a projection of the log; micro-units, D12). */
  readonly ledger: BudgetLedger;
  /**
   * Rebuilds the projections from the log, registers the agents of `init.agents`, recovers
   * unfinished jobs, then accepts requests. Idempotent.
   * @throws PlexusError from the log (`UNAVAILABLE` when it is not started) or an agent factory.
   */
  start(options?: SignalOptions): Promise<void>;
  /**
   * Stops accepting requests (`UNAVAILABLE`), waits up to `drainMs` for unfinished jobs,
   * cancels the rest, and stops following the log. Safe to call twice.
   */
  stop(options?: StopOptions): Promise<void>;
  /**
   * Runs a request synchronously through the whole pipeline and answers with an envelope.
   * Never rejects: every failure is an `error` envelope. Aborting `signal` cancels the job
   * (a duplicate only stops waiting).
   */
  invoke(envelope: Envelope, context: InvocationContext, options?: SignalOptions): Promise<Invocation>;
  /**
   * Runs the pipeline up to the job's creation and returns the job at once (async mode).
   * @throws PlexusError why the request was refused (the pipeline's codes: `INVALID_REQUEST`,
   *   `INVALID_PARAMS`, `UNKNOWN_VERB`, `NOT_FOUND`, `SIGNATURE_*`, `UNAUTHORIZED`,
   *   `FORBIDDEN`, `CONFLICT`, `TIMEOUT`, `UNAVAILABLE`, …).
   */
  submit(envelope: Envelope, context: InvocationContext, options?: SignalOptions): Promise<Submission>;
  /** Rebuilds every runtime projection from the log and compares it with the live one. */
  verify(options?: SignalOptions): Promise<readonly ProjectionCheck[]>;
}
