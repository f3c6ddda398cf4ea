/**
 * The budget ledger as a projection of the log (D9, D12): every debit and credit is an
 * event (`ledger.debited`, `ledger.credited`) in integer micro-units, and a budget's
 * balance is the fold of its events. Budget ids name whose money it is: `tenant:<id>`,
 * `principal:<id>`, `ucan:<cid>/<meter>` (see docs/effects.md).
 */
import { isJsonObject, type JsonValue } from '../../core/json.js';
import { eventHandlers, type EventType } from '../../store/event-map.js';
import type { Projection } from '../../store/projection.js';

/** Event types of the budget ledger. */
export const LEDGER_EVENTS = {
  /** An amount was taken from a budget (a charge, before the verb's handler ran). */
  debited: 'ledger.debited',
  /** An amount was given back to a budget (a refund of a failed job's charge, or a top-up). */
  credited: 'ledger.credited',
} as const satisfies Readonly<Record<string, EventType>>;

/** Data of `ledger.debited`. */
export interface LedgerDebitedData {
  /** Unix ms. */
  readonly at: number;
  /** The budget id. */
  readonly budget: string;
  /** Micro-units taken (> 0). */
  readonly amount: number;
  /** The charge this debit belongs to (`<job>/<agent>`): one charge may debit several budgets. */
  readonly charge: string;
  /** The limit the debit was checked against (micro-units), or `null` for a metered-only budget. */
  readonly limit: number | null;
  /** Micro-units per meter that make up `amount`. */
  readonly meters: { readonly [meter: string]: number };
  /** The job, the agent that ran it and the verb, when the debit is a verb's charge. */
  readonly job?: string;
  readonly agent?: string;
  readonly verb?: string;
}

/** Data of `ledger.credited`. */
export interface LedgerCreditedData {
  /** Unix ms. */
  readonly at: number;
  readonly budget: string;
  /** Micro-units given back (> 0). */
  readonly amount: number;
  /** The charge refunded, when the credit is a refund. */
  readonly charge?: string;
  /** Why: `refund` (the job did not complete) or `top-up`. */
  readonly reason: string;
  readonly job?: string;
}

declare module '../../store/event-map.js' {
  /** The budget ledger's events (`LEDGER_EVENTS`). */
  interface EventMap {
    'ledger.debited': LedgerDebitedData;
    'ledger.credited': LedgerCreditedData;
  }
}

/** One budget's account. */
export interface BudgetAccount {
  /** Micro-units debited in total. */
  debited: number;
  /** Micro-units credited in total. */
  credited: number;
  /** Debits and credits folded. */
  entries: number;
}

/** State of `runtime.ledger`: budget id → account, in the order budgets first appeared. */
export type LedgerState = Map<string, BudgetAccount>;

/** Micro-units spent from an account: debits less credits. */
export function spentOf(account: BudgetAccount | undefined): number {
  return account === undefined ? 0 : account.debited - account.credited;
}

/** The account of `budget` (created empty on its first event), counting one more entry. */
function accountOf(state: LedgerState, budget: string): BudgetAccount {
  let account = state.get(budget);
  if (account === undefined) {
    account = { debited: 0, credited: 0, entries: 0 };
    state.set(budget, account);
  }
  account.entries += 1;
  return account;
}

/** The projection name of the ledger. */
export const LEDGER_PROJECTION_NAME = 'runtime.ledger';

/** The `runtime.ledger` projection. */
export const ledgerProjection: Projection<LedgerState> = {
  name: LEDGER_PROJECTION_NAME,
  version: 1,
  filter: { type: [LEDGER_EVENTS.debited, LEDGER_EVENTS.credited] },
  initial: () => new Map(),
  apply: eventHandlers<LedgerState>({
    'ledger.debited': (state, event) => {
      accountOf(state, event.data.budget).debited += event.data.amount;
      return state;
    },
    'ledger.credited': (state, event) => {
      accountOf(state, event.data.budget).credited += event.data.amount;
      return state;
    },
  }),
  toJson: (state): JsonValue => ({
    budgets: [...state].map(([id, a]): JsonValue => [
      id,
      { credited: a.credited, debited: a.debited, entries: a.entries },
    ]),
  }),
  fromJson: (json) => {
    const list = (isJsonObject(json) && Array.isArray(json['budgets']) ? json['budgets'] : []) as unknown as [
      string,
      BudgetAccount,
    ][];
    return new Map(
      list.map(([id, a]) => [id, { debited: a.debited, credited: a.credited, entries: a.entries }]),
    );
  },
};
