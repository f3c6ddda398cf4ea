/**
 * The agent behind `bridge.registerMCPServer` (seed 003 §10.1; issue 13 item 8;
 * docs/decisions/mcp.md MCP-36): verb `bridge.register_mcp_server`, alias
 * `bridge.registerMCPServer` (the Hyperspace face's method name). Registering a server
 * launches a process on the node, so only a privileged principal may call it (MCP-37): one of
 * kind `local` (in-process) or one whose credential carries the scope `bridge:admin` (or `*`);
 * the verb also declares the scope, so with capability checks on a UCAN must grant
 * `bridge/admin`.
 */
import type { JsonObject } from '../../core/json.js';
import type { AgentDefinition } from '../../runtime/index.js';
import { bridgeAdminAgent, type BridgeAdminVerb } from '../bridge/bridge-admin.js';
import type { OutboundTrace } from '../outbound-trace.js';
import {
  parseMcpServerEntry,
  REFERENCES_ONLY_PATTERN,
  requireReferences,
  type McpServerEntry,
} from './mcp-server-entry.js';

export { BRIDGE_ADMIN_SCOPE, isBridgeAdmin } from '../bridge/bridge-admin.js';

/** The id of the agent. */
export const REGISTER_AGENT_ID = 'mcp-bridge';
/** The verb. */
export const REGISTER_VERB = 'bridge.register_mcp_server';
/** The Hyperspace (seed 003) method name. */
export const REGISTER_ALIAS = 'bridge.registerMCPServer';
/** The verb removing a server registered at run time (MCP-54). */
export const UNREGISTER_VERB = 'bridge.unregister_mcp_server';
/** Its method name, after the Hyperspace one. */
export const UNREGISTER_ALIAS = 'bridge.unregisterMCPServer';

const NAME_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
  additionalProperties: false,
};

const ENTRY_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    command: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    // MCP-54: refused at the door, before the call (and its input) is recorded in the log
    env: { type: 'object', additionalProperties: { type: 'string', pattern: REFERENCES_ONLY_PATTERN } },
    cwd: { type: 'string' },
    url: { type: 'string' },
    headers: { type: 'object', additionalProperties: { type: 'string', pattern: REFERENCES_ONLY_PATTERN } },
  },
  additionalProperties: false,
};

const RESULT_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name', 'verbs'],
  properties: { name: { type: 'string' }, verbs: { type: 'array', items: { type: 'string' } } },
};

/**
 * The agent; `register` bridges the entry now (connecting to it, so a server that cannot be
 * reached is refused) and records it, answering the verbs it got; `unregister` removes a server
 * registered at run time, answering the verbs it had (MCP-54).
 */
export function registerAgent(
  register: (
    entry: McpServerEntry,
    by: string,
    signal: AbortSignal,
    trace: OutboundTrace,
  ) => Promise<readonly string[]>,
  unregister: (name: string, by: string, signal: AbortSignal) => Promise<readonly string[]>,
): AgentDefinition {
  const registering: BridgeAdminVerb = {
    agentId: REGISTER_AGENT_ID,
    agentName: 'MCP bridge',
    agentDescription:
      'Adds an MCP server to this node at run time (its tools become verbs); privileged callers only',
    verb: REGISTER_VERB,
    alias: REGISTER_ALIAS,
    description: 'bridges an MCP server (stdio command or Streamable HTTP url) as an agent of this node',
    input: ENTRY_SCHEMA,
    output: RESULT_SCHEMA,
    privileged: 'launches processes on this node',
    async handle(input, by, signal, trace) {
      const entry = parseMcpServerEntry(input);
      requireReferences(entry);
      const verbs = await register(entry, by, signal, trace);
      return { name: entry.name, verbs: [...verbs] };
    },
  };
  return bridgeAdminAgent(registering, {
    ...registering,
    verb: UNREGISTER_VERB,
    alias: UNREGISTER_ALIAS,
    description:
      'removes an MCP server registered at run time: stops it, removes its agent and records the removal',
    input: NAME_SCHEMA,
    output: RESULT_SCHEMA,
    privileged: 'stops processes on this node',
    async handle(input, by, signal) {
      const name = (input as { name: string }).name;
      const verbs = await unregister(name, by, signal);
      return { name, verbs: [...verbs] };
    },
  });
}
