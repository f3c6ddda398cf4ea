/**
 * The MCP server face (issue 13, seed 004 Req 5): Streamable HTTP at `/mcp` on the node's
 * server, the registry's verbs as tools. Its context reads bodies as text (validated by the
 * routes), answers failures as JSON-RPC errors (never a fastify body), refuses a foreign
 * Origin (403) and then authenticates every request like the other HTTP faces (bearer JWT,
 * API key or UCAN; 401); an anonymous request reaching a loopback address must name a
 * loopback Host (403 otherwise: DNS rebinding, MCP-43). When the registry changes, open sessions are sent
 * `notifications/tools/list_changed`.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { Principal } from '../../runtime/index.js';
import { RUNTIME_EVENTS } from '../../runtime/events.js';
import type { Face, FaceComponents, FaceFactory, FaceServer } from '../face.js';
import { runtimePrincipal, silentLogger } from '../face-components.js';
import { refusalOf } from '../http/framework-errors.js';
import { positiveWhole } from '../positive-whole.js';
import { authenticateHeaders } from '../ucan-credential.js';
import { hostAllowed, originAllowed, sendRefusal } from './mcp-http.js';
import {
  MCP_DEFAULT_KEEPALIVE_MS,
  MCP_DEFAULT_PAGE_SIZE,
  MCP_DEFAULT_SESSION_IDLE_MS,
  MCP_PATH,
} from './mcp-protocol.js';
import { registerMcpRoutes } from './mcp-routes.js';
import { sessionServer, subscriptionsOfServer } from './mcp-server.js';
import { agentUri } from './mcp-resources.js';
import { isJsonObject } from '../../core/json.js';
import { McpSessions } from './mcp-sessions.js';
import { sessionRecords } from './session-records.js';
import { streamRecovery, type StreamRecovery } from './stream-recovery.js';
import { callRecorder } from './call-recorder.js';
import { callCausation } from './stream-records.js';
import { announceMissed } from './missed-notifications.js';
import { toolVisibility } from './tool-visibility.js';
import { McpStats } from './mcp-stats.js';
import { registerMcpStatsRoute } from './mcp-stats-route.js';
import { httpFaceScope } from '../http/http-face-scope.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';

/** Options of {@link mcpFace}. */
export interface McpFaceInit {
  /** Idle time after which a session ends, ms. @default 1800000 (30 min) */
  readonly sessionIdleMs?: number;
  /** Period of `: keep-alive` comments on the GET stream, ms. @default 15000 */
  readonly keepAliveMs?: number;
  /** Tools per `tools/list` page. @default 100 */
  readonly pageSize?: number;
}

interface Caller {
  readonly principal: Principal;
  readonly capability?: string;
}

const AGENT_EVENTS: readonly string[] = [
  RUNTIME_EVENTS.agentRegistered,
  RUNTIME_EVENTS.agentUpdated,
  RUNTIME_EVENTS.agentRemoved,
];

/**
 * The MCP face's factory.
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad option.
 * @example
 * createNode({ faces: [...defaultFaces(init), mcpFace({ sessionIdleMs: 600_000 })] });
 */
export function mcpFace(init: McpFaceInit = {}): FaceFactory {
  return (components): Face => {
    // MCP-55: sessions are kept in the log, so a restart does not end them
    const records = sessionRecords(components.log, components.logger);
    const sessions = new McpSessions({
      idleMs: positiveWhole('sessionIdleMs', init.sessionIdleMs ?? MCP_DEFAULT_SESSION_IDLE_MS),
      records,
    });
    const streams = new Set<() => void>();
    const watching = new AbortController();
    const recover = streamRecovery({
      runtime: components.runtime,
      log: components.log,
      records,
      signal: watching.signal,
      // MCP-62: a call answered after a restart is recorded like any other, once
      record: (principal, done, causation) => callRecorder(components, principal)(done, causation),
    });
    return {
      name: 'mcp',
      register: (server) =>
        registerMcpContext(components, server, init, sessions, streams, recover, watching.signal),
      start() {
        void announceToolChanges(components, sessions, watching.signal);
        return Promise.resolve();
      },
      async stop() {
        watching.abort();
        for (const end of [...streams]) end();
        await sessions.close();
      },
    };
  };
}

/**
 * When an agent changes, tells every open session that the tool, resource and prompt lists
 * changed, and a session subscribed to the agent's card that it was updated.
 */
