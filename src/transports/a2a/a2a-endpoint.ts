/**
 * The two kinds of A2A endpoint a node serves (docs/decisions/a2a.md A2A-2): the node's
 * (`/a2a`: every local agent's verbs, and remote agents by name, MESH-33) and one local agent's (`/agents/{id}/a2a`), each with the
 * cards a message may name and its A2A card. Both bindings (JSON-RPC and HTTP+JSON) use them.
 */
import type { FastifyRequest } from 'fastify';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { Runtime } from '../../runtime/index.js';
import { agentA2aCard, nodeA2aCard, type A2aCard } from './a2a-card.js';

/** One endpoint: the agents a message may name there, and its card. */
export interface A2aEndpoint {
  /** The endpoint's own agents: its skills. */
  cards(): readonly AgentCard[];
  /**
   * Remote agents a message may also name explicitly (by `verb` or `skill`) when no agent of the
   * endpoint offers the name: on the node endpoint, those learned from peers and the mesh
   * (MESH-33); none elsewhere.
   */
  reachable(): readonly AgentCard[];
  card(): A2aCard;
}

/** The base URL a request reached the node at (for the cards' interface URLs). */
export function baseUrlOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function isLocal(card: AgentCard): boolean {
  return (card.origin ?? 'local') === 'local';
}

/** The node's endpoint. */
export function nodeEndpoint(runtime: Runtime, nodeId: string, baseUrl: string): A2aEndpoint {
  const { registry } = runtime.agents;
  return {
    cards: () => registry.list().filter(isLocal),
    reachable: () => registry.list().filter((card) => !isLocal(card)),
    card: () => nodeA2aCard(nodeId, registry.list(), baseUrl),
  };
}

/** The endpoint of local agent `agentId`, or `undefined` when there is no such local agent. */
export function agentEndpoint(runtime: Runtime, agentId: string, baseUrl: string): A2aEndpoint | undefined {
  const { registry } = runtime.agents;
  const agent = registry.find(agentId)?.card;
  if (agent === undefined || !isLocal(agent)) return undefined;
  const current = (): AgentCard | undefined => registry.find(agentId)?.card;
  return {
    cards: () => {
      const card = current();
      return card === undefined ? [] : [card];
    },
    reachable: () => [],
    card: () => agentA2aCard(current() ?? agent, baseUrl),
  };
}
