/**
 * A2A agents added at run time with `bridge.announceA2AAgent` (seed 003 §10.2; issue 14 item 4;
 * docs/decisions/a2a.md A2A-19), kept in the event log (`a2a.bridge.agent_announced`, node-wide,
 * not tenant-scoped) through the bridges' shared registrations (`../bridge/bridge-registrations.ts`)
 * and read back when the bridge starts: an announced agent is bridged again after a restart,
 * unless a later `a2a.bridge.agent_removed` (`bridge.removeA2AAgent`, A2A-22) removed it.
 */
import type { JsonObject } from '../../core/json.js';
import type { RegistrationKind } from '../bridge/bridge-registrations.js';
import { parseA2aAgentEntry, type A2aAgentEntry } from './a2a-agent-entry.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An A2A agent was announced to the bridge at run time (the entry, with its name). */
    'a2a.bridge.agent_announced': JsonObject;
    /** An announced A2A agent was removed at run time (`{name, removedBy}`, A2A-22). */
    'a2a.bridge.agent_removed': JsonObject;
  }
}

/** The event type of an announcement. */
export const A2A_AGENT_ANNOUNCED = 'a2a.bridge.agent_announced';

/** The event type of a removal (`bridge.removeA2AAgent`, A2A-22). */
export const A2A_AGENT_REMOVED = 'a2a.bridge.agent_removed';

/** How A2A announcements are kept. */
export const A2A_ANNOUNCEMENTS: RegistrationKind<A2aAgentEntry> = {
  type: A2A_AGENT_ANNOUNCED,
  removed: A2A_AGENT_REMOVED,
  parse: parseA2aAgentEntry,
};
