/**
 * The agent behind `bridge.announceA2AAgent` (seed 003 §10.2; issue 14 item 4;
 * docs/decisions/a2a.md A2A-19): verb `bridge.announce_a2a_agent`, alias
 * `bridge.announceA2AAgent` (the Hyperspace method name), served by the bridges' privileged
 * verb seam (`../bridge/bridge-admin.ts`): announcing an agent makes the node send requests to a
 * URL the caller chose, so only a privileged principal may call it. Its inverse,
 * `bridge.removeA2AAgent` (`bridge.remove_a2a_agent`, A2A-22), removes an announced agent.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AgentDefinition } from '../../runtime/index.js';
import { bridgeAdminAgent, type BridgeAdminVerb } from '../bridge/bridge-admin.js';
import type { OutboundTrace } from '../outbound-trace.js';
import { A2A_AGENT_NAME_PATTERN, parseA2aAnnouncement, type A2aAnnouncement } from './a2a-agent-entry.js';

/** The id of the agent. */
export const ANNOUNCE_AGENT_ID = 'a2a-bridge';
/** The verb. */
export const ANNOUNCE_VERB = 'bridge.announce_a2a_agent';
/** The Hyperspace (seed 003) method name. */
export const ANNOUNCE_ALIAS = 'bridge.announceA2AAgent';
/** The verb that removes an announced agent (A2A-22). */
export const REMOVE_VERB = 'bridge.remove_a2a_agent';
/** Its method name, the inverse of {@link ANNOUNCE_ALIAS}. */
export const REMOVE_ALIAS = 'bridge.removeA2AAgent';

const INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      description: "the A2A agent's base URL (its card at /.well-known/agent-card.json)",
    },
    name: {
      type: 'string',
      pattern: A2A_AGENT_NAME_PATTERN.source,
      description: "the agent id and the middle segment of its verbs; default: from the card's name",
    },
    authorization: { type: 'string', description: 'sent as Authorization with every request to it' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    unsigned: { const: 'allow', description: 'accept a card whose signature does not verify' },
    agentCard: true,
  },
};

const RESULT_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name', 'url', 'verbs'],
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    verbs: { type: 'array', items: { type: 'string' } },
  },
};

const REMOVE_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      pattern: A2A_AGENT_NAME_PATTERN.source,
      description: 'the name the agent was announced under (its agent id)',
    },
  },
};

const REMOVE_RESULT_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name', 'url', 'verbs'],
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    verbs: { type: 'array', items: { type: 'string' }, description: 'the verbs that went with it' },
  },
};

/** What an announcement answers. */
export interface Announced {
  readonly name: string;
  readonly url: string;
  readonly verbs: readonly string[];
}

/**
 * The agent; `announce` bridges the agent now (fetching its card in the call's `trace`, so an
 * agent that cannot be reached is refused) and records it, answering its name and verbs.
 */
export function announceAgent(
  announce: (
    given: A2aAnnouncement,
    by: string,
    signal: AbortSignal,
    trace: OutboundTrace,
  ) => Promise<Announced>,
  remove: (name: string, by: string, signal: AbortSignal) => Promise<Announced>,
): AgentDefinition {
  const announcing: BridgeAdminVerb = {
    agentId: ANNOUNCE_AGENT_ID,
    agentName: 'A2A bridge',
    agentDescription:
      'Adds an A2A agent to this node at run time (its skills become verbs); privileged callers only',
    verb: ANNOUNCE_VERB,
    alias: ANNOUNCE_ALIAS,
    description: "bridges the A2A agent at a URL as an agent of this node (its card's skills become verbs)",
    input: INPUT_SCHEMA,
    output: RESULT_SCHEMA,
    privileged: 'makes this node call a URL of your choosing',
    async handle(input, by, signal, trace) {
      const done = await announce(parseA2aAnnouncement(input), by, signal, trace);
      return { name: done.name, url: done.url, verbs: [...done.verbs] };
    },
  };
  return bridgeAdminAgent(announcing, {
    ...announcing,
    verb: REMOVE_VERB,
    alias: REMOVE_ALIAS,
    description:
      'removes an A2A agent announced at run time: its verbs go, and it stays gone after a restart',
    input: REMOVE_INPUT_SCHEMA,
    output: REMOVE_RESULT_SCHEMA,
    privileged: 'changes which agents this node hosts',
    async handle(input, by, signal) {
      const done = await remove(parseRemoval(input), by, signal);
      return { name: done.name, url: done.url, verbs: [...done.verbs] };
    },
  });
}

/** The name a removal names. @throws PlexusError `INVALID_PARAMS`. */
function parseRemoval(input: JsonValue): string {
  const name = isJsonObject(input) ? input['name'] : undefined;
  const extra = isJsonObject(input) ? Object.keys(input).filter((k) => k !== 'name') : [];
  if (typeof name !== 'string' || !A2A_AGENT_NAME_PATTERN.test(name) || extra.length > 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${REMOVE_ALIAS} takes {"name": "<the name the agent was announced under>"}${extra.length > 0 ? `; ${extra.join(', ')} is not a field` : ''}`,
      { details: { pointer: extra.length > 0 ? `/${extra[0] ?? ''}` : '/name' } },
    );
  }
  return name;
}
