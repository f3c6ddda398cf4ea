/**
 * The Streamable HTTP endpoint of the MCP face (issue 13 item 1, MCP 2025-11-25 "Streamable
 * HTTP", docs/decisions/mcp.md): `POST /mcp` carries client messages (answered as JSON or SSE,
 * MCP-5; only notifications and responses: 202), `GET /mcp` opens the session's
 * server-to-client SSE stream, `DELETE /mcp` ends the session. Every request is checked in this
 * order: Origin (403), credential (401, in the face context's hook), body (size, depth, JSON:
 * 413/400 with a JSON-RPC error), session (400 without, 404 unknown or another credential's;
 * a session of a previous process is revived from the log, MCP-56), `MCP-Protocol-Version`
 * (400).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { decodeJsonText } from '../../core/bounded-json.js';
import type { JsonObject } from '../../core/json.js';
import { PlexusError } from '../../core/errors.js';
import type { Principal } from '../../runtime/index.js';
import { acceptsOf, protocolVersionOf, sendRefusal } from './mcp-http.js';
import { jsonRpcMessageOf } from './jsonrpc-message.js';
import { MCP_PATH, MCP_SESSION_HEADER } from './mcp-protocol.js';
import type { McpSession, McpSessions, SessionHooks } from './mcp-sessions.js';
import type { SessionServer } from './mcp-server.js';
import type { MessageSink } from './session-transport.js';
import type { ReplayStream, StreamConnection } from './sse-replay.js';
import type { StreamRecovery } from './stream-recovery.js';
import { traceOfRequest, type ServedTrace } from '../trace-headers.js';

/** What the routes need from the face. */
export interface McpRoutesInit {
  readonly sessions: McpSessions;
  readonly bodyLimitBytes: number;
  readonly keepAliveMs: number;
  /** The authenticated principal of `request` (set by the face context's hook). */
  principalOf(request: FastifyRequest): Principal;
  /** The server of a new (or revived) session opened by `request`, telling the session `hooks`. */
  serverFor(request: FastifyRequest, hooks: SessionHooks): SessionServer;
  /** Recovers a POST stream of a previous process from the log (MCP-57); absent: none is. */
  readonly recover?: StreamRecovery;
  /**
   * Told when `session` reconnects its GET stream with the `Last-Event-ID` of a previous
   * process's GET stream, once the new stream is attached: what it missed is told again (MCP-63).
   */
  readonly reconnected?: (session: McpSession) => void;
  /** Tracks an open SSE stream so the face can end it when it stops; returns the untrack function. */
  track(end: () => void): () => void;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** The body's messages. @throws PlexusError `PARSE_ERROR`, `INVALID_REQUEST`, `INPUT_TOO_LARGE`. */
function messagesOf(
  request: FastifyRequest,
  bodyLimitBytes: number,
): { messages: JSONRPCMessage[]; batch: boolean } {
  const text = typeof request.body === 'string' ? request.body : '';
  const value = decodeJsonText(text, { maxBytes: bodyLimitBytes, what: 'the MCP message' });
  const batch = Array.isArray(value);
  const items: unknown[] = batch ? value : [value];
  if (items.length === 0) throw new PlexusError('INVALID_REQUEST', 'an empty batch carries no message');
  const messages = items.map((item, i) => {
    const message = jsonRpcMessageOf(item);
    if (message === undefined) {
      throw new PlexusError(
        'INVALID_REQUEST',
        `message ${i} is not a JSON-RPC 2.0 request, notification or response`,
      );
    }
    return message;
  });
  return { messages, batch };
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in message && 'id' in message;
}

/** MCP-5: SSE when the client takes only SSE, or takes it and a call asked for progress. */
function wantsStream(messages: readonly JSONRPCMessage[], accepts: { json: boolean; sse: boolean }): boolean {
  if (!accepts.sse) return false;
  if (!accepts.json) return true;
  return messages.some((m) => {
    if (!isRequest(m) || m.method !== 'tools/call') return false;
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * The session `request` names, owned by its credential.
 * @throws PlexusError `INVALID_REQUEST` (400) without the header; `SESSION_NOT_FOUND` (404)
 *   for an unknown session or one another credential opened; `VERSION_MISMATCH` (400) for an
 *   unsupported `MCP-Protocol-Version`.
 */
async function sessionOf(init: McpRoutesInit, request: FastifyRequest): Promise<McpSession> {
  const header = request.headers[MCP_SESSION_HEADER];
  if (typeof header !== 'string' || header === '') {
    throw new PlexusError('INVALID_REQUEST', 'the Mcp-Session-Id header is required after initialize');
  }
  const principal = init.principalOf(request);
  const session =
    init.sessions.use(header, principal) ??
    (await init.sessions.revive(header, principal, (hooks) => init.serverFor(request, hooks)));
  if (session === undefined)
    throw new PlexusError('SESSION_NOT_FOUND', 'no such MCP session: initialize again');
  checkVersion(request);
  return session;
}

function checkVersion(request: FastifyRequest): void {
  if (protocolVersionOf(request) === false) {
    throw new PlexusError(
      'VERSION_MISMATCH',
      'unsupported MCP-Protocol-Version: this server speaks 2025-11-25, 2025-06-18 and 2025-03-26',
    );
  }
}

/**
 * Answers the requests of one POST as one JSON body (a batch gets an array). A single request
 * whose handler sends the client a request first (elicitation, sampling) is answered on an SSE
 * stream instead, when the client takes one (MCP-50).
 */
function answerJson(
  init: McpRoutesInit,
  reply: FastifyReply,
  session: McpSession,
  messages: readonly JSONRPCMessage[],
  batch: boolean,
  sse: boolean,
  trace: ServedTrace,
): Promise<FastifyReply> {
  const waiting = messages.filter(isRequest).length;
  return new Promise((resolve) => {
    const answers: JSONRPCMessage[] = [];
    const upgrade =
      sse && !batch && waiting === 1
        ? (): MessageSink | undefined => {
            if (answers.length > 0 || reply.sent) return undefined;
            const stream = openStream(init, reply, session, 1);
            resolve(reply);
            return stream;
          }
        : undefined;
    const sink: MessageSink = {
      ...(upgrade === undefined ? {} : { upgrade }),
      streams: false,
      write(message) {
        answers.push(message);
        if (answers.length === waiting) {
          reply.header(MCP_SESSION_HEADER, session.id);
          resolve(
            reply
              .code(200)
              .type('application/json')
              .send(batch ? answers : answers[0]),
          );
        }
      },
    };
    for (const message of messages) session.transport.receive(message, sink, trace);
  });
}

/** A stream connection over `raw`, tracked so the face can end it when it stops. */
function connectionOf(init: McpRoutesInit, raw: FastifyReply['raw']): StreamConnection {
  const connection: StreamConnection = {
    write: (frame) => {
      if (!raw.writableEnded) raw.write(frame);
    },
    end: () => {
      if (!raw.writableEnded) raw.end();
    },
  };
  const untrack = init.track(() => raw.end());
  raw.once('close', untrack);
  return connection;
}

/** Turns `reply` into a resumable SSE stream (MCP-15) that ends after `answers` answers. */
function openStream(
  init: McpRoutesInit,
  reply: FastifyReply,
  session: McpSession,
  answers: number,
): MessageSink {
  const stream = session.replay.open(answers);
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...SSE_HEADERS, [MCP_SESSION_HEADER]: session.id });
  const connection = connectionOf(init, raw);
  raw.once('close', () => {
    stream.detach(connection);
  });
  stream.attach(connection);
  return stream;
}

/**
 * Answers the requests of one POST on a resumable SSE stream (MCP-15), which ends after the
 * last answer; when the connection drops first, the stream goes on into the replay buffer.
 */
function answerStream(
  init: McpRoutesInit,
  reply: FastifyReply,
  session: McpSession,
  messages: readonly JSONRPCMessage[],
  trace: ServedTrace,
): FastifyReply {
  const stream = openStream(init, reply, session, messages.filter(isRequest).length);
  for (const message of messages) session.transport.receive(message, stream, trace);
  return reply;
}

async function post(
  init: McpRoutesInit,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { messages, batch } = messagesOf(request, init.bodyLimitBytes);
  const opening = messages.some((m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m));
  if (opening && messages.length > 1) {
    throw new PlexusError('INVALID_REQUEST', 'initialize must be sent alone, not in a batch');
  }
  let session: McpSession;
  if (opening) {
    checkVersion(request);
    const params = (messages[0] as { params?: JsonObject }).params;
    session = await init.sessions.open(
      init.principalOf(request),
      (hooks) => init.serverFor(request, hooks),
      params,
    );
  } else {
    session = await sessionOf(init, request);
  }
  if (!messages.some(isRequest)) {
    for (const message of messages) session.transport.receive(message, undefined);
    return reply.code(202).send();
  }
  const accepts = acceptsOf(request);
  if (!accepts.json && !accepts.sse) {
    return sendRefusal(
      reply,
      new PlexusError('INVALID_REQUEST', 'Accept must include application/json or text/event-stream'),
      406,
    );
  }
  // the span this POST is served in: a call without `_meta.traceparent` runs under it
  const trace = traceOfRequest(request.raw);
  if (wantsStream(messages, accepts)) return answerStream(init, reply, session, messages, trace);
  return answerJson(init, reply, session, messages, batch, accepts.sse, trace);
}

/**
 * The stream `lastEventId` resumes: one of this process (MCP-15), a POST stream of a previous
 * process recovered from the log (MCP-57), or — for the GET stream of a previous process —
 * none (a new GET stream: what it carried before the restart is not kept; what of it derives
 * from the log is told again, MCP-63).
 * @throws PlexusError `INVALID_REQUEST` for an id that names nothing resumable.
 */
async function resumedOf(
  init: McpRoutesInit,
  session: McpSession,
  lastEventId: string,
): Promise<{ stream: ReplayStream; after?: number; run?: () => void } | undefined> {
  const resumed = session.replay.resume(lastEventId);
  if (!('missing' in resumed)) return resumed;
  if (resumed.missing.kind === 'g') return undefined;
  const recovered = await init.recover?.(session, resumed.missing.key);
  if (recovered === undefined) {
    throw new PlexusError(
      'INVALID_REQUEST',
      'Last-Event-ID names no stream of this session that can be resumed: open a new stream (GET without it)',
    );
  }
  return {
    stream: recovered.stream,
    run: () => {
      recovered.run();
    },
  };
}

/**
 * `GET /mcp`: the session's GET stream, or with `Last-Event-ID` the stream that id belongs to
 * (a POST's reply stream or the GET stream), resumed after it (MCP-15, MCP-57).
 */
async function get(init: McpRoutesInit, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const session = await sessionOf(init, request);
  if (!acceptsOf(request).sse) {
    return sendRefusal(
      reply,
      new PlexusError('INVALID_REQUEST', 'GET /mcp needs Accept: text/event-stream'),
      406,
    );
  }
  const lastEventId = request.headers['last-event-id'];
  const resumed =
    typeof lastEventId === 'string' && lastEventId !== ''
      ? await resumedOf(init, session, lastEventId)
      : undefined;
  const stream = resumed?.stream ?? session.replay.standalone();
  // MCP-63: the GET stream of a previous process (the only id answered with no stream)
  const previousGet = resumed === undefined && typeof lastEventId === 'string' && lastEventId !== '';
  if (resumed === undefined && stream.connected) {
    return sendRefusal(reply, new PlexusError('CONFLICT', 'this session already has a GET stream open'), 409);
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...SSE_HEADERS, [MCP_SESSION_HEADER]: session.id });
  const connection = connectionOf(init, raw);
  const standalone = stream === session.replay.standaloneStream;
  const timer = standalone
    ? setInterval(() => {
        connection.write(': keep-alive\n\n');
      }, init.keepAliveMs)
    : undefined;
  timer?.unref();
  raw.once('close', () => {
    clearInterval(timer);
    stream.detach(connection);
  });
  stream.attach(connection, resumed?.after);
  if (standalone) session.transport.standalone(stream);
  resumed?.run?.();
  if (previousGet) init.reconnected?.(session);
  return reply;
}

/** Registers `POST`, `GET` and `DELETE /mcp` on the face's context. */
export function registerMcpRoutes(app: FastifyInstance, init: McpRoutesInit): void {
  app.post(MCP_PATH, (request, reply) => post(init, request, reply));
  app.get(MCP_PATH, (request, reply) => get(init, request, reply));
  app.delete(MCP_PATH, async (request, reply) => {
    const session = await sessionOf(init, request);
    await init.sessions.end(session.id, 'deleted');
    return reply.code(200).send();
  });
}
