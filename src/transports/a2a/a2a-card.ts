/**
 * A2A agent cards of a node (issue 14 item 1, A2A v1.0 §8, docs/decisions/a2a.md): the node
 * card (every local agent's verbs as skills) and one card per local agent, in the v1.0 JSON
 * form (`supportedInterfaces` with the JSON-RPC binding at protocol version 1.0).
 */
import type { AgentCard } from '../../core/records/agent-card.js';

/** The A2A protocol version the cards declare (the one `@a2a-js/sdk` 1.x speaks). */
export const A2A_PROTOCOL_VERSION = '1.0';

/** One interface of an A2A card: where and how it is served. */
export interface A2aInterface {
  readonly url: string;
  readonly protocolBinding: 'JSONRPC' | 'HTTP+JSON';
  readonly protocolVersion: string;
}

/** One A2A skill: a verb a caller may ask for. */
export interface A2aSkill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly examples: readonly string[];
  readonly inputModes: readonly string[];
  readonly outputModes: readonly string[];
}

/** An A2A v1.0 agent card in its JSON form (unsigned). */
export interface A2aCard {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly supportedInterfaces: readonly A2aInterface[];
  readonly capabilities: { readonly streaming: boolean; readonly pushNotifications: boolean };
  readonly securitySchemes: Readonly<Record<string, unknown>>;
  readonly securityRequirements: readonly unknown[];
  readonly defaultInputModes: readonly string[];
  readonly defaultOutputModes: readonly string[];
  readonly skills: readonly A2aSkill[];
  /** JWS signatures (A2A §8.4), when the node signs its cards. */
  readonly signatures?: readonly { readonly protected: string; readonly signature: string }[];
}

const MODES = ['application/json', 'text/plain'] as const;

/** The skills of `card`: one per verb, tagged with the verb's dotted name parts. */
export function skillsOf(card: AgentCard): A2aSkill[] {
  return card.capabilities.map((capability) => ({
    id: `${card.id}/${capability.verb}`,
    name: capability.verb,
    description: capability.description ?? `${capability.verb} of agent ${card.id}`,
    tags: [...new Set([card.id, ...capability.verb.split(/[.:/]/).filter((part) => part !== '')])],
    examples: [],
    inputModes: [...MODES],
    outputModes: [...MODES],
  }));
}

function cardOf(
  name: string,
  description: string,
  version: string,
  url: string,
  skills: readonly A2aSkill[],
): A2aCard {
  return {
    name,
    description,
    version,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'Plexus API key or UCAN' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: [...MODES],
    defaultOutputModes: [...MODES],
    skills,
  };
}

/**
 * The node card: every local agent's verbs as skills, served at `baseUrl` + `/a2a`.
 * @example nodeA2aCard('did:key:z…', registry.list(), 'http://127.0.0.1:8080');
 */
export function nodeA2aCard(nodeId: string, cards: readonly AgentCard[], baseUrl: string): A2aCard {
  const local = cards.filter((card) => (card.origin ?? 'local') === 'local');
  return cardOf(
    `Plexus node ${nodeId}`,
    `The agents of Plexus node ${nodeId}: ${local.map((card) => card.id).join(', ') || 'none'}`,
    '1.0.0',
    `${baseUrl}/a2a`,
    local.flatMap(skillsOf),
  );
}

/** The card of one agent, served at `baseUrl` + `/agents/{id}/a2a`. */
export function agentA2aCard(card: AgentCard, baseUrl: string): A2aCard {
  return cardOf(
    card.name,
    card.description ?? card.name,
    card.version,
    `${baseUrl}/agents/${encodeURIComponent(card.id)}/a2a`,
    skillsOf(card),
  );
}
