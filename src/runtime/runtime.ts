/**
 * `createRuntime`: assembles the registry, the projections of jobs and idempotency keys,
 * the supervisors of local agents, the job engine and the invoker pipeline over one event
 * log, and gives the transports layer its API (see `Runtime`).
 */
import type { AgentOfferings } from './agents/agent-offerings.js';
import type { Envelope } from '../core/envelope.js';
import { PlexusError, toPlexusError } from '../core/errors.js';
import { assertRecordable } from '../core/recordable.js';
import type { AgentCard } from '../core/records/agent-card.js';
import { isTerminalJobState, type Job } from '../core/records/job.js';
import { schemaValidator } from '../core/schema-validator.js';
import { startable } from '../core/startable.js';
import type { SignalOptions } from '../store/event-log.js';
import { projectionView } from '../store/projection-view.js';
import { verifyProjectionView } from '../store/projection-verify.js';
import type { AgentDefinition } from './agents/agent.js';
import { holdContainment } from './supervision/containment.js';
import type { InvocationContext } from './context.js';
import { DEFAULT_MAX_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, raceAbort } from './jobs/deadline.js';
import { idempotencyProjectionWith } from './pipeline/idempotency.js';
import { readJobEvents, watchJobEvents, type JobEvent, type JobEventsOptions } from './jobs/job-events.js';
import type { JobOutcome } from './jobs/active-job.js';
import { createJobRunner } from './jobs/job-runner.js';
import {
  encodeEntry,
  encodeOutcome,
  encodeRefusal,
  requestOfEntry,
  warningsMember,
  withAnswerWarnings,
} from './pipeline/answers.js';
import { jobEntryFromLog, jobsProjectionWith, type JobEntry } from './jobs/jobs-projection.js';
import { listJobs } from './jobs/job-listing.js';
import { accept, type InvokerComponents } from './pipeline/invoker.js';
import { noopObserver, type Observer } from './observer.js';
import { silentLogger } from '../core/logger.js';
import { auditPreEffect } from './pipeline/effects.js';
import { planRecovery, recover } from './jobs/recovery.js';
import { createRegistry, type Registry } from './agents/registry.js';
import type { RouteState } from './routing/router.js';
import type { Invocation, Runtime, RuntimeInit, StopOptions, Submission } from './runtime-interface.js';
import type { RuntimeAgents } from './agents/runtime-agents.js';
import { discoveryPort } from './agents/capability-discovery.js';
import { agentOutcomes } from './agents/agent-outcomes.js';
import { peerCardsPort } from './agents/peer-cards.js';
import type { RuntimeJobs } from './jobs/runtime-jobs.js';
import { createSupervisor, type AgentSupervisor } from './supervision/supervisor.js';
import { createAgentTree, type AgentTree } from './supervision/agent-tree.js';
import { checkAgentTree } from './supervision/agent-tree-check.js';
import { runtimeEffects } from './effects/runtime-effects.js';
import { isSyncDelivery } from './routing/delivery.js';
import { verbAliases } from './agents/verb-aliases.js';
import { INVOCATION_SPAN } from '../observability/span-names.js';
import { ATTR_CACHE_HIT } from '../observability/tracing/span-attributes.js';
import { INTERNAL_FACE, isTenantBound } from './pipeline/tenancy.js';
import type { ObserverEndAttributes, ObserverSpan } from './observer.js';

const NEVER = new AbortController().signal;

/**
 * Starts the {@link INVOCATION_SPAN} of a request: its verb and the tenant it acts for (the
 * principal's when tenancy binds it, else the envelope's; see `pipeline/tenancy.ts`).
 */
