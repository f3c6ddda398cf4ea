/**
 * The registry as a projection of the log (D9): folding `agent.registered`, `agent.updated`
 * and `agent.removed` gives every card with its revision and verb specs. The registry's live
 * state and a rebuild from scratch have the same canonical text.
 */
import type { JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { Event } from '../../core/records/event.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { Projection } from '../../store/projection.js';
import { RUNTIME_EVENTS, type AgentCardEventData, type AgentRemovedData } from '../events.js';

/** One registered agent. */
export interface RegistryEntry {
  /** The card as stored (with `revision` and `origin`). */
  readonly card: AgentCard;
  /** The verb specs registered with it. */
  readonly verbs: readonly VerbSpec[];
}

/** The registry state: agent id → entry. */
export type RegistryState = Map<string, RegistryEntry>;

/** The name of the registry projection. */
export const REGISTRY_PROJECTION_NAME = 'runtime.registry';

function isCardData(data: JsonValue): data is JsonValue & AgentCardEventData {
  const d = data as Partial<AgentCardEventData> | null;
  return typeof d === 'object' && d !== null && typeof d.card?.id === 'string' && Array.isArray(d.verbs);
}

/**
 * Applies one agent event. Revisions are counted here: the first registration of an id is
 * revision 1 and every later registration adds 1 (Nova26 Req. 1.5), so a rebuild gives the
 * same numbers as the live registry. Malformed events are skipped.
 */
export function applyRegistryEvent(state: RegistryState, event: Event): RegistryState {
  switch (event.type) {
    case RUNTIME_EVENTS.agentRegistered:
    case RUNTIME_EVENTS.agentUpdated: {
      if (!isCardData(event.data)) return state;
      const { card, verbs } = event.data;
      const revision = (state.get(card.id)?.card.revision ?? 0) + 1;
      state.set(card.id, { card: { ...card, revision }, verbs });
      return state;
    }
    case RUNTIME_EVENTS.agentRemoved: {
      const id = (event.data as Partial<AgentRemovedData> | null)?.id;
      if (typeof id === 'string') state.delete(id);
      return state;
    }
    default:
      return state;
  }
}

/** The registry projection. */
export const registryProjection: Projection<RegistryState> = {
  name: REGISTRY_PROJECTION_NAME,
  version: 1,
  filter: {
    type: [RUNTIME_EVENTS.agentRegistered, RUNTIME_EVENTS.agentUpdated, RUNTIME_EVENTS.agentRemoved],
  },
  initial: () => new Map(),
  apply: applyRegistryEvent,
  toJson(state) {
    const agents = Object.fromEntries(
      [...state].map(([id, e]) => [id, { card: e.card, verbs: e.verbs } as unknown as JsonValue]),
    );
    return { agents };
  },
  fromJson(json) {
    const agents = (json as { agents?: Record<string, RegistryEntry> } | null)?.agents ?? {};
    return new Map(Object.entries(agents));
  },
};