async function announceToolChanges(
  components: FaceComponents,
  sessions: McpSessions,
  signal: AbortSignal,
): Promise<void> {
  const logger = components.logger ?? silentLogger;
  try {
    const { seq } = await components.log.head({ signal });
    for await (const event of components.log.subscribe(seq, { type: AGENT_EVENTS }, { signal })) {
      if (!AGENT_EVENTS.includes(event.type)) continue;
      const data = isJsonObject(event.data) ? event.data : {};
      const card = isJsonObject(data['card']) ? data['card'] : {};
      const id = data['id'] ?? card['id'];
      for (const session of sessions.all()) {
        session.server.sendToolListChanged().catch(() => undefined);
        session.server.sendResourceListChanged().catch(() => undefined);
        session.server.sendPromptListChanged().catch(() => undefined);
        if (typeof id === 'string') subscriptionsOfServer(session.server)?.touch(agentUri(id));
      }
    }
  } catch (error) {
    if (!signal.aborted)
      logger.warn({ error: String(error) }, 'mcp: tool list changes are no longer announced');
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

async function registerMcpContext(
  components: FaceComponents,
  server: FaceServer,
  init: McpFaceInit,
  sessions: McpSessions,
  streams: Set<() => void>,
  recover: StreamRecovery,
  stopping: AbortSignal,
): Promise<void> {
  const { bodyLimitBytes } = server.options;
  const keepAliveMs = positiveWhole('keepAliveMs', init.keepAliveMs ?? MCP_DEFAULT_KEEPALIVE_MS);
  const pageSize = positiveWhole('pageSize', init.pageSize ?? MCP_DEFAULT_PAGE_SIZE);
  const callers = new WeakMap<FastifyRequest, Caller>();
  const callerOf = (request: FastifyRequest): Caller => {
    const caller = callers.get(request);
    if (caller === undefined) throw new PlexusError('UNAUTHORIZED', 'the request was not authenticated');
    return caller;
  };
  await server.http.register((face: FastifyInstance, _options, done) => {
    face.removeAllContentTypeParsers();
    face.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: bodyLimitBytes },
      (_request, body, parsed) => {
        parsed(null, body);
      },
    );
    face.setErrorHandler((error: FastifyError, request, reply) => {
      const refusal = refusalOf(error, request.url, bodyLimitBytes);
      return sendRefusal(reply, refusal);
    });
    face.addHook('onRequest', async (request, reply) => {
      if (!originAllowed(request)) {
        return sendRefusal(
          reply,
          new PlexusError('FORBIDDEN', 'this Origin may not use the MCP endpoint'),
          403,
        );
      }
      let caller: Caller;
      try {
        const credential = await authenticateHeaders(components, request.headers);
        const principal = runtimePrincipal(credential.principal);
        caller =
          credential.capability === undefined
            ? { principal }
            : { principal, capability: credential.capability };
      } catch (error) {
        const refusal =
          error instanceof PlexusError
            ? error
            : new PlexusError('UNAUTHORIZED', 'the credential could not be checked');
        reply.header('www-authenticate', `Bearer resource_metadata="${MCP_PATH}"`);
        return sendRefusal(reply, refusal, 401);
      }
      if (!hostAllowed(request, caller.principal)) {
        return sendRefusal(
          reply,
          new PlexusError(
            'FORBIDDEN',
            'an unauthenticated request on a loopback address must name a loopback Host (localhost, 127.0.0.1, [::1])',
          ),
          403,
        );
      }
      callers.set(request, caller);
    });
    registerMcpRoutes(face, {
      sessions,
      bodyLimitBytes,
      keepAliveMs,
      principalOf: (request) => callerOf(request).principal,
      recover,
      // MCP-63: what a GET stream of a previous process carried, as far as the log knows it
      reconnected: (session) => {
        void announceMissed(components.log, session, stopping);
      },
      serverFor: (request, hooks) => {
        const caller = callerOf(request);
        const record = callRecorder(components, caller.principal);
        /** Keys of the calls answered on a POST stream, not recorded yet (MCP-62). */
        const streamed = new Set<string>();
        return sessionServer({
          runtime: components.runtime,
          principal: caller.principal,
          ...(caller.capability === undefined ? {} : { capability: caller.capability }),
          transport: { remoteAddress: request.ip },
          pageSize,
          // MCP-62: a streamed call's record names its key, so a resumption records it no more
          toolCalled: (done) => record(done, streamed.delete(done.key) ? callCausation(done.key) : undefined),
          ...optional('visible', toolVisibility(components, caller)),
          headSeq: async () => (await components.log.head()).seq,
          ...optional('tracing', components.tracing),
          levelChanged: (level) => {
            hooks.levelChanged(level);
          },
          subscriptionsChanged: (uris) => {
            hooks.subscriptionsChanged(uris);
          },
          callStarted: (id, call) => {
            if (hooks.callStarted(id, call)) streamed.add(call.key);
          },
        });
      },
      track: (end) => {
        streams.add(end);
        return () => streams.delete(end);
      },
    });
    done();
  });
  const scope = httpFaceScope(components, server);
  const stats = new McpStats(components.log);
  await registerHttpFaceContext(server.http, scope, {
    authenticate: true,
    routes: (context) => {
      registerMcpStatsRoute(context, scope, stats);
    },
  });
}
