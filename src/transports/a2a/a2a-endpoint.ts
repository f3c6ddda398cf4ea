/**
 * The two kinds of A2A endpoint a node serves (docs/decisions/a2a.md A2A-2): the node's
 * (`/a2a`: every local agent's verbs, and remote agents by name, MESH-33) and one local agent's (`/agents/{id}/a2a`), each with the
 * cards a message may name and its A2A card. Both bindings (JSON-RPC and HTTP+JSON) use them.
 */
import type { FastifyRequest } from 'fastify';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { Registry, Runtime } from '../../runtime/index.js';
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

/** A registry's cards split by origin, with the cards they were made from (in its own order). */
interface CardLists {
  readonly from: readonly AgentCard[];
  readonly local: readonly AgentCard[];
  readonly remote: readonly AgentCard[];
}

const cardListsOf = new WeakMap<Registry, CardLists>();

/**
 * The local and the remote cards of `registry`, sorted by id, the same arrays while no card
 * changed (A2A-29): the registry replaces a card's object on every change, so comparing its
 * cards by identity tells, without sorting, whether the last lists still hold; a message's
 * skill resolution is kept per array (message-verb.ts).
 */
function cardLists(registry: Registry): CardLists {
  const entries = registry.view.state();
  const known = cardListsOf.get(registry);
  if (known !== undefined && known.from.length === entries.size) {
    let i = 0;
    let same = true;
    for (const entry of entries.values()) {
      if (entry.card !== known.from[i++]) {
        same = false;
        break;
      }
    }
    if (same) return known;
  }
  const from = [...entries.values()].map((entry) => entry.card);
  const all = registry.list();
  const lists = { from, local: all.filter(isLocal), remote: all.filter((card) => !isLocal(card)) };
  cardListsOf.set(registry, lists);
  return lists;
}

const singletons = new WeakMap<AgentCard, readonly AgentCard[]>();

/** `[card]`, the same array for the same card. */
function only(card: AgentCard): readonly AgentCard[] {
  let list = singletons.get(card);
  if (list === undefined) {
    list = [card];
    singletons.set(card, list);
  }
  return list;
}

/** The node's endpoint. */
export function nodeEndpoint(runtime: Runtime, nodeId: string, baseUrl: string): A2aEndpoint {
  const { registry } = runtime.agents;
  return {
    cards: () => cardLists(registry).local,
    reachable: () => cardLists(registry).remote,
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
      return card === undefined ? [] : only(card);
    },
    reachable: () => [],
    card: () => agentA2aCard(current() ?? agent, baseUrl),
  };
}
