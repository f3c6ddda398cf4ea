/**
 * The constants of the MCP face (issue 13): its path, the protocol versions and headers of the
 * Streamable HTTP transport (MCP 2025-11-25), and the face's name in invocation contexts.
 */

/** The face's name: `face` of every invocation it makes. */
export const MCP_FACE = 'mcp';

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Tool calls of the MCP face (`POST /mcp`, `tools/call`). */
    readonly mcp: true;
  }
}

/** The one endpoint of the Streamable HTTP transport. */
export const MCP_PATH = '/mcp';

/** The protocol versions the face accepts in `MCP-Protocol-Version` (newest first). */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** The version assumed when a request after `initialize` has no version header (spec: 2025-03-26). */
export const MCP_DEFAULT_PROTOCOL_VERSION = '2025-03-26';

/** The session header, lower case as node reads headers. */
export const MCP_SESSION_HEADER = 'mcp-session-id';

/** The protocol version header, lower case. */
export const MCP_VERSION_HEADER = 'mcp-protocol-version';

/** The default idle time after which a session ends, ms (30 min). */
export const MCP_DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** The default period of `: keep-alive` comments on an idle SSE stream, ms. */
export const MCP_DEFAULT_KEEPALIVE_MS = 15_000;

/** The default page size of `tools/list`. */
export const MCP_DEFAULT_PAGE_SIZE = 100;
