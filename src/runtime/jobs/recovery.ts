/**
 * Recovery after a restart (issue 3 item 7). When the runtime starts, its projections are
 * rebuilt from the log; a job still SUBMITTED or WORKING was cut off by the stop or crash
 * of the previous process. The policy:
 *
 * - **re-queued** (run again, same job id, fresh timeout of the same length) when running it
 *   again is safe for every agent it was (or would be) routed to — see {@link isRerunSafe};
 *   a WORKING job records `job.retried` when it starts again;
 * - otherwise **failed as retryable**: `UNAVAILABLE`, "the node restarted…", which also
 *   frees its idempotency key, so the client's retry runs it anew;
 * - jobs in INPUT_REQUIRED **wait again** for their caller's answer (their request and the
 *   answers so far are in the log; the deadline is armed afresh when they run again);
 * - jobs in AUTH_REQUIRED, or whose request was not kept, are failed too.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import { RUNTIME_EVENTS } from '../events.js';
import type { IdempotencyState } from '../pipeline/idempotency.js';
import { newActiveJob, type ActiveJob } from './active-job.js';
import type { JobRunner } from './job-runner.js';
import type { JobEntry, JobsState } from './jobs-projection.js';
import type { Logger } from '../../core/logger.js';
import type { Registry } from '../agents/registry.js';
import { resolveTargets, type Resolution } from '../routing/router.js';
import type { TargetRoutes } from '../routing/remote.js';
import { isSyncDelivery } from '../routing/delivery.js';

/** The effects that leave the world unchanged, so running a verb again is harmless. */
const HARMLESS_EFFECTS: ReadonlySet<string> = new Set(['reads', 'audits']);

/**
 * True when running the verb again after an interruption is safe: the spec declares no
 * effect beyond `reads` / `audits`, and the verb is a `query` or `deterministic`. A verb
 * without a spec is not assumed safe.
 */
export function isRerunSafe(spec: VerbSpec | undefined): boolean {
  if (spec === undefined) return false;
  const harmless = Object.entries(spec.effects).every(
    ([effect, resources]) => HARMLESS_EFFECTS.has(effect) || resources.length === 0,
  );
  return harmless && (spec.category === 'query' || spec.deterministic);
}

/** A job to run again. */
export interface RequeueItem {
  readonly entry: JobEntry;
  readonly resolution: Resolution;
}

/** A job to fail, with the reason. */
export interface FailItem {
  readonly entry: JobEntry;
  readonly error: PlexusError;
}

/** What recovery will do with each unfinished job. */
export interface RecoveryPlan {
  readonly requeue: readonly RequeueItem[];
  readonly fail: readonly FailItem[];
  /** Jobs waiting for input, held again until answered. */
  readonly wait: readonly RequeueItem[];
}

function restartError(entry: JobEntry, why: string): PlexusError {
  return new PlexusError(
    'UNAVAILABLE',
    `the node restarted while job ${entry.job.id} (${entry.job.verb}) was ${entry.job.state}; ${why}; retry the request`,
    { details: { job: entry.job.id, recovered: true } },
  );
}

/**
 * Decides, for every unfinished job of the projection, whether to run it again or fail it.
 * Pure: reads the jobs state and the registry, writes nothing. `routes` resolves http(s)
 * targets as at accept time; a queued `queue-for-sync` delivery is always run again.
 */
