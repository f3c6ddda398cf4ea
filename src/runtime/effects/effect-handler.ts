/**
 * Effect handlers (seed 002 §3.3, §11.1): the runtime — not the verb's implementation —
 * carries out a verb's declared effects. A handler serves one effect kind and has two
 * phases around the verb's handler: `before` (may refuse: the job then fails before the
 * verb's handler runs) and `after` (sees the leg's outcome). The registry holds one handler
 * per effect kind; `before` phases run in registration order and `after` phases in reverse,
 * like a stack, so the first handler (charges) is the last to see the outcome (and refunds).
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import { isEffectName, type EffectName } from '../../core/records/effects.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { Principal } from '../context.js';
import type { EffectScope } from './effect-scope.js';

/** One declared effect of one leg of a job, as its handler sees it. */
export interface EffectCall {
  /** The declared effect and its resources (`charges: [tokens, compute]`). */
  readonly effect: EffectName;
  readonly resources: readonly string[];
  readonly jobId: string;
  /** 1 for the first run of the job; higher after a restart. */
  readonly attempt: number;
  /** The agent running the verb. */
  readonly agentId: string;
  /** The verb as requested. */
  readonly verb: string;
  readonly spec: VerbSpec;
  readonly envelope: Envelope;
  readonly principal: Principal | undefined;
  /** The leg's scope: the declared effects and what the verb's handler emitted. */
  readonly scope: EffectScope;
  /** Aborted when the job is cancelled or times out. */
  readonly signal: AbortSignal;
}

/** How a leg ended, as `after` phases see it. */
export type EffectOutcome =
  { readonly ok: true; readonly output: JsonValue } | { readonly ok: false; readonly error: PlexusError };

/** The handler of one effect kind. */
export interface EffectHandler {
  /** The effect kind it handles. */
  readonly effect: EffectName;
  /**
   * Runs before the verb's handler. Returns a memo handed to `after` (e.g. the charge).
   * @throws PlexusError to fail the job before the verb's handler runs.
   */
  before?(call: EffectCall): unknown;
  /**
   * Runs after the verb's handler (also when it failed, or when a later `before` refused).
   * Throwing turns a successful leg into a failed one (the effect could not be carried
   * out); on a failed leg the error is reported and the outcome stays.
   */
  after?(call: EffectCall, outcome: EffectOutcome, memo: unknown): void | Promise<void>;
}

/** The effect handlers of a runtime. */
export interface EffectRegistry {
  /** The handler of an effect kind, if one is registered. */
  get(effect: EffectName): EffectHandler | undefined;
  /** Every handler, in `before` order. */
  readonly handlers: readonly EffectHandler[];
}

/**
 * Creates a registry with one handler per effect kind, in the given order.
 *
 * @throws PlexusError `INVALID_PARAMS` for an unknown effect kind, a kind registered twice,
 *   or a handler with neither phase.
 * @example
 * const effects = effectRegistry([chargesHandler({ ledger, policy }), readsHandler({}), auditsHandler({ log }), emitsHandler({ log })]);
 */
export function effectRegistry(handlers: readonly EffectHandler[]): EffectRegistry {
  const byEffect = new Map<EffectName, EffectHandler>();
  handlers.forEach((handler, i) => {
    const effect: unknown = handler.effect;
    if (!isEffectName(effect)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `effect handler ${i} handles ${JSON.stringify(effect)}, which is not an effect`,
      );
    }
    if (byEffect.has(effect)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `two effect handlers for ${effect}; register one per effect kind`,
      );
    }
    if (typeof handler.before !== 'function' && typeof handler.after !== 'function') {
      throw new PlexusError('INVALID_PARAMS', `the effect handler of ${effect} has neither before nor after`);
    }
    byEffect.set(effect, handler);
  });
  const list = [...byEffect.values()];
  return { get: (effect) => byEffect.get(effect), handlers: list };
}
