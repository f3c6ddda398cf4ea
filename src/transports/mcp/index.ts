/** The MCP server face (issue 13): Streamable HTTP at `/mcp`, the registry's verbs as tools. */
export { mcpFace, type McpFaceInit } from './mcp-face.js';
export { MCP_ERRORS, mcpErrorCode } from './mcp-errors.js';
export { MCP_FACE, MCP_PATH, MCP_PROTOCOL_VERSIONS } from './mcp-protocol.js';
export { plainToolName, toolNames, uniqueToolName, MCP_TOOL_NAME_MAX } from './tool-names.js';