export function planRecovery(jobs: JobsState, registry: Registry, routes?: TargetRoutes): RecoveryPlan {
  const requeue: RequeueItem[] = [];
  const fail: FailItem[] = [];
  const wait: RequeueItem[] = [];
  for (const entry of jobs.values()) {
    const { state } = entry.job;
    if (state !== 'SUBMITTED' && state !== 'WORKING' && state !== 'INPUT_REQUIRED') {
      if (state === 'AUTH_REQUIRED') {
        fail.push({ entry, error: restartError(entry, 'its conversation state was lost') });
      }
      continue;
    }
    if (entry.request === undefined || (state === 'INPUT_REQUIRED' && entry.job.input === undefined)) {
      fail.push({ entry, error: restartError(entry, 'its request was not kept') });
      continue;
    }
    let resolution: Resolution;
    try {
      resolution = resolveTargets(registry, entry.request, routes);
    } catch (error) {
      fail.push({
        entry,
        error: restartError(entry, `it cannot be routed any more (${toPlexusError(error).message})`),
      });
      continue;
    }
    if (state === 'INPUT_REQUIRED') {
      wait.push({ entry, resolution }); // its caller's answer runs it again
      continue;
    }
    const agents = entry.agents ?? resolution.candidates.map((c) => c.card.id);
    // A queue-for-sync delivery never ran here, and the far node dedupes the same request: safe.
    const safe =
      isSyncDelivery(entry.request) ||
      (agents.length > 0 && agents.every((agent) => isRerunSafe(registry.verbSpec(agent, entry.job.verb))));
    if (safe) requeue.push({ entry, resolution });
    else
      fail.push({
        entry,
        error: restartError(entry, 'its verb is not declared idempotent, so it was not run again'),
      });
  }
  return { requeue, fail, wait };
}

/** What {@link recover} needs from the runtime. */
export interface RecoveryComponents {
  readonly log: EventLog;
  readonly jobs: ProjectionView<JobsState>;
  readonly idempotency: ProjectionView<IdempotencyState>;
  readonly runner: JobRunner;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * The engine's job for an unfinished job of the log, accepted and written: its state, attempts
 * and answers so far as recorded, a fresh timeout of its original length from `now`.
 */
function recoveredJob(entry: JobEntry, request: Envelope, resolution: Resolution, now: number): ActiveJob {
  const job = newActiveJob({
    id: entry.job.id,
    request,
    principal: entry.principal === undefined ? undefined : { id: entry.principal, kind: 'recovered' },
    mode: entry.mode,
    key: entry.key,
    payloadHash: entry.job.payloadHash,
    timeoutMs: entry.timeoutMs,
    deadlineAt: now + entry.timeoutMs,
    resolution,
    state: entry.job.state,
    attempts: entry.job.attempts,
    inputs: entry.inputs ?? [],
  });
  job.markAccepted(true);
  job.markWritten(true);
  return job;
}

/**
 * Carries out a plan: writes `job.failed` for the jobs to fail (one atomic batch), then
 * queues the jobs to run again with a fresh timeout of their original length.
 *
 * @throws PlexusError from the log.
 */
export async function recover(
  c: RecoveryComponents,
  plan: RecoveryPlan,
  options: SignalOptions = {},
): Promise<void> {
  if (plan.fail.length > 0) {
    const written = await c.log.append(
      plan.fail.map(({ entry, error }) => ({
        type: RUNTIME_EVENTS.jobFailed,
        data: { id: entry.job.id, error: error.toData() },
        causation: entry.job.id,
        ...(entry.job.tenantId === undefined ? {} : { tenant: entry.job.tenantId }),
      })),
      options,
    );
    const seq = written[written.length - 1]?.seq ?? 0;
    await Promise.all([c.jobs.waitFor(seq, options), c.idempotency.waitFor(seq, options)]);
  }
  for (const { entry, resolution } of plan.requeue) {
    const request = entry.request;
    if (request === undefined) continue;
    const job = recoveredJob(entry, request, resolution, c.now());
    job.retryReason = 'the node restarted while the job was running';
    c.runner.reserve(job);
    c.runner.enqueue(job);
    c.logger.info({ job: job.id, verb: request.verb, event: 'runtime.job_requeued' }, 'runtime.job_requeued');
  }
  for (const { entry, resolution } of plan.wait) {
    const { request } = entry;
    const input = entry.job.input;
    if (request === undefined || input === undefined) continue;
    const job = recoveredJob(entry, request, resolution, c.now());
    job.waiting = { request: input, index: entry.inputs?.length ?? 0, leftMs: entry.timeoutMs };
    c.runner.hold(job);
    c.logger.info(
      { job: job.id, verb: request.verb, event: 'runtime.job_waits_for_input' },
      'runtime.job_waits_for_input',
    );
  }
}
