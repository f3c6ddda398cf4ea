/**
 * Runs a local leg of a job with its verb's declared effects around it (seed 002 §11.1
 * steps 3 and 6): the `before` phases of the registered effect handlers (a refusal fails
 * the job before the verb's handler runs), the verb's handler with a context whose
 * `read` / `emit` check the declared effects, then the `after` phases in reverse order.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { Principal } from '../context.js';
import type { LegResult } from '../pipeline/executor.js';
import { noopObserver, type Observer, type ObserverSpan } from '../observer.js';
import { EFFECT_SPAN_PREFIX } from '../../observability/span-names.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { EffectCall, EffectHandler, EffectOutcome, EffectRegistry } from './effect-handler.js';
import { createEffectScope, readerIn, type EffectScope, type ResourceReader } from './effect-scope.js';

/** The leg, as the runner sees it. */
export interface EffectLeg {
  readonly jobId: string;
  readonly attempt: number;
  readonly agentId: string;
  readonly verb: string;
  readonly envelope: Envelope;
  readonly principal: Principal | undefined;
  /** The job's signal, made on demand (most legs never need it). */
  readonly signal: () => AbortSignal;
  /** The job's `runtime.execute` span, when the node traces: the effect spans are its children. */
  readonly traceparent?: string;
}

/** What the executor calls for every local leg. */
export interface EffectRunner {
  /**
   * Runs `run` (the verb's handler) between the effects' phases. Never rejects when `run`
   * does not.
   */
  run(leg: EffectLeg, run: (scope: EffectScope) => Promise<LegResult>): Promise<LegResult>;
}

/** Options of {@link effectRunner}. */
export interface EffectRunnerInit {
  readonly registry: EffectRegistry;
  /** The spec of a verb on an agent (its declared effects). */
  readonly verbSpec: (agentId: string, verb: string) => VerbSpec | undefined;
  /** Readers of resources, by name (`budget` serves `budget` and `budget/…`). @default none */
  readonly readers?: ReadonlyMap<string, ResourceReader>;
  /** True for event types handlers may never emit (the node's own). @default none */
  readonly reserved?: (type: string) => boolean;
  readonly observer?: Observer;
  /** Where failed `after` hooks are logged. @default silentLogger */
  readonly logger?: Logger;
}

const NO_EFFECTS = {};

/** Creates the runner. */
export function effectRunner(init: EffectRunnerInit): EffectRunner {
  const { registry } = init;
  const logger = init.logger ?? silentLogger;
  const readers = init.readers ?? new Map<string, ResourceReader>();
  const readerOf = (resource: string): ResourceReader | undefined => readerIn(readers, resource);
  const observer = init.observer ?? noopObserver;
  /** The span of one phase of one effect handler (`effect.<name>`), under the job's execute span. */
  const phaseSpan = (call: EffectCall, phase: 'before' | 'after', parent: string | undefined): ObserverSpan =>
    observer.span(
      `${EFFECT_SPAN_PREFIX}${call.effect}`,
      { effect: call.effect, phase, job: call.jobId, resources: call.resources.join(',') },
      parent === undefined ? undefined : { parent },
    );

  /** Handlers with a declared effect of the spec, in `before` order (cached per spec). */
  const plans = new WeakMap<VerbSpec, readonly EffectHandler[]>();
  const planOf = (spec: VerbSpec | undefined): readonly EffectHandler[] => {
    if (spec === undefined) return [];
    let plan = plans.get(spec);
    if (plan === undefined) {
      plan = registry.handlers.filter((h) => (spec.effects[h.effect]?.length ?? 0) > 0);
      plans.set(spec, plan);
    }
    return plan;
  };

  const after = async (
    begun: readonly { handler: EffectHandler; call: EffectCall; memo: unknown }[],
    first: EffectOutcome,
    parent: string | undefined,
  ): Promise<EffectOutcome> => {
    let outcome = first;
    for (let i = begun.length - 1; i >= 0; i--) {
      const { handler, call, memo } = begun[i] as (typeof begun)[number];
      if (handler.after === undefined) continue;
      const span = phaseSpan(call, 'after', parent);
      try {
        await handler.after(call, outcome, memo);
        span.end();
      } catch (error) {
        const failure = toPlexusError(error);
        span.end(failure);
        logger.warn(
          {
            effect: handler.effect,
            job: call.jobId,
            error: failure.message.slice(0, 200),
            event: 'runtime.effect_after_failed',
          },
          'runtime.effect_after_failed',
        );
        if (outcome.ok) {
          outcome = {
            ok: false,
            error: new PlexusError(
              failure.code,
              `the ${handler.effect} effect of ${call.verb} could not be carried out after its handler: ${failure.message}`,
              { cause: error, ...(failure.details === undefined ? {} : { details: failure.details }) },
            ),
          };
        }
      }
    }
    return outcome;
  };

  /** The slow path: the effects' phases around the verb's handler. */
  const around = async (
    leg: EffectLeg,
    spec: VerbSpec,
    plan: readonly EffectHandler[],
    scope: EffectScope,
    run: (scope: EffectScope) => Promise<LegResult>,
  ): Promise<LegResult> => {
    const begun: { handler: EffectHandler; call: EffectCall; memo: unknown }[] = [];
    const signal = leg.signal();
    for (const handler of plan) {
      const call: EffectCall = {
        effect: handler.effect,
        resources: spec.effects[handler.effect] ?? [],
        jobId: leg.jobId,
        attempt: leg.attempt,
        agentId: leg.agentId,
        verb: leg.verb,
        spec,
        envelope: leg.envelope,
        principal: leg.principal,
        scope,
        signal,
      };
      const span = handler.before === undefined ? undefined : phaseSpan(call, 'before', leg.traceparent);
      try {
        const memo: unknown = handler.before === undefined ? undefined : await handler.before(call);
        span?.end();
        begun.push({ handler, call, memo });
      } catch (error) {
        // refused before the verb's handler ran: the phases already begun see the failure
        const refusal = toPlexusError(error);
        span?.end(refusal);
        await after(begun, { ok: false, error: refusal }, leg.traceparent);
        return { agent: leg.agentId, ok: false, error: refusal };
      }
    }
    const result = checked(await run(scope), scope);
    const outcome = await after(
      begun,
      result.ok ? { ok: true, output: result.data } : { ok: false, error: result.error },
      leg.traceparent,
    );
    return outcome.ok ? result : { agent: result.agent, ok: false, error: outcome.error };
  };

  return {
    run(leg, run) {
      const spec = init.verbSpec(leg.agentId, leg.verb);
      const scope = createEffectScope({
        verb: leg.verb,
        agentId: leg.agentId,
        declared: spec?.effects ?? NO_EFFECTS,
        envelope: leg.envelope,
        principal: leg.principal,
        signal: leg.signal,
        readerOf,
        reserved: init.reserved,
      });
      const plan = planOf(spec);
      // nothing to carry out: only the declared reads and emits are checked (no extra turn)
      if (plan.length === 0) return run(scope).then((result) => checked(result, scope));
      return around(leg, spec as VerbSpec, plan, scope, run);
    },
  };
}

/** A successful leg whose handler caught an undeclared read or emit fails all the same. */
function checked(result: LegResult, scope: EffectScope): LegResult {
  return result.ok && scope.violation !== undefined
    ? { agent: result.agent, ok: false, error: scope.violation }
    : result;
}
