/**
 * The live budget ledger: the `runtime.ledger` projection kept up to date from the log,
 * and the one writer of its events. A charge is checked and appended under a lock per
 * budget (every budget of the charge, taken in sorted order), and the projection has
 * applied it before the next charge of those budgets is checked — so N concurrent charges
 * against a limit succeed exactly as often as the limit affords (D12: integer micro-units).
 */
import { PlexusError } from '../../core/errors.js';
import type { EventInput, EventLog, SignalOptions } from '../../store/event-log.js';
import { eventOf, type EventMeta } from '../../store/event-map.js';
import type { SnapshotStore } from '../../store/projection-snapshots.js';
import { verifyProjectionView, type ProjectionCheck } from '../../store/projection-verify.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import {
  LEDGER_EVENTS,
  ledgerProjection,
  spentOf,
  type LedgerCreditedData,
  type LedgerDebitedData,
  type LedgerState,
} from './ledger-projection.js';

/** One budget's part of a charge. */
export interface ChargeLine {
  /** The budget id (`tenant:acme`). */
  readonly budget: string;
  /** Micro-units (a whole number ≥ 0; 0 lines are not written). */
  readonly amount: number;
  /** The most the budget may have spent after this debit, micro-units; absent = metered only. */
  readonly limit?: number;
  /** Micro-units per meter that make up `amount`. */
  readonly meters: Readonly<Record<string, number>>;
}

/** What to charge: one id, one or more budgets, debited all or nothing. */
export interface ChargeRequest {
  /** The charge id (`<job>/<agent>` for a verb's charge). */
  readonly id: string;
  readonly lines: readonly ChargeLine[];
  readonly job?: string;
  readonly agent?: string;
  readonly verb?: string;
  /** The tenant the events belong to. */
  readonly tenant?: string;
}

/** A charge that was debited. */
export interface Charge {
  readonly id: string;
  /** The lines actually debited (amount > 0). */
  readonly lines: readonly ChargeLine[];
  readonly job?: string;
  readonly tenant?: string;
}

/** A budget's figures, micro-units. */
export interface BudgetFigures {
  readonly budget: string;
  readonly spent: number;
  /** Absent for a budget without a limit. */
  readonly limit?: number;
  /** `limit − spent` (never below 0); absent without a limit. */
  readonly remaining?: number;
}

/** Options of {@link budgetLedger}. */
export interface BudgetLedgerInit {
  readonly log: EventLog;
  /** Snapshots of the projection. @default none (rebuilt from the log) */
  readonly snapshots?: SnapshotStore;
  /** The clock, Unix ms (the events' `at`). @default Date.now */
  readonly now?: () => number;
}

/** The ledger. */
export interface BudgetLedger {
  /** The live projection (for `verify` and diagnostics). */
  readonly view: ProjectionView<LedgerState>;
  /** Catches up with the log, then follows it. */
  start(options?: SignalOptions): Promise<void>;
  stop(): Promise<void>;
  /** A budget's figures now. */
  figures(budget: string, limit?: number): BudgetFigures;
  /**
   * Debits every line, all or nothing, and resolves once the projection has the debits.
   * @throws PlexusError `BUDGET_EXCEEDED` naming the budget with `details {budget, requested,
   *   remaining, limit}` (micro-units) when a line would take its budget past its limit —
   *   nothing is written then; `INVALID_PARAMS` for a malformed amount; the log's errors.
   */
  charge(request: ChargeRequest, options?: SignalOptions): Promise<Charge>;
  /** Gives a charge back (one `ledger.credited` per line). */
  refund(charge: Charge, reason?: string, options?: SignalOptions): Promise<void>;
  /** Adds `amount` micro-units back to a budget (a top-up of a metered budget's spending). */
  credit(budget: string, amount: number, reason: string, options?: SignalOptions): Promise<void>;
  /**
   * The charge `id` of `job` still standing (debited and not refunded), read back from the
   * log — a job run again after a restart is not charged twice.
   */
  standing(job: string, id: string, options?: SignalOptions): Promise<Charge | undefined>;
  /** Every charge of `job` still standing (debited and not refunded), read back from the log. */
  standingOf(job: string, options?: SignalOptions): Promise<readonly Charge[]>;
  /** Rebuilds the projection from the log and compares it with the live one. */
  verify(options?: SignalOptions): Promise<ProjectionCheck>;
}

