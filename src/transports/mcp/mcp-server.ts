/**
 * The SDK protocol `Server` of one MCP session (issue 13 items 3 and 6): `initialize` and
 * `ping` are the SDK's; `tools/list` pages the registry's tools (`tool-catalog.ts`) with an
 * opaque cursor; `tools/call` runs a tool (`tool-call.ts`). One server per session, never shared.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type LoggingLevel,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { randomUUID } from 'node:crypto';
import { PlexusError, isPlexusErrorCode } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Principal, Runtime } from '../../runtime/index.js';
import { catalogOf, type CatalogEntry } from './tool-catalog.js';
import { callTool, toolCallKey, toolFailure } from './tool-call.js';
import { complete, getPrompt, listedPrompts } from './mcp-prompts.js';
import { checkResource, listedResources, listedTemplates, readResource } from './mcp-resources.js';
import { sessionSubscriptions, type Subscriptions } from './mcp-subscriptions.js';
import type { Observer } from '../../runtime/observer.js';
import { inRequestSpan, messageTrace, spanText, type MessageTrace } from './message-trace.js';
import { MCP_ELICITATION_TIMEOUT_MS } from './elicitation.js';
import { samplingChannel } from './sampling.js';

/** What a session's server needs. */
export interface SessionServerInit {
  readonly runtime: Runtime;
  readonly principal: Principal;
  readonly capability?: string;
  readonly transport: Readonly<Record<string, string>>;
  /** Tools (and resources, templates, prompts) per list page. */
  readonly pageSize: number;
  /**
   * Told of each finished `tools/call` of a known tool, before its result is sent (the face
   * records it: the invocation record, the structured log line, the meters). Absent = nobody
   * is told.
   */
  readonly toolCalled?: (call: ToolCallDone) => Promise<void> | void;
  /** True when the caller may call the tool (`tools/list` shows only those); absent = all. */
  readonly visible?: (entry: CatalogEntry) => boolean;
  /** The event log's head now (where a subscribed job's changes are followed from). */
  headSeq(): Promise<number>;
  /** The node's tracer: `resources/read`, `prompts/get`, `completion/complete` are spans (OBS-47). */
  readonly tracing?: Observer;
  /** Told when the client sets its logging level (the session keeps it, MCP-56). */
  readonly levelChanged?: (level: LoggingLevel) => void;
  /** Told when the session's resource subscriptions change: every subscribed URI (MCP-56). */
  readonly subscriptionsChanged?: (uris: readonly string[]) => void;
  /**
   * Told before a known tool's call submits its job, with the job's idempotency key (a
   * streamed call is recorded so its stream can be resumed after a restart, MCP-57).
   */
  readonly callStarted?: (
    id: RequestId,
    call: { readonly tool: string; readonly key: string; readonly token?: string | number },
  ) => void;
}

/** One finished `tools/call`. */
export interface ToolCallDone {
  /** The tool's name. */
  readonly tool: string;
  /** The agent that offers it. */
  readonly agent: string;
  /** Its verb. */
  readonly verb: string;
  /** The call's `arguments`, as sent. */
  readonly arguments: Record<string, unknown> | undefined;
  /** The result sent back. */
  readonly result: CallToolResult;
  /** `success`, or the error code of the failure. */
  readonly status: string;
  /** Wall time, seconds. */
  readonly seconds: number;
  /** When the call started, Unix ms. */
  readonly startedAt: number;
  /** The idempotency key of the call's job (`mcp:<uuid>`, MCP-57). */
  readonly key: string;
  /** The MCP client's name (its `clientInfo.name` at initialize), when it gave one. */
  readonly client?: string;
}

function optionalClient(client: string | undefined): { client?: string } {
  return client === undefined ? {} : { client };
}

/** The status of a tool result: `success`, or the error code a failure carries. */
/** The outcome of a call answered `result`: `success`, or the Plexus code of its failure. */
export function toolCallStatus(result: CallToolResult): string {
  if (result.isError !== true) return 'success';
  const code = result._meta?.['plexus/code'];
  return typeof code === 'string' ? code : 'INTERNAL';
}

const subscriptionsOf = new WeakMap<object, Subscriptions>();

/** The resource subscriptions of a session's server (for the face's agent-card changes). */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see SessionServer
export function subscriptionsOfServer(server: Server): Subscriptions | undefined {
  return subscriptionsOf.get(server);
}

const LEVELS = LoggingLevelSchema.options;

