/**
 * The invoker pipeline of DESIGN §3 up to the creation of the job, one named step at a
 * time: validate envelope → resolve targets → validate input → verify signature →
 * authorise → idempotency lookup → pre-effects → record `job.submitted` and queue. Routing,
 * execution under supervision, post-effects and encoding follow in the job engine and the
 * runtime. Each step is a span of the observer.
 */
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { parseCapabilitySelector } from '../../core/verb-name.js';
import { TARGET_EXTENSION } from '../routing/target.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isTerminalJobState } from '../../core/records/job.js';
import type { SchemaValidator } from '../../core/schema-validator.js';
import type { EnvelopeVerifier } from '../../security/envelope-verifier.js';
import { TRACEPARENT_PATTERN } from '../../store/event-input.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import type { InvocationContext, InvocationMode } from '../context.js';
import { resolveTimeout, type TimeoutLimits } from '../jobs/deadline.js';
import { RUNTIME_EVENTS, type JobSubmittedData } from '../events.js';
import {
  idempotencyIdentity,
  rememberedInLog,
  type IdempotencyEntry,
  type IdempotencyIdentity,
  type IdempotencyState,
} from './idempotency.js';
import { newActiveJob, type ActiveJob } from '../jobs/active-job.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { newJobId } from '../jobs/job-id.js';
import { jobEntryFromLog, type JobEntry, type JobsState } from '../jobs/jobs-projection.js';
import { underSpan, type Observer, type ObserverSpan } from '../observer.js';
import { authenticateStep, authorizeStep, principalOf, type Authorizer } from './authorize.js';
import { runPreEffects, type PreEffect } from './effects.js';
import { eraStep } from './era.js';
import { runStep } from './steps.js';
import { invocationAttributes } from './trace-attributes.js';
import { validateEnvelopeStep } from './validate-envelope.js';
import { validateInputStep } from './validate-input.js';
import { verifySignatureStep } from './verify-signature.js';
import type { Registry } from '../agents/registry.js';
import type { DiscoveryPort } from '../agents/capability-discovery.js';
import type { TargetRoutes } from '../routing/remote.js';
import { resolveTargets, type Resolution } from '../routing/router.js';
import { bindTenant } from './tenancy.js';

/** What the pipeline needs. */
export interface InvokerComponents {
  readonly log: EventLog;
  readonly registry: Registry;
  /** Asked when a request by capability finds no provider in the registry (MESH-20). */
  readonly discovery?: DiscoveryPort;
  readonly runner: JobRunner;
  readonly jobs: ProjectionView<JobsState>;
  readonly idempotency: ProjectionView<IdempotencyState>;
  readonly observer: Observer;
  readonly validator: SchemaValidator;
  readonly verifier: EnvelopeVerifier | undefined;
  readonly authorizers: readonly Authorizer[];
  readonly preEffects: readonly PreEffect[];
  readonly now: () => number;
  readonly limits: TimeoutLimits;
  readonly requireAuth: boolean;
  readonly requireSignatures: boolean;
  readonly windowMs: number;
  /** How envelope targets map onto peers (from the `RemoteInvoker`); none refuses http(s) targets. */
  readonly routes?: TargetRoutes | undefined;
  /** False while the runtime does not accept requests (not started, stopping). */
  accepting(): boolean;
}

/** The outcome of the pipeline's first half. */
export type Accepted =
  /** A new job, recorded and queued. */
  | { readonly kind: 'new'; readonly job: ActiveJob }
  /** A duplicate of a job that is still running. */
  | { readonly kind: 'active'; readonly job: ActiveJob }
  /** A duplicate of a finished job. */
  | { readonly kind: 'stored'; readonly entry: JobEntry };

/**
 * What the idempotency step found: an outcome; a finished job to read back from the log; or a
 * key the projection no longer keeps in memory, to look up in the log's index (A2A-23).
 */
type Lookup = Accepted | { readonly kind: 'archived'; readonly jobId: string } | { readonly kind: 'evicted' };

/** What was read from the log for a lookup: the key's entry there, and a job. */
interface FromLog {
  /** The key's latest `job.submitted` in the log, when it was looked up there (`null`: none). */
  remembered?: IdempotencyEntry | null;
  /** A job read back from the log (`entry` absent: the log has no such job, the key no longer answers). */
  archived?: { readonly jobId: string; readonly entry?: JobEntry };
}

/** Rounds of reading the log before a lookup settles (evicted key, then its archived job). */
const LOOKUP_ROUNDS = 3;

function notAccepting(): PlexusError {
  return new PlexusError(
    'UNAVAILABLE',
    'the node is not accepting requests (starting or stopping); retry shortly',
  );
}

/** True when a finished job freed its key for a retry (cancelled, or a retryable failure). */
function releasedKey(entry: JobEntry): boolean {
  return (
    entry.job.state === 'CANCELED' || (entry.job.state === 'FAILED' && entry.job.error?.retryable === true)
  );
}

