/**
 * MCP servers added at run time with `bridge.registerMCPServer` (issue 13 item 8, seed 003
 * §10.1; docs/decisions/mcp.md MCP-36), kept in the event log (`mcp.bridge.server_registered`,
 * node-wide, not tenant-scoped) through the bridges' shared registrations
 * (`../bridge/bridge-registrations.ts`) and read back when the bridge starts.
 */
import type { JsonObject } from '../../core/json.js';
import type { RegistrationKind } from '../bridge/bridge-registrations.js';
import { parseMcpServerEntry, type McpServerEntry } from './mcp-server-entry.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An MCP server was registered with the bridge at run time (the entry, as given). */
    'mcp.bridge.server_registered': JsonObject;
  }
}

/** The event type of a registration. */
export const MCP_SERVER_REGISTERED = 'mcp.bridge.server_registered';

/** How MCP registrations are kept. */
export const MCP_REGISTRATIONS: RegistrationKind<McpServerEntry> = {
  type: MCP_SERVER_REGISTERED,
  parse: parseMcpServerEntry,
};