/** The page of `items` at `cursor`, with the next cursor when more follow. */
function paged<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  const offset = decodeCursor(cursor);
  const next = offset + pageSize;
  return {
    page: items.slice(offset, next),
    ...(next < items.length ? { nextCursor: encodeCursor(next) } : {}),
  };
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
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  const { runtime } = init;
  const caller = (signal: AbortSignal, trace: MessageTrace = {}) => ({
    principal: init.principal,
    signal,
    ...(trace.traceparent === undefined ? {} : { traceparent: trace.traceparent }),
    ...(trace.tracestate === undefined ? {} : { tracestate: trace.tracestate }),
  });
  const subscriptions = sessionSubscriptions({
    runtime,
    headSeq: () => init.headSeq(),
    updated: (uri) => server.sendResourceUpdated({ uri }),
  });
  subscriptionsOf.set(server, subscriptions);
  server.onclose = () => {
    subscriptions.close();
  };
  // MCP-13: nothing is logged to a session until it asks with logging/setLevel
  let level: LoggingLevel | undefined;
  // `send`: the request's own sender, so a call's logs go on its SSE answer when it streams
  const log = (
    at: LoggingLevel,
    data: Record<string, unknown>,
    send?: (notification: ServerNotification) => Promise<void>,
  ): void => {
    if (level === undefined || LEVELS.indexOf(at) < LEVELS.indexOf(level)) return;
    const params = { level: at, logger: 'plexus.mcp', data };
    (send === undefined
      ? server.sendLoggingMessage(params)
      : send({ method: 'notifications/message', params })
    ).catch(() => undefined);
  };
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    init.levelChanged?.(level);
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const catalog = catalogOf(runtime.agents.registry).entries;
    const visible = init.visible;
    const tools = (visible === undefined ? catalog : catalog.filter((e) => visible(e))).map((e) => e.tool);
    const { page, nextCursor } = paged(tools, request.params?.cursor, init.pageSize);
    return { tools: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const { page, nextCursor } = paged(listedResources(runtime), request.params?.cursor, init.pageSize);
    return { resources: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => {
    const { page, nextCursor } = paged(listedTemplates(runtime), request.params?.cursor, init.pageSize);
    return { resourceTemplates: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    inRequestSpan(
      init.tracing,
      {
        method: 'resources/read',
        attributes: { 'mcp.resource.uri': spanText(request.params.uri) },
        id: extra.requestId,
        trace: messageTrace(request.params._meta, extra.requestInfo?.headers),
      },
      (trace) => readResource(runtime, request.params.uri, caller(extra.signal, trace)),
    ),
  );
  // the subscribed URIs, in order, for the session to keep (MCP-56)
  const subscribed = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await checkResource(runtime, request.params.uri, caller(extra.signal));
    await subscriptions.add(request.params.uri);
    if (!subscribed.has(request.params.uri)) {
      subscribed.add(request.params.uri);
      init.subscriptionsChanged?.([...subscribed]);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.remove(request.params.uri);
    if (subscribed.delete(request.params.uri)) init.subscriptionsChanged?.([...subscribed]);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const { page, nextCursor } = paged(listedPrompts(runtime), request.params?.cursor, init.pageSize);
    return { prompts: page, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    inRequestSpan(
      init.tracing,
      {
        method: 'prompts/get',
        target: request.params.name,
        attributes: { 'gen_ai.prompt.name': spanText(request.params.name) },
        id: extra.requestId,
        trace: messageTrace(request.params._meta, extra.requestInfo?.headers),
      },
      (trace) =>
        getPrompt(runtime, request.params.name, request.params.arguments ?? {}, caller(extra.signal, trace)),
    ),
  );
  server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
    inRequestSpan(
      init.tracing,
      {
        method: 'completion/complete',
        attributes: {
          'plexus.completion.ref': spanText(
            request.params.ref.type === 'ref/prompt' ? request.params.ref.name : request.params.ref.uri,
          ),
          'plexus.completion.argument': spanText(request.params.argument.name),
        },
        id: extra.requestId,
        trace: messageTrace(request.params._meta, extra.requestInfo?.headers),
      },
      (trace) =>
        complete(
          runtime,
          request.params.ref,
          request.params.argument,
          caller(extra.signal, trace),
          request.params.context?.arguments ?? {},
        ),
    ),
  );
  const runToolCall = async (
    request: CallToolRequest,
    extra: ToolCallExtra,
    { traceparent, tracestate }: MessageTrace,
  ): Promise<CallToolResult> => {
    const entry = catalogOf(runtime.agents.registry).byName(request.params.name);
    if (entry === undefined) {
      return toolFailure(
        new PlexusError('UNKNOWN_VERB', `no tool named ${JSON.stringify(request.params.name)}`),
        'none',
      );
    }
    const token = request.params._meta?.progressToken;
    // MCP-50, MCP-51: what the client can do for the call's job, on the call's own stream
    const client = server.getClientCapabilities();
    const relatedRequestId = extra.requestId;
    const callId = randomUUID();
    const key = toolCallKey(callId);
    init.callStarted?.(relatedRequestId, {
      tool: entry.tool.name,
      key,
      ...(token === undefined ? {} : { token }),
    });
    const startedAt = Date.now();
    const started = performance.now();
    const result = await callTool(init.runtime, entry, request.params.arguments, {
      callId,
      principal: init.principal,
      ...(init.capability === undefined ? {} : { capability: init.capability }),
      transport: init.transport,
      signal: extra.signal,
      ...(token === undefined ? {} : { progressToken: token }),
      ...(traceparent === undefined ? {} : { traceparent }),
      ...(tracestate === undefined ? {} : { tracestate }),
      notify: (notification) => extra.sendNotification(notification),
      ...(client?.elicitation?.form === undefined
        ? {}
        : {
            elicit: (params, signal) =>
              server.elicitInput(params, { relatedRequestId, signal, timeout: MCP_ELICITATION_TIMEOUT_MS }),
          }),
      ...(client?.sampling === undefined
        ? {}
        : {
            channel: samplingChannel((params, options) =>
              server.createMessage(params, { relatedRequestId, ...options }),
            ),
          }),
      // MCP-41: once the session asked for logging, its calls' progress reports are logged to it
      ...(level === undefined
        ? {}
        : {
            onProgress: (progress: JsonValue) => {
              log(
                'info',
                { event: 'progress', tool: entry.tool.name, agent: entry.agentId, progress },
                (notification) => extra.sendNotification(notification),
              );
            },
          }),
    });
    const seconds = Math.max(0, performance.now() - started) / 1000;
    await init.toolCalled?.({
      tool: entry.tool.name,
      agent: entry.agentId,
      verb: entry.verb,
      arguments: request.params.arguments,
      result,
      status: toolCallStatus(result),
      seconds,
      startedAt,
      key,
      ...optionalClient(server.getClientVersion()?.name),
    });
    const failed = result.isError === true;
    log(failed ? 'warning' : 'info', {
      event: 'tools/call',
      tool: entry.tool.name,
      agent: entry.agentId,
      outcome: failed ? 'error' : 'ok',
      durationMs: Math.round(seconds * 1000),
      ...(failed ? { code: result._meta?.['plexus/code'] } : {}),
    });
    return result;
  };
  // OBS-57: a call is a SERVER span (its invocation the child) like the requests above.
  // MCP-59: registered as the protocol registers any request (its params parsed once against
  // the schema); the SDK Server's own tools/call wrapper would parse them twice more and the
  // result once, a result this face builds itself (tool-call.ts) in the schema's shape.
  protocolHandler(server, CallToolRequestSchema, (request, extra) =>
    inRequestSpan(
      init.tracing,
      {
        method: 'tools/call',
        target: request.params.name,
        attributes: {
          'gen_ai.tool.name': spanText(request.params.name),
          'gen_ai.operation.name': 'execute_tool',
        },
        id: extra.requestId,
        trace: messageTrace(request.params._meta, extra.requestInfo?.headers),
        failed: toolError,
      },
      (trace) => runToolCall(request, extra, trace),
    ),
  );
  paramsErrorsAreInvalidParams(server);
  return server;
}

/**
 * Registers `handler` for `tools/call` with the SDK's base `Protocol` registration (the
 * request parsed against `schema`, the answer sent as given), not the `Server` override that
 * also validates the answer (MCP-59).
 */
function protocolHandler(
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see SessionServer
  server: Server,
  schema: typeof CallToolRequestSchema,
  handler: (request: CallToolRequest, extra: ToolCallExtra) => Promise<CallToolResult>,
): void {
  Protocol.prototype.setRequestHandler.call(server, schema, handler);
}

/** What the SDK hands a `tools/call` handler beside the request. */
type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The failure a `tools/call` result stands for (`isError`, its Plexus code in `_meta`), OBS-57. */
function toolError(result: CallToolResult): PlexusError | undefined {
  if (result.isError !== true) return undefined;
  const code = result._meta?.['plexus/code'];
  const first = result.content[0];
  const known = isPlexusErrorCode(code) ? code : 'INTERNAL';
  const text = first?.type === 'text' ? first.text : 'the tool answered an error';
  return new PlexusError(
    known,
    (text.startsWith(`${known}: `) ? text.slice(known.length + 2) : text).slice(0, 500),
  );
}

type RawHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * MCP-14: the SDK checks a request's params against the method's schema before the handler
 * runs and answers a mismatch as −32603 (internal error); the protocol's answer is −32602.
 * Its wrapper parses synchronously, so a synchronous throw is exactly a params mismatch.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see SessionServer
function paramsErrorsAreInvalidParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, RawHandler> })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers) {
    handlers.set(method, (request, extra) => {
      try {
        return handler(request, extra);
      } catch (error) {
        if (error instanceof McpError) throw error;
        const detail = error instanceof Error ? error.message.slice(0, 500) : String(error);
        return Promise.reject(
          new McpError(ErrorCode.InvalidParams, `invalid params for ${method}: ${detail}`),
        );
      }
    });
  }
}
