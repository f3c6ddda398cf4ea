/**
 * The SDK protocol `Server` of one MCP session (issue 13 items 3 and 6): `initialize` and
 * `ping` are the SDK's; `tools/list` pages the registry's tools (`tool-catalog.ts`) with an
 * opaque cursor; `tools/call` runs a tool (`tool-call.ts`). One server per session, never shared.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { PlexusError } from '../../core/errors.js';
import type { Principal, Runtime } from '../../runtime/index.js';
import { toolCatalog } from './tool-catalog.js';
import { callTool, toolFailure } from './tool-call.js';

/** What a session's server needs. */
export interface SessionServerInit {
  readonly runtime: Runtime;
  readonly principal: Principal;
  readonly capability?: string;
  readonly transport: Readonly<Record<string, string>>;
  /** Tools per `tools/list` page. */
  readonly pageSize: number;
  /**
   * Told of each `tools/call` of a known tool: its name, `success` or the error code, seconds
   * (the node's `plexus_mcp_tool_calls_total` and duration meters). Absent = nobody is told.
   */
  readonly toolCalled?: (tool: string, status: string, seconds: number) => void;
}

/** The status of a tool result: `success`, or the error code a failure carries. */
function statusOf(result: CallToolResult): string {
  if (result.isError !== true) return 'success';
  const code = result._meta?.['plexus/code'];
  return typeof code === 'string' ? code : 'INTERNAL';
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof value.o === 'number' && Number.isSafeInteger(value.o) && value.o >= 0) return value.o;
  } catch {
    // answered below
  }
  throw new McpError(ErrorCode.InvalidParams, 'the cursor is not one this server gave');
}

/** The `serverInfo.version` of `initialize`: the version of this face's MCP surface. */
export const MCP_SERVER_VERSION = '0.1.0';

/**
 * The SDK's low-level protocol server: the face routes requests itself and needs no more (MCP-1);
 * the SDK marks it deprecated only to steer users to its high-level `McpServer`.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server is the point (MCP-1)
export type SessionServer = Server;

/** Makes the server of one session. */
export function sessionServer(init: SessionServerInit): SessionServer {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see SessionServer
  const server = new Server(
    { name: 'plexus', version: MCP_SERVER_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const offset = decodeCursor(request.params?.cursor);
    const tools = toolCatalog(init.runtime.agents.registry);
    const page = tools.slice(offset, offset + init.pageSize).map((e) => e.tool);
    const next = offset + init.pageSize;
    return { tools: page, ...(next < tools.length ? { nextCursor: encodeCursor(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = toolCatalog(init.runtime.agents.registry).find((e) => e.tool.name === request.params.name);
    if (entry === undefined) {
      return toolFailure(
        new PlexusError('UNKNOWN_VERB', `no tool named ${JSON.stringify(request.params.name)}`),
        'none',
      );
    }
    const token = request.params._meta?.progressToken;
    const started = performance.now();
    const result = await callTool(init.runtime, entry, request.params.arguments, {
      principal: init.principal,
      ...(init.capability === undefined ? {} : { capability: init.capability }),
      transport: init.transport,
      signal: extra.signal,
      ...(token === undefined ? {} : { progressToken: token }),
      notify: (notification) => extra.sendNotification(notification),
    });
    init.toolCalled?.(entry.tool.name, statusOf(result), (performance.now() - started) / 1000);
    return result;
  });
  return server;
}
