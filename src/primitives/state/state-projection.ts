/**
 * The sessions projection of the state primitive: every session with its descriptive fields,
 * its budget limit, its key/value state and its episodes, folded from `state.*` events.
 * Pure: ids, times and durations are decided by the handler and written into the events.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventOf, type EventType } from '../../store/event-map.js';

/** Event types of the state primitive. */
export const STATE_EVENTS = {
  sessionCreated: 'state.session_created',
  stateSet: 'state.state_set',
  sessionEnded: 'state.session_ended',
  episodeRecorded: 'state.episode_recorded',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The state primitive's events (`STATE_EVENTS`). */
  interface EventMap {
    'state.session_created': SessionCreatedData;
    'state.state_set': StateSetData;
    'state.session_ended': SessionEndedData;
    'state.episode_recorded': EpisodeRecordedData;
  }
}

/** Data of `state.session_created`. */
export interface SessionCreatedData {
  readonly sessionId: string;
  /** Creation time, Unix ms. */
  readonly at: number;
  /** The session's budget limit in micro-units (D12). */
  readonly budget: number;
  readonly agentName?: string;
  readonly agentType?: string;
  readonly peerId?: string;
  readonly model?: string;
  readonly metadata?: JsonObject;
}

/** Data of `state.state_set`. */
export interface StateSetData {
  readonly sessionId: string;
  readonly key: string;
  readonly value: JsonValue;
  readonly at: number;
}

/** Data of `state.session_ended`. */
export interface SessionEndedData {
  readonly sessionId: string;
  readonly at: number;
  /** Milliseconds from creation to end. */
  readonly duration: number;
}

/** Data of `state.episode_recorded`. */
export interface EpisodeRecordedData {
  readonly sessionId: string;
  readonly episodeId: string;
  readonly outcome: string;
  /** In [−1, 1]. */
  readonly reward: number;
  readonly at: number;
}

/** One recorded episode. */
export interface EpisodeRecord {
  readonly episodeId: string;
  readonly outcome: string;
  readonly reward: number;
  readonly at: number;
}

/** One session as the projection holds it. */
export interface SessionRecord {
  readonly sessionId: string;
  /** The tenant that created it (`null` without one); other tenants do not see it. */
  readonly tenant: string | null;
  readonly createdAt: number;
  readonly budget: number;
  readonly agentName?: string;
  readonly agentType?: string;
  readonly peerId?: string;
  readonly model?: string;
  readonly metadata?: JsonObject;
  endedAt?: number;
  duration?: number;
  /** Key → value, in insertion order. */
  readonly state: Map<string, JsonValue>;
  readonly episodes: EpisodeRecord[];
}

/** The projection's state: session id → session. */
export interface SessionsState {
  readonly sessions: Map<string, SessionRecord>;
}

/** The name of the sessions projection. */
export const STATE_SESSIONS_PROJECTION_NAME = 'state.sessions';

const DESCRIPTIVE = ['agentName', 'agentType', 'peerId', 'model'] as const;

function created(event: EventOf<'state.session_created'>): SessionRecord {
  const d = event.data;
  const record: { -readonly [K in keyof SessionRecord]?: SessionRecord[K] } = {
    sessionId: d.sessionId,
    tenant: event.tenant ?? null,
    createdAt: d.at,
    budget: d.budget,
    state: new Map(),
    episodes: [],
  };
  for (const field of DESCRIPTIVE) {
    const value = d[field];
    if (value !== undefined) record[field] = value;
  }
  if (d.metadata !== undefined) record.metadata = d.metadata;
  return record as SessionRecord;
}

function apply(state: SessionsState, event: Event): SessionsState {
  const data = event.data as { readonly sessionId?: string };
  const createdEvent = eventOf(event, STATE_EVENTS.sessionCreated);
  if (createdEvent !== undefined) {
    const record = created(createdEvent);
    if (!state.sessions.has(record.sessionId)) state.sessions.set(record.sessionId, record);
    return state;
  }
  const session = typeof data.sessionId === 'string' ? state.sessions.get(data.sessionId) : undefined;
  if (session === undefined) return state;
  switch (event.type) {
    case STATE_EVENTS.stateSet: {
      const d = eventOf(event, STATE_EVENTS.stateSet)?.data;
      if (d === undefined) break; // never: the case matched its type
      session.state.set(d.key, d.value);
      break;
    }
    case STATE_EVENTS.sessionEnded: {
      const d = eventOf(event, STATE_EVENTS.sessionEnded)?.data;
      if (d === undefined) break; // never: the case matched its type
      if (session.endedAt === undefined) {
        session.endedAt = d.at;
        session.duration = d.duration;
      }
      break;
    }
    case STATE_EVENTS.episodeRecorded: {
      const d = eventOf(event, STATE_EVENTS.episodeRecorded)?.data;
      if (d === undefined) break; // never: the case matched its type
      session.episodes.push({ episodeId: d.episodeId, outcome: d.outcome, reward: d.reward, at: d.at });
      break;
    }
    default:
      break;
  }
  return state;
}

function recordToJson(r: SessionRecord): JsonObject {
  const out: JsonObject = {
    sessionId: r.sessionId,
    tenant: r.tenant,
    createdAt: r.createdAt,
    budget: r.budget,
    state: [...r.state].map(([k, v]) => [k, v]),
    episodes: r.episodes.map((e) => ({ ...e })),
  };
  for (const field of DESCRIPTIVE) {
    const value = r[field];
    if (value !== undefined) out[field] = value;
  }
  if (r.metadata !== undefined) out.metadata = r.metadata;
  if (r.endedAt !== undefined) out.endedAt = r.endedAt;
  if (r.duration !== undefined) out.duration = r.duration;
  return out;
}

function recordFromJson(json: JsonValue): SessionRecord {
  if (!isJsonObject(json)) throw new TypeError('a session must be an object');
  const pairs = json.state as [string, JsonValue][];
  const { episodes, ...rest } = json;
  delete rest.state;
  return {
    ...(rest as unknown as Omit<SessionRecord, 'state' | 'episodes'>),
    state: new Map(pairs),
    episodes: (episodes as unknown as EpisodeRecord[]).map((e) => ({ ...e })),
  };
}

/**
 * The sessions projection (`state.sessions`). Its JSON form lists sessions in creation order
 * and each session's state as `[key, value]` pairs in the order keys were first set (so keys
 * like `__proto__` stay data).
 */
export const sessionsProjection: Projection<SessionsState> = {
  name: STATE_SESSIONS_PROJECTION_NAME,
  version: 1,
  filter: { typePrefix: 'state.' },
  initial: () => ({ sessions: new Map() }),
  apply,
  toJson: (state) => ({ sessions: [...state.sessions.values()].map(recordToJson) }),
  fromJson: (json) => {
    const list = isJsonObject(json) && Array.isArray(json.sessions) ? json.sessions : [];
    return {
      sessions: new Map(list.map((item) => [(item as JsonObject).sessionId as string, recordFromJson(item)])),
    };
  },
};
