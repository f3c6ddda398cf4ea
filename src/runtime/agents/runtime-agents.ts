/**
 * `runtime.agents`: the agents half of the runtime facade (issue 12 item 7) — the registry of
 * local and remote cards, verb aliases, and adding or removing a hosted agent at run time.
 */
import type { AgentCard } from '../../core/records/agent-card.js';
import type { SignalOptions } from '../../store/event-log.js';
import type { AgentDefinition } from './agent.js';
import type { AgentOfferings } from './agent-offerings.js';
import type { DiscoveryPort } from './capability-discovery.js';
import type { AgentOutcomes } from './agent-outcomes.js';
import type { PeerCardsPort } from './peer-cards.js';
import type { Registry } from './registry.js';

/** The agents a runtime hosts and knows of. */
export interface RuntimeAgents {
  /** The agent registry (cards, verb specs; remote cards are upserted here with `origin: 'remote'`). */
  readonly registry: Registry;
  /**
   * Discovery on a registry miss: where a face (the mesh's DHT lookup) plugs in, and the
   * lookup by capability that asks it when no card offers a verb (docs/decisions/mesh.md MESH-20).
   */
  readonly discovery: DiscoveryPort;
  /**
   * The peer cards of mesh peers (their claimed reputation, region, task types and registered
   * tools, and the latency this node measured to them), plugged in by the mesh face (MESH-43).
   */
  readonly peers: PeerCardsPort;
  /** What this node observed of the agents it ran or called: the router's ranking (MESH-44). */
  readonly outcomes: AgentOutcomes;
  /**
   * The canonical verb of a name: the verb an alias declared by a hosted agent stands for
   * (`state.createSession` → `state.create_session`, an `@version` kept), else the name itself.
   * `invoke` and `submit` resolve the request's verb with it before anything else.
   */
  resolveVerb(name: string): string;
  /**
   * Registers and supervises a local agent (replacing one with the same id).
   * @throws PlexusError `INTERNAL` when its factory fails; the registry's errors.
   */
  add(definition: AgentDefinition, options?: SignalOptions): Promise<AgentCard>;
  /** Unregisters an agent. @throws PlexusError `NOT_FOUND`. */
  remove(id: string, options?: SignalOptions): Promise<void>;
  /** The resources and prompts of the hosted agents that offer any, by agent id. */
  offerings(): readonly AgentOfferings[];
}