function checkAmount(what: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${what} must be a whole number of micro-units ≥ ${min}, got ${String(value)}`,
    );
  }
}

/** Micro-units as units for a message: `300000` → `0.3`. */
export function unitsText(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${Math.floor(abs / 1_000_000)}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The `BUDGET_EXCEEDED` error of a line its budget cannot pay. */
export function budgetExceeded(budget: string, requested: number, spent: number, limit: number): PlexusError {
  const remaining = Math.max(0, limit - spent);
  return new PlexusError(
    'BUDGET_EXCEEDED',
    `budget ${budget} cannot pay ${unitsText(requested)} (${requested} micro-units): ${unitsText(remaining)} of its limit ${unitsText(limit)} remaining`,
    { details: { budget, requested, remaining, limit } },
  );
}

/**
 * Creates the ledger over a started log.
 *
 * @example
 * const ledger = budgetLedger({ log }); await ledger.start();
 * await ledger.charge({ id: 'j1/echo', lines: [{ budget: 'tenant:acme', amount: 1000, limit: 5000, meters: { calls: 1000 } }] });
 */
export function budgetLedger(init: BudgetLedgerInit): BudgetLedger {
  const { log } = init;
  const now = init.now ?? Date.now;
  const view = projectionView({
    log,
    projection: ledgerProjection,
    ...(init.snapshots === undefined ? {} : { snapshots: init.snapshots }),
  });
  const lock = keyedLock();

  const meta = (tenant: string | undefined, job: string | undefined): EventMeta => ({
    ...(job === undefined ? {} : { causation: job }),
    ...(tenant === undefined ? {} : { tenant }),
  });

  const commit = async (events: readonly EventInput[], options: SignalOptions): Promise<void> => {
    if (events.length === 0) return;
    const written = await log.append(events, options);
    await view.waitFor(written[written.length - 1]?.seq ?? 0, options);
  };

  const figures = (budget: string, limit?: number): BudgetFigures => {
    const spent = spentOf(view.state().get(budget));
    return limit === undefined
      ? { budget, spent }
      : { budget, spent, limit, remaining: Math.max(0, limit - spent) };
  };

  const ledger: BudgetLedger = {
    view,
    start: (options) => view.start(options),
    stop: () => view.stop(),
    figures,

    async charge(request, options = {}) {
      const lines = request.lines.filter((line) => {
        checkAmount(`the charge of budget ${line.budget}`, line.amount, 0);
        if (line.limit !== undefined) checkAmount(`the limit of budget ${line.budget}`, line.limit, 0);
        return line.amount > 0;
      });
      const charge: Charge = {
        id: request.id,
        lines,
        ...(request.job === undefined ? {} : { job: request.job }),
        ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
      };
      if (lines.length === 0) return charge;
      return lock.runAll(
        lines.map((l) => l.budget),
        async () => {
          const at = now();
          for (const line of lines) {
            if (line.limit === undefined) continue;
            const spent = spentOf(view.state().get(line.budget));
            if (spent + line.amount > line.limit)
              throw budgetExceeded(line.budget, line.amount, spent, line.limit);
          }
          const events = lines.map((line): EventInput => {
            const data: LedgerDebitedData = {
              at,
              budget: line.budget,
              amount: line.amount,
              charge: request.id,
              limit: line.limit ?? null,
              meters: { ...line.meters },
              ...(request.job === undefined ? {} : { job: request.job }),
              ...(request.agent === undefined ? {} : { agent: request.agent }),
              ...(request.verb === undefined ? {} : { verb: request.verb }),
            };
            return {
              type: LEDGER_EVENTS.debited,
              data,
              ...meta(request.tenant, request.job),
            };
          });
          await commit(events, options);
          return charge;
        },
      );
    },

    async refund(charge, reason = 'refund', options = {}) {
      if (charge.lines.length === 0) return;
      await lock.runAll(
        charge.lines.map((l) => l.budget),
        () => {
          const at = now();
          const events = charge.lines.map((line): EventInput => {
            const data: LedgerCreditedData = {
              at,
              budget: line.budget,
              amount: line.amount,
              charge: charge.id,
              reason,
              ...(charge.job === undefined ? {} : { job: charge.job }),
            };
            return {
              type: LEDGER_EVENTS.credited,
              data,
              ...meta(charge.tenant, charge.job),
            };
          });
          return commit(events, options);
        },
      );
    },

    async credit(budget, amount, reason, options = {}) {
      checkAmount(`the credit of budget ${budget}`, amount, 1);
      await lock.run(budget, () => {
        const data: LedgerCreditedData = { at: now(), budget, amount, reason };
        return commit([{ type: LEDGER_EVENTS.credited, data }], options);
      });
    },

    async standing(job, id, options = {}) {
      return (await ledger.standingOf(job, options)).find((c) => c.id === id);
    },

    async standingOf(job, options = {}) {
      const events = await log.read({
        causation: job,
        type: [LEDGER_EVENTS.debited, LEDGER_EVENTS.credited],
        ...options,
      });
      // charge id → budget → the line still standing
      const charges = new Map<string, { lines: Map<string, ChargeLine>; tenant: string | undefined }>();
      for (const event of events) {
        const debit = eventOf(event, LEDGER_EVENTS.debited);
        const d = debit?.data ?? eventOf(event, LEDGER_EVENTS.credited)?.data;
        // a top-up credit names no charge
        if (d?.charge === undefined) continue;
        let charge = charges.get(d.charge);
        if (charge === undefined) {
          charge = { lines: new Map(), tenant: event.tenant };
          charges.set(d.charge, charge);
        }
        if (debit !== undefined) {
          const { budget, amount, meters, limit } = debit.data;
          charge.lines.set(budget, { budget, amount, meters, ...(limit === null ? {} : { limit }) });
        } else charge.lines.delete(d.budget);
      }
      return [...charges]
        .filter(([, c]) => c.lines.size > 0)
        .map(([id, c]) => ({
          id,
          lines: [...c.lines.values()],
          job,
          ...(c.tenant === undefined ? {} : { tenant: c.tenant }),
        }));
    },

    verify: (options = {}) => verifyProjectionView(log, view, options),
  };
  return ledger;
}
