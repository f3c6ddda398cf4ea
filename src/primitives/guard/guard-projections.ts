/**
 * The guard primitive's ledgers, as projections of the log (D9): `guard.budgets` (micro-units
 * consumed per session, D12) and `guard.rate_limits` (fixed windows per tenant, key and window
 * length). Reducers are pure: the time of each hit is written into its event by the handler.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** Event types of the guard primitive. */
export const GUARD_EVENTS = {
  budgetConsumed: 'guard.budget_consumed',
  rateLimitHit: 'guard.rate_limit_hit',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The guard primitive's events (`GUARD_EVENTS`). */
  interface EventMap {
    'guard.budget_consumed': BudgetConsumedData;
    'guard.rate_limit_hit': RateLimitHitData;
  }
}

/** Data of `guard.budget_consumed`. */
export interface BudgetConsumedData {
  readonly sessionId: string;
  /** Micro-units consumed by this call (> 0). */
  readonly amount: number;
  readonly description?: string;
  /** Unix ms. */
  readonly at: number;
}

/** Data of `guard.rate_limit_hit` (one counted, allowed request). */
export interface RateLimitHitData {
  /** The caller's key (the tenant is the event's `tenant`). */
  readonly key: string;
  /** Window length, ms. */
  readonly windowMs: number;
  /** The limit the caller asked for (kept for audit). */
  readonly limit: number;
  /** Unix ms. */
  readonly at: number;
}

/** One session's consumption. */
export interface BudgetEntry {
  /** Micro-units consumed. */
  consumed: number;
  /** Number of consumptions. */
  count: number;
}

/** State of `guard.budgets`: session id → consumption. */
export interface BudgetsState {
  readonly sessions: Map<string, BudgetEntry>;
}

/** One open rate-limit window. */
export interface RateWindow {
  /** Unix ms of the window's first counted request. */
  readonly start: number;
  readonly windowMs: number;
  /** Requests counted in it. */
  count: number;
}

/** State of `guard.rate_limits`. */
export interface RateLimitsState {
  /** Scoped key ({@link rateWindowKey}) → window. */
  readonly windows: Map<string, RateWindow>;
  /** Hits folded so far (drives the deterministic pruning of expired windows). */
  hits: number;
}

/** Expired windows are dropped every this many hits (at the hit's own time). */
export const RATE_PRUNE_EVERY = 1024;

/** The key of a window: tenant, window length and the caller's key. */
export function rateWindowKey(tenant: string | undefined, windowMs: number, key: string): string {
  return `${tenant ?? ''}\u0000${windowMs}\u0000${key}`;
}

/** True when `window` still counts requests at time `at` (a clock that went back stays inside). */
export function windowOpen(window: RateWindow | undefined, at: number): window is RateWindow {
  return window !== undefined && at < window.start + window.windowMs;
}

/** The `guard.budgets` projection. */
export const budgetsProjection: Projection<BudgetsState> = {
  name: 'guard.budgets',
  version: 1,
  filter: { type: GUARD_EVENTS.budgetConsumed },
  initial: () => ({ sessions: new Map() }),
  apply(state, event: Event) {
    const d = eventOf(event, GUARD_EVENTS.budgetConsumed)?.data;
    if (d === undefined) return state; // the filter lets only this type through
    const entry = state.sessions.get(d.sessionId);
    if (entry === undefined) state.sessions.set(d.sessionId, { consumed: d.amount, count: 1 });
    else {
      entry.consumed += d.amount;
      entry.count += 1;
    }
    return state;
  },
  toJson: (state) => ({
    sessions: [...state.sessions].map(([id, e]) => [id, { consumed: e.consumed, count: e.count }]),
  }),
  fromJson: (json) => {
    const list = (isJsonObject(json) ? json.sessions : []) as [string, BudgetEntry][];
    return { sessions: new Map(list.map(([id, e]) => [id, { consumed: e.consumed, count: e.count }])) };
  },
};

/** The `guard.rate_limits` projection. */
export const rateLimitsProjection: Projection<RateLimitsState> = {
  name: 'guard.rate_limits',
  version: 1,
  filter: { type: GUARD_EVENTS.rateLimitHit },
  initial: () => ({ windows: new Map(), hits: 0 }),
  apply(state, event: Event) {
    const d = eventOf(event, GUARD_EVENTS.rateLimitHit)?.data;
    if (d === undefined) return state; // the filter lets only this type through
    const key = rateWindowKey(event.tenant, d.windowMs, d.key);
    const window = state.windows.get(key);
    if (windowOpen(window, d.at)) window.count += 1;
    else {
      state.windows.delete(key); // re-inserted last: the JSON order follows the log
      state.windows.set(key, { start: d.at, windowMs: d.windowMs, count: 1 });
    }
    state.hits += 1;
    if (state.hits % RATE_PRUNE_EVERY === 0) {
      for (const [k, w] of state.windows) if (!windowOpen(w, d.at)) state.windows.delete(k);
    }
    return state;
  },
  toJson: (state): JsonValue => ({
    hits: state.hits,
    windows: [...state.windows].map(([k, w]): JsonValue => [
      k,
      { start: w.start, windowMs: w.windowMs, count: w.count },
    ]),
  }),
  fromJson: (json) => {
    const o = isJsonObject(json) ? json : ({} as JsonObject);
    const list = (Array.isArray(o.windows) ? o.windows : []) as unknown as [string, RateWindow][];
    return {
      hits: typeof o.hits === 'number' ? o.hits : 0,
      windows: new Map(list.map(([k, w]) => [k, { start: w.start, windowMs: w.windowMs, count: w.count }])),
    };
  },
};
