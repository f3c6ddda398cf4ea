/**
 * One id, one agent: the agents a node hosts at start — demo agents, Hyperspace primitives,
 * and those passed in `agents` (an application's, or the modules of `plexus start --agent`)
 * — must have distinct ids. The registry would otherwise let the last one silently replace
 * the first (a user's agent named `state` would take the state primitive's place).
 */
import { PlexusError } from '../core/errors.js';
import type { AgentDefinition } from '../runtime/index.js';

/** Agents of one origin, with how a message names that origin (`a demo agent`). */
export interface AgentGroup {
  readonly what: string;
  readonly agents: readonly AgentDefinition[];
}

/**
 * All the groups' agents, in order.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the id and both origins when two agents share an id.
 */
export function distinctAgents(groups: readonly AgentGroup[]): AgentDefinition[] {
  const owner = new Map<string, string>();
  const all: AgentDefinition[] = [];
  for (const group of groups) {
    for (const agent of group.agents) {
      const id = agent.card.id;
      const first = owner.get(id);
      if (first !== undefined) {
        throw new PlexusError(
          'INVALID_PARAMS',
          `two agents have the id "${id}": ${first} and ${group.what}; give the agent another id`,
          { details: { agent: id } },
        );
      }
      owner.set(id, group.what);
      all.push(agent);
    }
  }
  return all;
}
