/**
 * Pipeline steps `pre_effects` and `post_effects`: hooks that run before a job is dispatched
 * and after it finishes, and return events to record. Pre-effect events are appended in
 * the same atomic batch as `job.submitted`, post-effect events with the job's final event.
 * The audit record (`audit.invoked`) is the default pre-effect. These hooks see a request
 * before it is a job; a verb's declared effects (budget charges, audits, emits, declared
 * reads) are carried out around its handler by the effect handlers of `../effects/`
 * (docs/effects.md), so an unaffordable call is a job that fails `BUDGET_EXCEEDED`.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError, type ErrorData } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { JobState } from '../../core/records/job.js';
import type { EventInput } from '../../store/event-log.js';
import type { InvocationContext, InvocationMode, Principal } from '../context.js';
import { RUNTIME_EVENTS } from '../events.js';
import type { Resolution } from '../routing/router.js';

/** What a pre-effect sees: an accepted request about to become a job. */
export interface PreparedCall {
  readonly jobId: string;
  readonly envelope: Envelope;
  readonly context: InvocationContext;
  readonly principal: Principal | undefined;
  readonly resolution: Resolution;
  readonly mode: InvocationMode;
}

/** Runs before dispatch; may refuse the call by throwing (e.g. `BUDGET_EXCEEDED`). */
export interface PreEffect {
  readonly name: string;
  /**
   * Returns events to record with `job.submitted` (or nothing).
   * @throws PlexusError to refuse the request (no job is created).
   */
  before(
    call: PreparedCall,
    signal: AbortSignal,
  ): readonly EventInput[] | undefined | Promise<readonly EventInput[] | undefined>;
}

/** A job that has just finished, as post-effects see it. */
export interface FinishedJob {
  readonly id: string;
  readonly verb: string;
  readonly state: JobState;
  readonly error?: ErrorData;
}

/** Runs when a job has finished (any terminal state). */
export interface PostEffect {
  readonly name: string;
  /** Returns events to record with the job's final event (or nothing). Should not throw. */
  after(job: FinishedJob, request: Envelope): readonly EventInput[] | undefined;
}

/** The audit pre-effect: one `audit.invoked` event per accepted request. */
export const auditPreEffect: PreEffect = {
  name: 'audit',
  before(call) {
    // Keys inserted in RFC 8785 order, so the log's canonical form needs no sorted copy.
    const data: JsonObject = {
      candidates: call.resolution.candidates.map((c) => c.card.id),
      face: call.context.face,
      from: call.envelope.from,
      job: call.jobId,
      mode: call.mode,
    };
    if (call.principal !== undefined) {
      data['principal'] = call.principal.id;
      data['principalKind'] = call.principal.kind;
    }
    data['to'] = call.envelope.to;
    if (call.context.transport !== undefined) data['transport'] = { ...call.context.transport };
    data['verb'] = call.envelope.verb;
    const event: EventInput = {
      type: RUNTIME_EVENTS.auditInvoked,
      data,
      causation: call.jobId,
      ...(call.envelope.tenantId === undefined ? {} : { tenant: call.envelope.tenantId }),
    };
    return [event];
  },
};

/**
 * Runs every pre-effect in order and collects their events.
 *
 * @throws PlexusError the first refusal (a non-PlexusError becomes `INTERNAL` naming the hook).
 */
export async function runPreEffects(
  effects: readonly PreEffect[],
  call: PreparedCall,
  signal: AbortSignal,
): Promise<EventInput[]> {
  const events: EventInput[] = [];
  for (const effect of effects) {
    try {
      const out = await effect.before(call, signal);
      if (out !== undefined) events.push(...out);
    } catch (error) {
      if (error instanceof PlexusError) throw error;
      throw new PlexusError('INTERNAL', `pre-effect ${effect.name} failed: ${toPlexusError(error).message}`, {
        cause: error,
      });
    }
  }
  return events;
}

/**
 * Runs every post-effect and collects their events; a hook that throws is skipped and
 * reported through `onError`.
 */
export function runPostEffects(
  effects: readonly PostEffect[],
  job: FinishedJob,
  request: Envelope,
  onError: (effect: PostEffect, error: unknown) => void,
): EventInput[] {
  const events: EventInput[] = [];
  for (const effect of effects) {
    try {
      const out = effect.after(job, request);
      if (out !== undefined) events.push(...out);
    } catch (error) {
      onError(effect, error);
    }
  }
  return events;
}