function invocationSpan(
  observer: Observer,
  envelope: Envelope,
  context: InvocationContext,
  mode: 'sync' | 'async',
): ObserverSpan {
  const { principal } = context;
  const tenant =
    context.face !== INTERNAL_FACE && isTenantBound(principal) ? principal.tenantId : envelope.tenantId;
  const attributes: Record<string, string> = { verb: envelope.verb, face: context.face, mode };
  if (tenant !== undefined) attributes['tenant'] = tenant;
  // for the invocation's log line (docs/observability.md, Logs): its trace and user; the
  // tracer leaves these two out of exported spans (user ids are personal data)
  if (envelope.traceparent !== undefined) attributes['traceparent'] = envelope.traceparent;
  if (envelope.userId !== undefined) attributes['user'] = envelope.userId;
  const parent = envelope.traceparent; // the face's span: the log's trace is the exported one
  if (parent === undefined) return observer.span(INVOCATION_SPAN, attributes);
  const { tracestate } = envelope; // OBS-45: kept in the span context of the invocation's spans
  return observer.span(INVOCATION_SPAN, attributes, {
    parent,
    ...(tracestate === undefined ? {} : { tracestate }),
  });
}

/**
 * The end attributes of an invocation's span: `effects`, the declared effects of the verb
 * the answering agent ran (`effect:resource`), when it completed; `cache_hit`, whether the
 * answer was an earlier identical request's (idempotency) rather than a run of its own.
 */
function invocationEnd(
  registry: Pick<Registry, 'verbSpec'>,
  verb: string,
  outcome: JobOutcome | undefined,
  cacheHit: boolean,
): ObserverEndAttributes {
  const spec =
    outcome?.state === 'COMPLETED' && !cacheHit ? registry.verbSpec(outcome.agent, verb) : undefined;
  const effects =
    spec === undefined
      ? []
      : Object.entries(spec.effects).flatMap(([effect, resources]) =>
          resources.map((resource) => `${effect}:${resource}`),
        );
  return { cache_hit: cacheHit, effects };
}

/** Marks whether the answer was a stored one (an idempotent duplicate), when the span traces. */
function cacheHit(span: ObserverSpan, hit: boolean): void {
  if (span.traceparent !== undefined) span.set?.({ [ATTR_CACHE_HIT]: hit });
}

/**
 * Creates a runtime over a started event log.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option.
 * @example
 * const log = memoryEventLog(); await log.start();
 * const runtime = createRuntime({ log, agents: [echo] });
 * await runtime.start();
 * const { envelope } = await runtime.invoke(request, { face: 'internal' });
 */