/**
 * Pipeline step `idempotency`: finds the job that already answers this key, or reserves a new
 * one. A key the projection dropped to bound its memory is reported as `evicted` (look it up
 * in the log, then call again with it as `fromLog.remembered`); a finished job the jobs
 * projection no longer keeps as `archived` (read it from the log, then call again with it as
 * `fromLog.archived`).
 */
function lookup(
  c: InvokerComponents,
  identity: IdempotencyIdentity,
  fresh: () => ActiveJob,
  fromLog: FromLog = {},
): Lookup {
  const conflict = (jobId: string): PlexusError =>
    new PlexusError(
      'CONFLICT',
      `the idempotency key ${JSON.stringify(identity.explicitKey ?? identity.payloadHash)} was used by job ${jobId} for a different payload; use a new key`,
      { details: { job: jobId } },
    );
  const running = c.runner.byKey(identity.key);
  if (running !== undefined) {
    if (running.payloadHash !== identity.payloadHash) throw conflict(running.id);
    return { kind: 'active', job: running };
  }
  const state = c.idempotency.state();
  const inMemory = state.keys.get(identity.key);
  if (inMemory === undefined && fromLog.remembered === undefined && state.evictedUntil > c.now()) {
    return { kind: 'evicted' };
  }
  // a key found only in the log may have been released since (the projection deletes those)
  const fromIndex = inMemory === undefined;
  const remembered = inMemory ?? fromLog.remembered ?? undefined;
  if (remembered !== undefined && remembered.expiresAt > c.now()) {
    if (remembered.payloadHash !== identity.payloadHash) throw conflict(remembered.jobId);
    const read = fromLog.archived?.jobId === remembered.jobId ? fromLog.archived : undefined;
    const entry = c.jobs.state().get(remembered.jobId) ?? read?.entry;
    if (entry !== undefined && isTerminalJobState(entry.job.state) && !(fromIndex && releasedKey(entry))) {
      return { kind: 'stored', entry };
    }
    if (entry === undefined && read === undefined) return { kind: 'archived', jobId: remembered.jobId };
  }
  if (!c.accepting()) throw notAccepting();
  const job = fresh();
  c.runner.reserve(job);
  return { kind: 'new', job };
}

/** The `job.submitted` event of a new job. */
function submittedEvent(
  job: ActiveJob,
  context: InvocationContext,
  identity: IdempotencyIdentity,
  windowMs: number,
): EventInput {
  const { request } = job;
  // Keys inserted in RFC 8785 order, so the log's canonical form needs no sorted copy.
  const data: { -readonly [K in keyof JobSubmittedData]?: JobSubmittedData[K] } = {
    at: new Date().toISOString(),
    caller: request.from,
    correlationId: request.id,
    deadline: new Date(job.deadlineAt).toISOString(),
    face: context.face,
    id: job.id,
  };
  if (identity.explicitKey !== undefined) data.idempotencyKey = identity.explicitKey;
  data.key = identity.key;
  data.mode = job.mode;
  data.payloadHash = identity.payloadHash;
  if (job.principal !== undefined) data.principal = job.principal.id;
  data.request = request;
  if (request.tenantId !== undefined) data.tenantId = request.tenantId;
  data.timeoutMs = job.timeoutMs;
  data.to = request.to;
  data.verb = request.verb;
  data.windowMs = Math.max(context.idempotencyWindowMs ?? windowMs, job.timeoutMs);
  return {
    type: RUNTIME_EVENTS.jobSubmitted,
    data: data as JobSubmittedData, // every required key is set above
    causation: job.id,
    ...(request.tenantId === undefined ? {} : { tenant: request.tenantId }),
    ...(request.traceparent !== undefined && TRACEPARENT_PATTERN.test(request.traceparent)
      ? { trace: request.traceparent }
      : {}),
  };
}

/**
 * The verb a request looks for by capability — `capability:<verb>` or a broadcast without an
 * envelope target — or `undefined` when it names an agent or a target.
 */
function soughtVerb(request: Envelope): string | undefined {
  const target = request.extensions?.[TARGET_EXTENSION];
  if (target !== undefined && target !== null) return undefined;
  if (request.to === BROADCAST) return request.verb;
  const selected = parseCapabilitySelector(request.to);
  return selected === undefined ? undefined : selected.includes('@') ? selected : request.verb;
}

/**
 * Runs the pipeline up to a recorded, queued job (or a duplicate's earlier job).
 *
 * @throws PlexusError from the step that refused the request.
 */
