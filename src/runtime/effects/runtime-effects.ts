/**
 * The effects of a runtime, assembled: the budget ledger (always kept, so its projection is
 * part of `verify` and `plexus replay --verify`), the built-in effect handlers — `charges`
 * (when budgets are configured), `audits`, `emits` — with any given ones, the resource
 * readers (`budget` built in), and the runner the executor calls for every local leg.
 */
import { toPlexusError } from '../../core/errors.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { EventLog } from '../../store/event-log.js';
import type { SnapshotStore } from '../../store/projection-snapshots.js';
import type { Observer } from '../observer.js';
import type { Logger } from '../../core/logger.js';
import { auditsHandler } from './audits-handler.js';
import { budgetLedger, type BudgetLedger } from './budget-ledger.js';
import { BUDGET_RESOURCE, budgetReader } from './budget-reader.js';
import { chargesHandler, type BudgetPolicy, type ExtraBudgets } from './charges-handler.js';
import { effectRegistry, type EffectHandler, type EffectRegistry } from './effect-handler.js';
import { effectRunner, type EffectRunner } from './effect-runner.js';
import type { ResourceReader } from './effect-scope.js';
import { emitsHandler } from './emits-handler.js';
import { reservedTypes } from './reserved-types.js';

/** Effect options of a runtime (`RuntimeInit.effects`). */
export interface EffectsInit {
  /**
   * Prices and limits of the `charges` effect (micro-units). Without it no charge is taken
   * (verbs' `charges` are neither metered nor limited).
   */
  readonly budgets?: BudgetPolicy;
  /** More budgets a call is debited from (e.g. `ucanBudgets(verifier)`). */
  readonly extraBudgets?: ExtraBudgets;
  /** More effect handlers; one for a kind that has a built-in handler replaces it. @default [] */
  readonly handlers?: readonly EffectHandler[];
  /** Resource readers beside the built-in `budget`, by name. @default {} */
  readonly readers?: Readonly<Record<string, ResourceReader>>;
  /** Event types handlers may not emit. @default the runtime's namespaces (job., agent., audit., ledger., ucan.) */
  readonly reserved?: (type: string) => boolean;
}

/** What the runtime needs to build its effects. */
export interface EffectsComponents {
  readonly log: EventLog;
  readonly snapshots?: SnapshotStore;
  readonly now: () => number;
  readonly observer: Observer;
  /** Where failed refunds are logged. */
  readonly logger: Logger;
  readonly verbSpec: (agentId: string, verb: string) => VerbSpec | undefined;
}

/** A runtime's effects. */
export interface RuntimeEffects {
  readonly ledger: BudgetLedger;
  readonly registry: EffectRegistry;
  readonly runner: EffectRunner;
  /**
   * Refunds the charges still standing of jobs that failed without their legs finishing
   * (the jobs a restart failed instead of running again). Failures are reported to the
   * logger as warnings, not thrown: the node still starts.
   */
  refundJobs(jobs: readonly string[]): Promise<void>;
}

/** Assembles a runtime's effects (the ledger is started and stopped by the runtime). */
export function runtimeEffects(c: EffectsComponents, init: EffectsInit = {}): RuntimeEffects {
  const ledger = budgetLedger({
    log: c.log,
    now: c.now,
    ...(c.snapshots === undefined ? {} : { snapshots: c.snapshots }),
  });
  const builtIn: EffectHandler[] = [];
  if (init.budgets !== undefined) {
    builtIn.push(
      chargesHandler({
        ledger,
        policy: init.budgets,
        observer: c.observer,
        ...(init.extraBudgets === undefined ? {} : { extraBudgets: init.extraBudgets }),
      }),
    );
  }
  const given = init.handlers ?? [];
  const replaced = (h: EffectHandler): EffectHandler => given.find((g) => g.effect === h.effect) ?? h;
  const tail = [auditsHandler({ log: c.log, now: c.now }), emitsHandler({ log: c.log })];
  const kinds = new Set([...builtIn, ...tail].map((h) => h.effect));
  const handlers = [
    ...builtIn.map(replaced),
    ...given.filter((g) => !kinds.has(g.effect)),
    ...tail.map(replaced),
  ];
  const registry = effectRegistry(handlers);
  const readers = new Map<string, ResourceReader>([[BUDGET_RESOURCE, budgetReader(ledger, init.budgets)]]);
  for (const [name, reader] of Object.entries(init.readers ?? {})) readers.set(name, reader);
  const runner = effectRunner({
    registry,
    verbSpec: c.verbSpec,
    readers,
    reserved: init.reserved ?? reservedTypes([]),
    observer: c.observer,
    logger: c.logger,
  });
  const refundJobs = async (jobs: readonly string[]): Promise<void> => {
    for (const job of jobs) {
      try {
        for (const charge of await ledger.standingOf(job)) await ledger.refund(charge, 'refund');
      } catch (error) {
        c.logger.warn(
          { job, error: toPlexusError(error).message.slice(0, 200), event: 'runtime.refund_failed' },
          'runtime.refund_failed',
        );
      }
    }
  };
  return { ledger, registry, runner, refundJobs };
}
