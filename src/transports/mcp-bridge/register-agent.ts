/**
 * The agent behind `bridge.registerMCPServer` (seed 003 §10.1; issue 13 item 8;
 * docs/decisions/mcp.md MCP-36): verb `bridge.register_mcp_server`, alias
 * `bridge.registerMCPServer` (the Hyperspace face's method name). Registering a server
 * launches a process on the node, so only a privileged principal may call it (MCP-37): one of
 * kind `local` (in-process) or one whose credential carries the scope `bridge:admin` (or `*`);
 * the verb also declares the scope, so with capability checks on a UCAN must grant
 * `bridge/admin`.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import {
  defineAgent,
  type AgentDefinition,
  type HandlerContext,
  type Principal,
} from '../../runtime/index.js';
import { parseMcpServerEntry, type McpServerEntry } from './mcp-server-entry.js';

/** The id of the agent. */
export const REGISTER_AGENT_ID = 'mcp-bridge';
/** The verb. */
export const REGISTER_VERB = 'bridge.register_mcp_server';
/** The Hyperspace (seed 003) method name. */
export const REGISTER_ALIAS = 'bridge.registerMCPServer';
/** The scope a credential needs (MCP-37). */
export const BRIDGE_ADMIN_SCOPE = 'bridge:admin';

/** True when `principal` may register MCP servers (MCP-37). */
export function isBridgeAdmin(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  if (principal.kind === 'local') return true;
  return (principal.scopes ?? []).some((s) => s === BRIDGE_ADMIN_SCOPE || s === '*' || s === 'bridge:*');
}

const ENTRY_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    command: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    cwd: { type: 'string' },
    url: { type: 'string' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
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
 * reached is refused) and records it, answering the verbs it got.
 */
export function registerAgent(
  register: (entry: McpServerEntry, by: string, signal: AbortSignal) => Promise<readonly string[]>,
): AgentDefinition {
  return defineAgent({
    card: {
      id: REGISTER_AGENT_ID,
      name: 'MCP bridge',
      version: '1.0.0',
      tier: 'L3',
      description:
        'Adds an MCP server to this node at run time (its tools become verbs); privileged callers only',
      capabilities: [
        {
          verb: REGISTER_VERB,
          description:
            'bridges an MCP server (stdio command or Streamable HTTP url) as an agent of this node',
          input: ENTRY_SCHEMA,
          output: RESULT_SCHEMA,
        },
      ],
    },
    verbs: [
      {
        name: REGISTER_VERB,
        version: 1,
        status: 'stable',
        input: ENTRY_SCHEMA,
        output: RESULT_SCHEMA,
        effects: {},
        capabilities: [BRIDGE_ADMIN_SCOPE],
        category: 'mutation',
        deterministic: false,
      },
    ],
    aliases: { [REGISTER_ALIAS]: REGISTER_VERB },
    restart: { maxRestarts: 100 },
    create: () => ({
      [REGISTER_VERB]: async (input: JsonValue, ctx: HandlerContext) => {
        if (!isBridgeAdmin(ctx.principal)) {
          throw new PlexusError(
            'FORBIDDEN',
            `${REGISTER_ALIAS} launches processes on this node: only a privileged caller may use it (a credential with the scope ${BRIDGE_ADMIN_SCOPE}, or an in-process caller)`,
            { details: { scope: BRIDGE_ADMIN_SCOPE } },
          );
        }
        const entry = parseMcpServerEntry(input);
        const verbs = await register(entry, ctx.principal?.id ?? 'unknown', ctx.signal);
        return { name: entry.name, verbs: [...verbs] };
      },
    }),
  });
}
