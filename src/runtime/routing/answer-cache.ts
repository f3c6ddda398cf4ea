/**
 * The routing events and the answer cache behind the `local-cache` fallback step: every
 * successful answer of a forwarded request is recorded as `routing.answer.cached`, and the
 * projection `routing.answers` keeps the last one per (tenant, verb, input) — bounded to
 * {@link ANSWER_CACHE_MAX} entries, the oldest dropped first — so the cache survives a restart
 * and `plexus replay --verify` rebuilds it like any other state (D9).
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { sha256Hex } from '../../core/hash.js';
import type { JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import type { EventType } from '../../store/event-map.js';
import type { Projection } from '../../store/projection.js';

/** The event types written by the router. */
export const ROUTING_EVENTS = {
  /** A forwarded request succeeded; its answer may be served stale later. */
  answerCached: 'routing.answer.cached',
  /** A cached answer was served because the route failed. */
  answerServedStale: 'routing.answer.served_stale',
  /** A request was queued for delivery when its target is reachable again. */
  syncQueued: 'routing.sync.queued',
  /** A queued request was delivered. */
  syncDelivered: 'routing.sync.delivered',
  /** A queued request was given up (its delivery window ended). */
  syncAbandoned: 'routing.sync.abandoned',
} as const satisfies Readonly<Record<string, EventType>>;

/** One of {@link ROUTING_EVENTS}. */
export type RoutingEventType = (typeof ROUTING_EVENTS)[keyof typeof ROUTING_EVENTS];

/** The data of `routing.answer.cached`. */
export interface AnswerCachedData {
  readonly key: string;
  readonly verb: string;
  readonly agent: string;
  readonly at: string;
  readonly output: JsonValue;
}

/** The data of `routing.answer.served_stale`: a cached answer stood in for a failed route. */
export interface AnswerServedStaleData {
  /** RFC 3339. */
  readonly at: string;
  /** When the served answer was recorded, RFC 3339. */
  readonly cachedAt: string;
  /** The job that asked, or `null`. */
  readonly job: string | null;
  /** The request's envelope id. */
  readonly request: string;
}

/** The data of `routing.sync.queued`: a request waits for its target. */
export interface SyncQueuedData {
  /** RFC 3339. */
  readonly at: string;
  /** The job whose call was queued, or `null`. */
  readonly by: string | null;
  /** The delivery job. */
  readonly job: string;
  readonly reason: string;
  /** The request's envelope id. */
  readonly request: string;
  /** The target, as written in the route. */
  readonly target: string;
  readonly verb: string;
}

/** The data of `routing.sync.delivered`. */
export interface SyncDeliveredData {
  /** RFC 3339. */
  readonly at: string;
  readonly attempts: number;
  /** The delivery job, or `null`. */
  readonly job: string | null;
  /** The answer's envelope kind. */
  readonly kind: string;
  readonly request: string;
}

/** The data of `routing.sync.abandoned`. */
export interface SyncAbandonedData {
  /** RFC 3339. */
  readonly at: string;
  readonly attempts: number;
  /** The error code of the last failure. */
  readonly code: string;
  readonly job: string | null;
  readonly request: string;
}

declare module '../../store/event-map.js' {
  /** The router's events (`ROUTING_EVENTS`). */
  interface EventMap {
    'routing.answer.cached': AnswerCachedData;
    'routing.answer.served_stale': AnswerServedStaleData;
    'routing.sync.queued': SyncQueuedData;
    'routing.sync.delivered': SyncDeliveredData;
    'routing.sync.abandoned': SyncAbandonedData;
  }
}

/** One cached answer. */
export interface CachedAnswer {
  readonly verb: string;
  readonly agent: string;
  /** When it was recorded, ISO 8601. */
  readonly at: string;
  readonly output: JsonValue;
  /** The `seq` of the event that recorded it (eviction order). */
  readonly seq: number;
}

/** The cache: key → answer, in recording order. */
export type AnswerCacheState = Map<string, CachedAnswer>;

/** The most answers the cache keeps. */
export const ANSWER_CACHE_MAX = 1000;

/** The name of the answer cache projection. */
export const ANSWER_CACHE_PROJECTION_NAME = 'routing.answers';

/** The cache key of a request: SHA-256 of the JCS form of its tenant, verb (no `@version`) and input. */
export function answerKey(verb: string, input: JsonValue, tenantId: string | undefined): string {
  return sha256Hex(canonicalizeJcs({ input, tenant: tenantId ?? null, verb: stripVerbVersion(verb) }));
}

function isCachedData(data: JsonValue): data is JsonValue & AnswerCachedData {
  const d = data as Partial<AnswerCachedData> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.key === 'string' &&
    typeof d.verb === 'string' &&
    typeof d.agent === 'string' &&
    typeof d.at === 'string' &&
    'output' in d
  );
}

/** Applies one `routing.answer.cached` event (malformed ones are skipped). */
export function applyAnswerEvent(state: AnswerCacheState, event: Event): AnswerCacheState {
  if (event.type !== ROUTING_EVENTS.answerCached || !isCachedData(event.data)) return state;
  const d: AnswerCachedData = event.data;
  state.delete(d.key);
  state.set(d.key, { verb: d.verb, agent: d.agent, at: d.at, output: d.output, seq: event.seq });
  while (state.size > ANSWER_CACHE_MAX) {
    const oldest = state.keys().next();
    if (oldest.done === true) break;
    state.delete(oldest.value);
  }
  return state;
}

/** The answer cache projection. */
export const answerCacheProjection: Projection<AnswerCacheState> = {
  name: ANSWER_CACHE_PROJECTION_NAME,
  version: 1,
  filter: { type: ROUTING_EVENTS.answerCached },
  initial: () => new Map(),
  apply: applyAnswerEvent,
  toJson(state) {
    return { answers: Object.fromEntries([...state].map(([k, v]) => [k, v as unknown as JsonValue])) };
  },
  fromJson(json) {
    const answers = (json as { answers?: Record<string, CachedAnswer> } | null)?.answers ?? {};
    // JCS sorted the keys: restore recording order for eviction.
    return new Map(Object.entries(answers).sort(([, a], [, b]) => a.seq - b.seq));
  },
};