export async function accept(
  c: InvokerComponents,
  envelope: Envelope,
  context: InvocationContext,
  mode: InvocationMode,
  signal: AbortSignal,
  invocation?: ObserverSpan,
): Promise<Accepted> {
  if (!c.accepting()) throw notAccepting();
  const observer = underSpan(c.observer, invocation?.traceparent); // the steps are its children
  const attrs = { face: context.face, mode };
  const { request, deadline } = runStep(observer, 'validate_envelope', attrs, () => {
    // The tenant comes from the face-authenticated principal, not from the envelope (tenancy.ts).
    const checked = bindTenant(validateEnvelopeStep(envelope), context);
    return { request: checked, deadline: resolveTimeout(checked, context, c.now(), c.limits) };
  });
  // A request by capability (or a broadcast) that no card here serves asks the discovery first.
  const sought = c.discovery?.active === true ? soughtVerb(request) : undefined;
  if (sought !== undefined && c.registry.byCapability(sought).length === 0)
    await c.discovery?.providers(sought, { signal });
  const routed = runStep(observer, 'resolve', attrs, () => resolveTargets(c.registry, request, c.routes));
  // Seed 002 §10: a sunset era is refused here, before its input is even looked at.
  const resolved = runStep(observer, 'era', attrs, () =>
    eraStep(routed, (agentId) => c.registry.verbSpec(agentId, request.verb), c.now()),
  );
  const resolution: Resolution = runStep(observer, 'validate_input', attrs, () =>
    validateInputStep(resolved, request.data, c.validator),
  );
  const signer = runStep(observer, 'verify_signature', attrs, () =>
    verifySignatureStep(request, {
      ...(c.verifier === undefined ? {} : { verifier: c.verifier }),
      requireSignatures: c.requireSignatures,
    }),
  );
  const principal =
    c.authorizers.length === 0 // no policy hooks: authentication alone, without a turn of the loop
      ? runStep(observer, 'authorize', attrs, () =>
          authenticateStep(principalOf(context, signer), c.requireAuth),
        )
      : await runStep(observer, 'authorize', attrs, () =>
          authorizeStep(
            {
              envelope: request,
              context,
              principal: principalOf(context, signer),
              resolution,
              verbSpec: (agentId) => c.registry.verbSpec(agentId, request.verb),
            },
            { requireAuth: c.requireAuth, authorizers: c.authorizers },
            signal,
          ),
        );
  if (invocation?.traceparent !== undefined) {
    const first = resolution.candidates[0]?.card.id;
    const spec = first === undefined ? undefined : c.registry.verbSpec(first, request.verb);
    invocation.set?.(invocationAttributes(request, principal, spec));
  }
  const fresh = (key: IdempotencyIdentity) => (): ActiveJob =>
    newActiveJob({
      id: newJobId(),
      request,
      principal,
      mode,
      key: key.key,
      payloadHash: key.payloadHash,
      timeoutMs: deadline.timeoutMs,
      deadlineAt: deadline.deadlineAt,
      resolution,
      ...(context.caller === undefined ? {} : { caller: context.caller }),
    });
  const step = runStep(observer, 'idempotency', attrs, () => {
    const key = idempotencyIdentity(request, context);
    return { identity: key, hit: lookup(c, key, fresh(key)) };
  });
  const { identity } = step;
  let hit: Lookup = step.hit;
  const fromLog: FromLog = {};
  for (let round = 0; round < LOOKUP_ROUNDS && (hit.kind === 'evicted' || hit.kind === 'archived'); round++) {
    const pending = hit;
    hit = await runStep(observer, 'idempotency', attrs, async () => {
      if (pending.kind === 'evicted') {
        // a key beyond the projection's memory bound, maybe still in its window (A2A-23)
        fromLog.remembered = (await rememberedInLog(c.log, identity.key, { signal })) ?? null;
      } else {
        // a duplicate of a finished job beyond the jobs projection's retention: read it back
        const entry = await jobEntryFromLog(c.log, pending.jobId, { signal });
        fromLog.archived = { jobId: pending.jobId, ...(entry === undefined ? {} : { entry }) };
      }
      return lookup(c, identity, fresh(identity), fromLog);
    });
  }
  if (hit.kind === 'evicted' || hit.kind === 'archived') {
    throw new PlexusError(
      'UNAVAILABLE',
      'the idempotency key could not be looked up while it changed under load; retry the request',
      { retryable: true },
    );
  }
  const found: Accepted = hit;
  if (found.kind !== 'new') {
    observer.count('runtime.duplicates', { face: context.face });
    return found;
  }
  const job = found.job;
  if (invocation !== undefined) job.trace = invocation;
  try {
    const extra = await runStep(observer, 'pre_effects', attrs, () =>
      runPreEffects(
        c.preEffects,
        { jobId: job.id, envelope: request, context, principal, resolution, mode },
        signal,
      ),
    );
    if (isTerminalJobState(job.state)) {
      // cancelled (the node is stopping) while the pre-effects ran: nothing was written
      throw (await job.done).error ?? notAccepting();
    }
    job.held = [submittedEvent(job, context, identity, c.windowMs), ...extra];
    job.markAccepted(true);
    if (mode === 'async') await c.runner.persist(job);
  } catch (error) {
    const refusal = toPlexusError(error);
    c.runner.abandon(job, refusal);
    throw refusal;
  }
  c.runner.enqueue(job);
  return found;
}