export function createRuntime(init: RuntimeInit): Runtime {
  const { log } = init;
  const observer = init.observer ?? noopObserver;
  const logger = init.logger ?? silentLogger;
  const now = init.now ?? Date.now;
  const nodeId = init.nodeId ?? 'plexus';
  const concurrency = init.concurrency ?? 256;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `concurrency must be a whole number ≥ 1, got ${String(concurrency)}`,
    );
  }
  const supervision =
    init.supervision === undefined
      ? undefined
      : checkAgentTree(
          init.supervision,
          (init.agents ?? []).map((a) => a.card.id),
        );
  let agentTree: AgentTree | undefined;
  const ownsRegistry = init.registry === undefined;
  const snapshots = init.snapshots === undefined ? {} : { snapshots: init.snapshots };
  const registry = init.registry ?? createRegistry({ log, ...snapshots });
  // Jobs and idempotency grow with every call: a periodic snapshot canonicalises the whole
  // state on the hot path (quadratic over a node's life), so by default they are saved at
  // stop only and rebuilt from the log after a crash (Perf-009).
  const hot = { ...snapshots, snapshotEvery: init.snapshotEvery ?? 0 };
  const jobsProjection = jobsProjectionWith(
    init.retainFinishedJobs === undefined ? {} : { retainFinishedJobs: init.retainFinishedJobs },
  );
  const jobs = projectionView({ log, projection: jobsProjection, ...hot });
  const idempotencyProjection = idempotencyProjectionWith(
    init.retainIdempotencyKeys === undefined ? {} : { retainKeys: init.retainIdempotencyKeys },
  );
  const idempotency = projectionView({ log, projection: idempotencyProjection, ...hot });
  const supervisors = new Map<string, AgentSupervisor>();
  const remoteLoad = new Map<string, number>();
  // MESH-43/44: what mesh peers claim (and the latency measured to them), what this node observed
  const peers = peerCardsPort();
  const outcomes = agentOutcomes(peers);
  let releaseContainment: (() => void) | undefined;

  const routeState: RouteState = {
    load: (card) =>
      card.origin === 'remote' ? (remoteLoad.get(card.id) ?? 0) : (supervisors.get(card.id)?.load ?? 0),
    rank: (card) => outcomes.rank(card),
    unavailable(card) {
      if (card.origin === 'remote') {
        return init.remote === undefined || init.remote.reaches?.(card) === false
          ? new PlexusError(
              'PEER_UNAVAILABLE',
              `agent ${card.id} is on another node and no transport is configured to reach it`,
            )
          : undefined;
      }
      const sup = supervisors.get(card.id);
      if (sup === undefined)
        return new PlexusError(
          'UNAVAILABLE',
          `agent ${card.id} is registered but has no handler on this node`,
        );
      return sup.unavailable();
    },
  };
  const validator = schemaValidator();
  const effects = runtimeEffects(
    {
      log,
      now,
      observer,
      logger,
      ...snapshots,
      verbSpec: (agentId, verb) => registry.verbSpec(agentId, verb),
    },
    init.effects,
  );
  const runner = createJobRunner({
    log,
    jobs,
    idempotency,
    executor: {
      supervisors,
      remote: init.remote,
      remoteLoad,
      outcomes,
      observer,
      logger,
      validator,
      validateOutput: init.validateOutput ?? true,
      effects: effects.runner,
    },
    routeState,
    postEffects: init.postEffects ?? [],
    observer,
    logger,
    now,
    concurrency,
    nodeId,
  });
  const discovery = discoveryPort({ registry, logger });
  const invoker: InvokerComponents = {
    log,
    registry,
    discovery,
    runner,
    jobs,
    idempotency,
    observer,
    validator,
    verifier: init.verifier,
    authorizers: init.authorizers ?? [],
    preEffects: init.preEffects ?? [auditPreEffect],
    now,
    limits: {
      defaultTimeoutMs: init.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxTimeoutMs: init.maxTimeoutMs ?? DEFAULT_MAX_TIMEOUT_MS,
    },
    requireAuth: init.requireAuth ?? false,
    requireSignatures: init.requireSignatures ?? false,
    windowMs: init.idempotencyWindowMs ?? 600_000,
    routes: init.remote?.routes,
    accepting: () => life.state === 'running',
  };

  const ensureRunning = (): void => {
    if (life.state !== 'running' && life.state !== 'stopping') {
      throw new PlexusError('UNAVAILABLE', 'the runtime is not started; call start() first');
    }
  };

  /** The entry of a job, after the view has caught up with everything committed so far. */
  const entryOf = async (id: string, options: SignalOptions): Promise<JobEntry> => {
    ensureRunning();
    const held = runner.active.get(id);
    if (held?.held !== undefined) await runner.persist(held).catch(() => undefined); // make it visible
    await jobs.waitFor((await log.head(options)).seq, options);
    // A finished job beyond the projection's retention is read back from the log.
    const entry = jobs.state().get(id) ?? (await jobEntryFromLog(log, id, options));
    if (entry === undefined) {
      throw new PlexusError('NOT_FOUND', `no job with id ${JSON.stringify(id)}`, { details: { job: id } });
    }
    return entry;
  };

  const answers = { observer, now, nodeId, registry };
  const aliases = verbAliases();
  const offerings = new Map<string, AgentOfferings>();

  const registerAgent = async (definition: AgentDefinition, options: SignalOptions): Promise<AgentCard> => {
    // refused before anything changes (MCP-52): a check throws naming both parties
    for (const check of init.registrationChecks ?? [])
      check({ card: definition.card, verbs: definition.verbs, registry });
    aliases.add(definition.card.id, definition.aliases ?? {}); // refuses a taken alias first
    const { resources = [], prompts = [] } = definition;
    if (resources.length > 0 || prompts.length > 0)
      offerings.set(definition.card.id, { agentId: definition.card.id, resources, prompts });
    else offerings.delete(definition.card.id);
    const supervisor =
      agentTree?.manages(definition.card.id) === true
        ? agentTree.supervise(definition)
        : createSupervisor(definition, {
            now,
            logger,
            emit: (event) => {
              runner.emit(event);
            },
          });
    await supervisor.start();
    const card = await registry.upsert(definition.card, {
      verbs: definition.verbs,
      origin: 'local',
      ...options,
    });
    supervisors.set(card.id, supervisor);
    return card;
  };

  const life = startable({
    async start(options: SignalOptions): Promise<void> {
      try {
        if (init.containRejections ?? true) releaseContainment ??= holdContainment();
        if (ownsRegistry) await registry.start(options);
        await jobs.start(options);
        await idempotency.start(options);
        await effects.ledger.start(options);
        if (supervision !== undefined) {
          agentTree = createAgentTree(supervision, {
            now,
            logger,
            emit: (event) => {
              runner.emit(event);
            },
          });
        }
        for (const definition of init.agents ?? []) await registerAgent(definition, options);
        await agentTree?.start();
        runner.dispatching(true);
        const recovery = planRecovery(jobs.state(), registry, init.remote?.routes);
        await recover({ log, jobs, idempotency, runner, logger, now }, recovery, options);
        // jobs failed by the restart give back what their interrupted legs were charged
        await effects.refundJobs(recovery.fail.map((f) => f.entry.job.id));
      } catch (error) {
        releaseContainment?.();
        releaseContainment = undefined;
        throw toPlexusError(error);
      }
    },

    async stop(options: StopOptions): Promise<void> {
      try {
        const drainMs = options.drainMs ?? 10_000;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          runner.idle(),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs))),
        ]);
        clearTimeout(timer);
        runner.dispatching(false);
        // Queued deliveries (queue-for-sync) outlive the node: left unfinished in the log, they
        // are run again at the next start. Everything else is cancelled.
        for (const [id, job] of [...runner.active]) {
          // jobs waiting for input wait on in the log: the next start holds them again
          if ((isSyncDelivery(job.request) && job.mode === 'async') || job.state === 'INPUT_REQUIRED') {
            runner.release(id, 'the node is stopping');
          } else runner.cancel(id, 'the node is stopping');
        }
        await runner.idle();
        await agentTree?.stop();
        for (const supervisor of supervisors.values()) await supervisor.stop();
        await idempotency.stop();
        await effects.ledger.stop();
        await jobs.stop();
        if (ownsRegistry) await registry.stop();
      } finally {
        releaseContainment?.();
        releaseContainment = undefined;
      }
    },
  });

  const agentsFacade: RuntimeAgents = {
    registry,
    discovery,
    peers,
    outcomes,
    resolveVerb: (name) => aliases.resolve(name),
    offerings: () => [...offerings.values()],
    async add(definition, options = {}) {
      if (life.state !== 'running') {
        throw new PlexusError(
          'UNAVAILABLE',
          'runtime.agents.add needs a started runtime; pass agents to createRuntime({ agents }) to register them at start',
        );
      }
      return registerAgent(definition, options);
    },

    async remove(id, options = {}) {
      ensureRunning();
      await registry.remove(id, options);
      aliases.remove(id);
      offerings.delete(id);
      const supervisor = supervisors.get(id);
      supervisors.delete(id);
      await supervisor?.stop();
    },
  };

  const jobsFacade: RuntimeJobs = {
    async get(id, options = {}): Promise<Job> {
      return (await entryOf(id, options)).job;
    },

    async list(query = {}, options = {}) {
      ensureRunning();
      // Running sync jobs hold their events until they end; a listing shows them as they are.
      const held = [...runner.active.values()].filter((job) => job.held !== undefined);
      await Promise.all(held.map((job) => runner.persist(job).catch(() => undefined)));
      return listJobs({ log, jobs }, query, options);
    },

    async wait(id, options = {}): Promise<Job> {
      const entry = await entryOf(id, options);
      if (isTerminalJobState(entry.job.state)) return entry.job;
      const active = runner.active.get(id);
      // a job's wait for input is recorded before `waiting` is set (and its waiters woken)
      const waits = options.orInputRequired === true && active?.waiting !== undefined;
      if (active !== undefined && !waits) {
        const ends =
          options.orInputRequired === true ? Promise.race([active.done, active.nextPause()]) : active.done;
        await (options.signal === undefined
          ? ends
          : raceAbort(ends, options.signal, `waiting for job ${id}`));
      }
      return (await entryOf(id, options)).job;
    },

    async provideInput(id, input, options = {}): Promise<Job> {
      const entry = await entryOf(id, options);
      if (entry.job.state !== 'INPUT_REQUIRED') {
        throw new PlexusError('CONFLICT', `job ${id} is ${entry.job.state}, not waiting for input`, {
          details: { job: id, state: entry.job.state },
        });
      }
      assertRecordable(input);
      await runner.provideInput(id, input, options.principal);
      return (await entryOf(id, options)).job;
    },

    async cancel(id, options = {}): Promise<Job> {
      const active = runner.active.get(id);
      if (active !== undefined && runner.cancel(id, options.reason ?? 'cancelled by request')) {
        const outcome = await active.done;
        if (outcome.job !== undefined) return outcome.job;
      }
      return (await entryOf(id, options)).job;
    },

    async answer(id, options = {}): Promise<Envelope> {
      const entry = await entryOf(id, options);
      if (!isTerminalJobState(entry.job.state)) {
        throw new PlexusError('CONFLICT', `job ${id} has not finished (state ${entry.job.state})`, {
          details: { job: id },
        });
      }
      return encodeEntry(answers, requestOfEntry(entry), entry);
    },

    async events(id, options: JobEventsOptions = {}): Promise<readonly JobEvent[]> {
      const entry = await entryOf(id, options.signal === undefined ? {} : { signal: options.signal });
      return readJobEvents(log, entry, options);
    },

    async *watch(id, options = {}): AsyncIterable<JobEvent> {
      const entry = await entryOf(id, options.signal === undefined ? {} : { signal: options.signal });
      yield* watchJobEvents(log, entry, options);
    },

    load: (agentId) => supervisors.get(agentId)?.load ?? remoteLoad.get(agentId) ?? 0,
  };

  const runtime: Runtime = {
    agents: agentsFacade,
    jobs: jobsFacade,
    views: { jobs, idempotency, ledger: effects.ledger.view },
    ledger: effects.ledger,

    start: (options: SignalOptions = {}) => life.start(options),

    stop: (options: StopOptions = {}) => life.stop(options),

    async invoke(
      named: Envelope,
      context: InvocationContext,
      options: SignalOptions = {},
    ): Promise<Invocation> {
      const envelope = aliases.resolveEnvelope(named); // the job and its answer name the verb
      const signal = options.signal ?? NEVER;
      observer.count('runtime.requests', { face: context.face, mode: 'sync' });
      const span = invocationSpan(observer, envelope, context, 'sync');
      let accepted;
      try {
        accepted = await accept(invoker, envelope, context, 'sync', signal, span);
      } catch (error) {
        const refusal = toPlexusError(error);
        observer.count('runtime.refused', { code: refusal.code, face: context.face });
        span.end(refusal);
        return { envelope: encodeRefusal(answers, envelope, refusal), duplicate: false };
      }
      cacheHit(span, accepted.kind !== 'new');
      if (accepted.kind === 'stored') {
        const earlier = accepted.entry.job.error;
        const answer = encodeEntry(answers, envelope, accepted.entry, span.traceparent);
        span.end(earlier === undefined ? undefined : PlexusError.fromData(earlier), {
          cache_hit: true,
          effects: [],
        });
        return withAnswerWarnings({
          envelope: answer,
          job: accepted.entry.job,
          duplicate: true,
        });
      }
      const { job } = accepted;
      const mine = accepted.kind === 'new';
      let outcome: JobOutcome;
      // a job that waits for input answers now with its state (it waits on, durably)
      const answered = Promise.race([job.done, job.nextPause()]);
      try {
        outcome = await (options.signal === undefined
          ? answered
          : raceAbort(answered, signal, 'the request'));
      } catch (error) {
        if (!mine) {
          const stop: JobOutcome = { state: 'CANCELED', error: toPlexusError(error), agent: nodeId };
          const answer = encodeOutcome(answers, envelope, job.id, stop, span.traceparent);
          span.end(stop.error, invocationEnd(registry, envelope.verb, stop, true));
          return { envelope: answer, duplicate: true };
        }
        runner.cancel(job.id, 'the caller cancelled the request');
        outcome = await job.done;
      }
      const answer = encodeOutcome(answers, envelope, job.id, outcome, span.traceparent);
      span.end(outcome.error, invocationEnd(registry, envelope.verb, outcome, !mine));
      return withAnswerWarnings({
        envelope: answer,
        ...(outcome.job === undefined ? {} : { job: outcome.job }),
        duplicate: !mine,
      });
    },

    async submit(
      named: Envelope,
      context: InvocationContext,
      options: SignalOptions = {},
    ): Promise<Submission> {
      const envelope = aliases.resolveEnvelope(named);
      observer.count('runtime.requests', { face: context.face, mode: 'async' });
      const span = invocationSpan(observer, envelope, context, 'async');
      let accepted;
      try {
        accepted = await accept(invoker, envelope, context, 'async', options.signal ?? NEVER, span);
      } catch (error) {
        const refusal = toPlexusError(error);
        observer.count('runtime.refused', { code: refusal.code, face: context.face });
        span.end(refusal);
        throw refusal;
      }
      cacheHit(span, accepted.kind !== 'new');
      if (accepted.kind === 'new') {
        // the invocation lasts until its job ends
        void accepted.job.done.then((outcome) => {
          span.end(outcome.error, invocationEnd(registry, envelope.verb, outcome, false));
        });
      } else span.end(undefined, { cache_hit: true, effects: [] }); // a duplicate: answered with the earlier job
      if (accepted.kind === 'stored') {
        const served = accepted.entry.agents;
        return {
          job: accepted.entry.job,
          duplicate: true,
          ...warningsMember(answers, envelope.verb, served),
        };
      }
      if (accepted.kind === 'active') {
        try {
          await runner.persist(accepted.job); // a held sync job becomes visible
        } catch {
          const outcome = await accepted.job.done;
          throw (
            outcome.error ?? new PlexusError('UNAVAILABLE', 'the earlier identical request was not recorded')
          );
        }
      }
      const entry = await entryOf(accepted.job.id, options);
      const agents = accepted.job.resolution.candidates.map((c) => c.card.id);
      return {
        job: entry.job,
        duplicate: accepted.kind === 'active',
        ...warningsMember(answers, envelope.verb, agents),
      };
    },

    async verify(options = {}) {
      return Promise.all([
        registry.verify(options),
        verifyProjectionView(log, jobs, options),
        verifyProjectionView(log, idempotency, options),
        effects.ledger.verify(options),
      ]);
    },
  };
  return runtime;
}
