/**
 * The self-improving primitive's durable state: the experience library of every tenant,
 * folded from `improving.*` events (D9). Trajectory ids, redacted content, states, usage
 * counts, gossip results and augmentations are all decided by the handlers and carried in the
 * events, so the reducer is pure and a rebuild equals the live state.
 */
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import type { Augmentation, Trajectory, TrajectoryState } from './trajectory.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** The improving event types. */
export const IMPROVING_EVENTS = {
  trajectoryRecorded: 'improving.trajectory_recorded',
  trajectoryReceived: 'improving.trajectory_received',
  trajectoryGossiped: 'improving.trajectory_gossiped',
  exemplarsServed: 'improving.exemplars_served',
  curated: 'improving.curated',
  augmented: 'improving.augmented',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The improving primitive's events (`IMPROVING_EVENTS`). */
  interface EventMap {
    'improving.trajectory_recorded': TrajectoryAddedData;
    'improving.trajectory_received': TrajectoryAddedData;
    'improving.trajectory_gossiped': TrajectoryGossipedData;
    'improving.exemplars_served': ExemplarsServedData;
    'improving.curated': CuratedData;
    'improving.augmented': AugmentedData;
  }
}

/** `improving.trajectory_recorded` / `improving.trajectory_received`: a trajectory enters the library. */
export interface TrajectoryAddedData {
  /** The stored trajectory (redacted); its `tenant` is the event's. */
  readonly trajectory: Trajectory;
  /** Trajectories evicted to keep the task type's library within its cap. */
  readonly evicted: readonly string[];
}

/** `improving.trajectory_gossiped`: the result of publishing a trajectory. */
export interface TrajectoryGossipedData {
  readonly trajectoryId: string;
  readonly topic: string;
  readonly gossipedTo: number;
  /** Why publishing failed, or null. */
  readonly error: string | null;
  readonly at: string;
}

/** `improving.exemplars_served`: trajectories handed out as exemplars (usage counts +1). */
export interface ExemplarsServedData {
  readonly taskType: string;
  readonly trajectoryIds: readonly string[];
  readonly at: string;
}

/** `improving.curated`: trajectories removed by curation. */
export interface CuratedData {
  readonly taskType: string;
  readonly strategy: string;
  readonly pruned: readonly string[];
  readonly at: string;
}

/** `improving.augmented`: a trajectory augmented. */
export interface AugmentedData {
  readonly trajectoryId: string;
  readonly newState: TrajectoryState;
  readonly augmentation: Augmentation;
}

/** The library: trajectories by {@link trajectoryKey}, and each tenant's task types. */
export interface ImprovingState {
  readonly trajectories: Map<string, Trajectory>;
  /** {@link libraryKey} → trajectory ids of that tenant and task type, oldest first. */
  readonly libraries: Map<string, Set<string>>;
}

/** The name of the improving projection. */
export const IMPROVING_PROJECTION_NAME = 'primitives.improving';

/** The state key of a trajectory. */
export function trajectoryKey(tenant: string | null | undefined, trajectoryId: string): string {
  return JSON.stringify([tenant ?? null, trajectoryId]);
}

/** The state key of a task type's library. */
export function libraryKey(tenant: string | null | undefined, taskType: string): string {
  return JSON.stringify([tenant ?? null, taskType]);
}

function insert(state: ImprovingState, t: Trajectory): void {
  state.trajectories.set(trajectoryKey(t.tenant, t.trajectoryId), t);
  const key = libraryKey(t.tenant, t.taskType);
  let lib = state.libraries.get(key);
  if (lib === undefined) {
    lib = new Set();
    state.libraries.set(key, lib);
  }
  lib.add(t.trajectoryId);
}

function remove(state: ImprovingState, tenant: string | null, id: string): void {
  const key = trajectoryKey(tenant, id);
  const t = state.trajectories.get(key);
  if (t === undefined) return;
  state.trajectories.delete(key);
  const lkey = libraryKey(tenant, t.taskType);
  const lib = state.libraries.get(lkey);
  lib?.delete(id);
  if (lib?.size === 0) state.libraries.delete(lkey);
}

function update(
  state: ImprovingState,
  tenant: string | null,
  id: string,
  change: (t: Trajectory) => Trajectory,
): void {
  const key = trajectoryKey(tenant, id);
  const t = state.trajectories.get(key);
  if (t !== undefined) state.trajectories.set(key, change(t));
}

/** Applies one improving event (malformed events are skipped). */
export function applyImprovingEvent(state: ImprovingState, event: Event): ImprovingState {
  const data = event.data;
  if (!isJsonObject(data)) return state;
  const tenant = event.tenant ?? null;
  switch (event.type) {
    case IMPROVING_EVENTS.trajectoryRecorded:
    case IMPROVING_EVENTS.trajectoryReceived: {
      const d = eventOf(event, event.type)?.data;
      if (d === undefined) return state; // never: the case matched its type
      if (!isJsonObject(d.trajectory)) return state;
      for (const id of d.evicted) remove(state, tenant, id);
      insert(state, { ...d.trajectory, tenant });
      return state;
    }
    case IMPROVING_EVENTS.trajectoryGossiped: {
      const d = eventOf(event, IMPROVING_EVENTS.trajectoryGossiped)?.data;
      if (d === undefined) return state; // never: the case matched its type
      update(state, tenant, d.trajectoryId, (t) => ({ ...t, gossipedTo: d.gossipedTo }));
      return state;
    }
    case IMPROVING_EVENTS.exemplarsServed: {
      const d = eventOf(event, IMPROVING_EVENTS.exemplarsServed)?.data;
      if (d === undefined) return state; // never: the case matched its type
      for (const id of d.trajectoryIds)
        update(state, tenant, id, (t) => ({ ...t, usageCount: t.usageCount + 1 }));
      return state;
    }
    case IMPROVING_EVENTS.curated: {
      const d = eventOf(event, IMPROVING_EVENTS.curated)?.data;
      if (d === undefined) return state; // never: the case matched its type
      for (const id of d.pruned) remove(state, tenant, id);
      return state;
    }
    case IMPROVING_EVENTS.augmented: {
      const d = eventOf(event, IMPROVING_EVENTS.augmented)?.data;
      if (d === undefined) return state; // never: the case matched its type
      update(state, tenant, d.trajectoryId, (t) => ({
        ...t,
        state: d.newState,
        augmentation: d.augmentation,
      }));
      return state;
    }
    default:
      return state;
  }
}

/** The improving projection. */
export const improvingProjection: Projection<ImprovingState> = {
  name: IMPROVING_PROJECTION_NAME,
  version: 1,
  filter: { typePrefix: 'improving.' },
  initial: () => ({ trajectories: new Map(), libraries: new Map() }),
  apply: applyImprovingEvent,
  toJson(state) {
    // Library order is insertion order of the trajectories map, so the list alone rebuilds both.
    return { trajectories: [...state.trajectories.values()] } as unknown as JsonValue;
  },
  fromJson(json) {
    const list = (json as { trajectories?: Trajectory[] } | null)?.trajectories ?? [];
    const state: ImprovingState = { trajectories: new Map(), libraries: new Map() };
    for (const t of list) insert(state, t);
    return state;
  },
};
