/**
 * The MCP forwarder of `plexus mcp` (issue 13 item 2, docs/decisions/mcp.md MCP-6): an MCP
 * `Server` facing a host (over stdio) that forwards, generically, to an MCP `Client` already
 * connected to a node's Streamable HTTP face.
 *
 * It declares the capabilities the upstream declared and forwards every request the host
 * sends after `initialize` — `ping`, and the methods of each declared capability: tools,
 * resources, prompts, completions, logging — by method name, params, result and error as
 * they are; it keeps nothing itself, so a method the node's face gains later is forwarded
 * without a change here. A host's `progressToken` is mapped onto the upstream request's, so
 * the upstream's `notifications/progress` reach the host under the host's token; a host's
 * `notifications/cancelled` aborts the forwarded request (the SDK then sends the upstream its
 * own `notifications/cancelled`). Every other notification of the upstream (`list_changed`,
 * `resources/updated`, `message`) goes back to the host unchanged.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  ResultSchema,
  type JSONRPCRequest,
  type Result,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** The capability a method family needs the upstream to have declared, by method prefix. */
const CAPABILITY_OF_PREFIX: readonly (readonly [string, keyof ServerCapabilities])[] = [
  ['tools/', 'tools'],
  ['resources/', 'resources'],
  ['prompts/', 'prompts'],
  ['completion/', 'completions'],
  ['logging/', 'logging'],
  ['tasks/', 'tasks'],
];

/**
 * How long a forwarded request may wait for the upstream, ms: the host decides (it cancels),
 * so the forwarder's own bound is the longest a timer allows (about 24.8 days).
 */
const FORWARD_TIMEOUT_MS = 2_147_483_647;

/**
 * Waits until the progress notifications of a request are written, and one turn of the event
 * loop more, so the result goes out in a later write than the last progress: the SDK client
 * handles a notification a microtask after the messages read with it and drops the progress
 * of a request whose response came in the same read (typescript-sdk issue 2580).
 */
async function settle(progressSent: Promise<void>): Promise<void> {
  await progressSent;
  await new Promise<void>((done) => setImmediate(done));
}

/** Options of {@link createMcpForwarder}. */
export interface McpForwarderInit {
  /** The upstream client, connected (its capabilities and server info are known). */
  readonly upstream: Client;
  /** What the upstream is, for error messages (`http://127.0.0.1:3100/mcp`). */
  readonly upstreamUrl: string;
}

/** The capability `method` needs, or undefined when it needs none (`ping`, a future method). */
export function capabilityOf(method: string): keyof ServerCapabilities | undefined {
  return CAPABILITY_OF_PREFIX.find(([prefix]) => method.startsWith(prefix))?.[1];
}

/** The host's request params with its progress token removed (the upstream gets its own). */
function withoutProgressToken(params: JSONRPCRequest['params']): JSONRPCRequest['params'] {
  const meta = params?._meta;
  if (params === undefined || meta === undefined || !('progressToken' in meta)) return params;
  const rest: Record<string, unknown> = { ...meta };
  delete rest['progressToken'];
  return { ...params, _meta: rest };
}

/** An upstream failure that is not a JSON-RPC error answer: named after the upstream, for the host. */
function upstreamError(error: unknown, upstreamUrl: string): McpError {
  if (error instanceof McpError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpError(
    ErrorCode.InternalError,
    `the Plexus node at ${upstreamUrl} did not answer: ${message}`,
  );
}

/**
 * An MCP `Server` (not yet connected to a transport) that forwards to `upstream`: its
 * capabilities, server info and instructions are the upstream's.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server is the one for a generic forwarder (MCP-6)
export function createMcpForwarder(init: McpForwarderInit): Server {
  const { upstream, upstreamUrl } = init;
  const capabilities = upstream.getServerCapabilities() ?? {};
  const info = upstream.getServerVersion() ?? { name: 'plexus', version: '0.1.0' };
  const instructions = upstream.getInstructions();
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- as above
  const server = new Server(
    { ...info },
    { capabilities, ...(instructions === undefined ? {} : { instructions }) },
  );
  // The SDK answers these itself; the forwarder passes them on (ping checks the node too).
  server.removeRequestHandler('ping');
  server.removeRequestHandler('logging/setLevel');

  server.fallbackRequestHandler = async (
    request: JSONRPCRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<Result> => {
    const needs = capabilityOf(request.method);
    if (needs !== undefined && capabilities[needs] === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${request.method}: the Plexus node at ${upstreamUrl} does not offer ${needs}`,
      );
    }
    const hostToken = extra._meta?.progressToken;
    // progress sent to the host so far, in order; the result waits for it (see settle)
    let progressSent: Promise<void> | undefined;
    const options: RequestOptions = {
      signal: extra.signal,
      timeout: FORWARD_TIMEOUT_MS,
      ...(hostToken === undefined
        ? {}
        : {
            onprogress: (progress) => {
              const notification = {
                method: 'notifications/progress' as const,
                params: { ...progress, progressToken: hostToken },
              };
              progressSent = (progressSent ?? Promise.resolve())
                .then(() => extra.sendNotification(notification))
                .catch(() => undefined);
            },
          }),
    };
    const params = withoutProgressToken(request.params);
    let result: Result;
    try {
      result = await upstream.request(
        { method: request.method, ...(params === undefined ? {} : { params }) },
        ResultSchema,
        options,
      );
    } catch (error) {
      throw upstreamError(error, upstreamUrl);
    }
    if (progressSent !== undefined) await settle(progressSent);
    return result;
  };

  upstream.fallbackNotificationHandler = async (notification) => {
    // a notification of a capability the upstream did not declare is dropped by the SDK's check
    await server.notification(notification as ServerNotification).catch(() => undefined);
  };
  return server;
}
