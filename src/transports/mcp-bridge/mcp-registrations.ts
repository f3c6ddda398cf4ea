/**
 * MCP servers added at run time with `bridge.registerMCPServer` and removed with
 * `bridge.unregisterMCPServer` (issue 13 item 8, seed 003 §10.1; docs/decisions/mcp.md MCP-36,
 * MCP-54), kept in the event log (`mcp.bridge.server_registered`, `…_unregistered`, node-wide,
 * not tenant-scoped) through the bridges' shared registrations (`../bridge/bridge-registrations.ts`)
 * and read back when the bridge starts. A registered entry's `env` and `headers` values are
 * `${NAME}` references to the node's environment (MCP-54), so the log holds no secret.
 */
import type { JsonObject } from '../../core/json.js';
import type { RegistrationKind } from '../bridge/bridge-registrations.js';
import { parseMcpServerEntry, type McpServerEntry } from './mcp-server-entry.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An MCP server was registered with the bridge at run time (the entry as given). */
    'mcp.bridge.server_registered': JsonObject;
    /** An MCP server registered at run time was removed (`{name, removedBy}`). */
    'mcp.bridge.server_unregistered': JsonObject;
  }
}

/** The event type of a registration. */
export const MCP_SERVER_REGISTERED = 'mcp.bridge.server_registered';
/** The event type of a removal. */
export const MCP_SERVER_UNREGISTERED = 'mcp.bridge.server_unregistered';

/** How MCP registrations are kept. */
export const MCP_REGISTRATIONS: RegistrationKind<McpServerEntry> = {
  type: MCP_SERVER_REGISTERED,
  parse: parseMcpServerEntry,
  removed: MCP_SERVER_UNREGISTERED,
};
