/**
 * The memories projection of the memory primitive: every live memory (content, session,
 * metadata, tier, placement, creation time) folded from `memory.*` events, in log order.
 * Pure: ids, times and placement are decided by the handler and written into the events.
 * Vectors are not part of it (the derived ANN index is built by `memoryIndexProjection`).
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import type { EventType } from '../../store/event-map.js';

/** Event types of the memory primitive. */
export const MEMORY_EVENTS = {
  stored: 'memory.stored',
  deleted: 'memory.deleted',
  archived: 'memory.archived',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The memory primitive's events (`MEMORY_EVENTS`). */
  interface EventMap {
    'memory.stored': MemoryStoredData;
    'memory.deleted': MemoryDeletedData;
    'memory.archived': MemoryArchivedData;
  }
}

/** The two tiers: `working` (active context) and `archival` (kept, searched on request). */
export const MEMORY_TIERS = ['working', 'archival'] as const;

/** A tier. */
export type MemoryTier = (typeof MEMORY_TIERS)[number];

/** Data of `memory.stored`. */
export interface MemoryStoredData {
  readonly id: string;
  readonly content: string;
  readonly sessionId: string | null;
  readonly metadata: JsonObject;
  readonly tier: MemoryTier;
  /** The primary owner on the hash ring. */
  readonly peerId: string;
  /** The other owners (replicas), in ring order. */
  readonly replicas: readonly string[];
  /** RFC 3339 creation time. */
  readonly createdAt: string;
  /** The embedder id the vector belongs to. */
  readonly embedder: string;
  /** Base64 little-endian float32 vector; absent when the embedder is deterministic. */
  readonly vector?: string;
}

/** Data of `memory.deleted`. */
export interface MemoryDeletedData {
  readonly id: string;
  readonly deletedAt: string;
}

/** Data of `memory.archived`. */
export interface MemoryArchivedData {
  readonly id: string;
  readonly archivedAt: string;
}

/** One live memory. */
export interface MemoryRecord {
  readonly id: string;
  readonly content: string;
  readonly sessionId: string | null;
  readonly metadata: JsonObject;
  readonly tier: MemoryTier;
  readonly peerId: string;
  readonly replicas: readonly string[];
  readonly createdAt: string;
  readonly archivedAt?: string;
  /** The tenant of the event that stored it (null when none). */
  readonly tenant: string | null;
  readonly embedder: string;
}

/** The projection's state: memories by id (log order) and, derived, ids by tenant + session. */
export interface MemoriesState {
  readonly memories: Map<string, MemoryRecord>;
  /** `sessionKey(tenant, sessionId)` → ids in log order (rebuilt, not serialised). */
  readonly bySession: Map<string, string[]>;
}

/** The key of a tenant's session in {@link MemoriesState.bySession}. */
export function sessionKey(tenant: string | null, sessionId: string): string {
  return `${tenant ?? ''}\u0000${sessionId}`;
}

const isTier = (v: unknown): v is MemoryTier => v === 'working' || v === 'archival';

/** Reads a `memory.stored` data object, or undefined when it is not one. */
export function storedData(data: JsonValue): MemoryStoredData | undefined {
  if (!isJsonObject(data)) return undefined;
  const { id, content, sessionId, metadata, tier, peerId, replicas, createdAt, embedder } = data;
  if (
    typeof id !== 'string' ||
    typeof content !== 'string' ||
    (sessionId !== null && typeof sessionId !== 'string') ||
    !isJsonObject(metadata) ||
    !isTier(tier) ||
    typeof peerId !== 'string' ||
    !Array.isArray(replicas) ||
    !replicas.every((r) => typeof r === 'string') ||
    typeof createdAt !== 'string' ||
    typeof embedder !== 'string'
  ) {
    return undefined;
  }
  return data as unknown as MemoryStoredData;
}

const addToSession = (state: MemoriesState, record: MemoryRecord): void => {
  if (record.sessionId === null) return;
  const key = sessionKey(record.tenant, record.sessionId);
  const ids = state.bySession.get(key);
  if (ids === undefined) state.bySession.set(key, [record.id]);
  else ids.push(record.id);
};

const recordToJson = (r: MemoryRecord): JsonObject => ({
  id: r.id,
  content: r.content,
  sessionId: r.sessionId,
  metadata: r.metadata,
  tier: r.tier,
  peerId: r.peerId,
  replicas: [...r.replicas],
  createdAt: r.createdAt,
  ...(r.archivedAt === undefined ? {} : { archivedAt: r.archivedAt }),
  tenant: r.tenant,
  embedder: r.embedder,
});

function apply(state: MemoriesState, event: Event): MemoriesState {
  const data = event.data;
  if (event.type === MEMORY_EVENTS.stored) {
    const d = storedData(data);
    if (d === undefined || state.memories.has(d.id)) return state;
    const record: MemoryRecord = {
      id: d.id,
      content: d.content,
      sessionId: d.sessionId,
      metadata: d.metadata,
      tier: d.tier,
      peerId: d.peerId,
      replicas: [...d.replicas],
      createdAt: d.createdAt,
      tenant: event.tenant ?? null,
      embedder: d.embedder,
    };
    state.memories.set(d.id, record);
    addToSession(state, record);
    return state;
  }
  if (!isJsonObject(data) || typeof data.id !== 'string') return state;
  const record = state.memories.get(data.id);
  if (record === undefined) return state;
  if (event.type === MEMORY_EVENTS.deleted) {
    state.memories.delete(record.id);
    if (record.sessionId !== null) {
      const key = sessionKey(record.tenant, record.sessionId);
      const ids = state.bySession.get(key)?.filter((id) => id !== record.id) ?? [];
      if (ids.length === 0) state.bySession.delete(key);
      else state.bySession.set(key, ids);
    }
  } else if (event.type === MEMORY_EVENTS.archived && typeof data.archivedAt === 'string') {
    state.memories.set(record.id, { ...record, tier: 'archival', archivedAt: data.archivedAt });
  }
  return state;
}

/** The `memory.memories` projection. */
export const memoriesProjection: Projection<MemoriesState> = {
  name: 'memory.memories',
  version: 1,
  filter: { typePrefix: 'memory.' },
  initial: () => ({ memories: new Map(), bySession: new Map() }),
  apply,
  toJson: (state) => ({ memories: [...state.memories.values()].map(recordToJson) }),
  fromJson: (json) => {
    const state: MemoriesState = { memories: new Map(), bySession: new Map() };
    const list = isJsonObject(json) && Array.isArray(json.memories) ? json.memories : [];
    for (const item of list) {
      if (!isJsonObject(item)) continue;
      const d = storedData(item);
      if (d === undefined) continue;
      const record: MemoryRecord = {
        id: d.id,
        content: d.content,
        sessionId: d.sessionId,
        metadata: d.metadata,
        tier: d.tier,
        peerId: d.peerId,
        replicas: [...d.replicas],
        createdAt: d.createdAt,
        ...(typeof item.archivedAt === 'string' ? { archivedAt: item.archivedAt } : {}),
        tenant: typeof item.tenant === 'string' ? item.tenant : null,
        embedder: d.embedder,
      };
      state.memories.set(record.id, record);
      addToSession(state, record);
    }
    return state;
  },
};
