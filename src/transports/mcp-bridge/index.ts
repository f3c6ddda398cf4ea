/** The MCP client bridge (issue 13 item 8): MCP servers as agents of the node. */
export { mcpBridgeFace, type McpBridgeInit } from './mcp-bridge-face.js';
export { parseMcpServerEntry, type McpServerEntry } from './mcp-server-entry.js';
export { perRequestSignalFetch, type FetchLike } from './per-request-fetch.js';
export { toolVerbs, verbSegment } from './mcp-agent.js';
export {
  REGISTER_ALIAS,
  REGISTER_VERB,
  UNREGISTER_ALIAS,
  UNREGISTER_VERB,
  BRIDGE_ADMIN_SCOPE,
  isBridgeAdmin,
} from './register-agent.js';
