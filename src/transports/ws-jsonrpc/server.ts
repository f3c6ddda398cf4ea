/**
 * The Hyperspace face on the node's one port (D15): WebSocket JSON-RPC 2.0 attached to the
 * node's `http.Server` 'upgrade' event, with bearer authentication at the upgrade (D14),
 * per-connection limits, ping/pong keepalive, and a clean shutdown.
 */
import {
  TRACEPARENT_HEADER,
  callerTraceparent,
  traceOfRequest,
  traceResponseHeaders,
} from '../trace-headers.js';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type WebSocket from 'ws';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { bearerChallenge } from '../../security/auth/index.js';
import type { Admission } from '../admission.js';
import { silentLogger } from '../face-components.js';
import type { FaceComponents } from '../face-components.js';
import { credentialStillValid } from '../capability-gate.js';
import { authenticateCredential, type AuthenticatedCredential } from '../ucan-credential.js';
import { openConnection } from './connection.js';
import type { Connection } from './connection.js';
import { WS_CLOSE_CODES, WS_JSONRPC_DEFAULTS, WS_PING_INTERVAL_BOUNDS } from './protocol.js';
import { isFacePath, refuseUpgrade, selectProtocol, upgradeCredential, upgradeUrl } from './upgrade.js';
import { HTTP_STATUS } from '../http/http-status.js';

/** Options of {@link attachWsJsonRpc}. */
export interface WsJsonRpcInit {
  /**
   * Largest message answered, bytes. A bigger one (up to `maxFrameBytes`) gets a −32600 error
   * (`INPUT_TOO_LARGE`, id null) and the connection stays open.
   * @default 1048576 (1 MiB)
   */
  readonly maxMessageBytes?: number;
  /**
   * Largest message read at all, bytes; a bigger one closes the connection with 1009.
   * @default 4 × maxMessageBytes
   */
  readonly maxFrameBytes?: number;
  /**
   * Most messages of one connection being worked on (or whose answer is not yet written to the
   * socket) before the server stops reading that connection; reading resumes as answers go out.
   * @default 64
   */
  readonly maxInFlight?: number;
  /** Most calls in one batch; a bigger batch gets one −32600 error per call. @default 100 */
  readonly maxBatchSize?: number;
  /** Most open connections; more upgrades get HTTP 503. @default 10000 */
  readonly maxConnections?: number;
  /**
   * Ping interval, ms (10 … 600000); a connection that has not answered the previous ping (nor
   * sent anything) by the next one is terminated.
   * @default 30000
   */
  readonly pingIntervalMs?: number;
  /** How long `close()` waits for the closing handshakes before terminating, ms. @default 1000 */
  readonly closeGraceMs?: number;
  /**
   * What to do with upgrades on other paths than `/` and `/rpc`: `true` refuses them with
   * HTTP 404; `false` leaves them to other 'upgrade' listeners. By default they are refused
   * only when this face is the server's only 'upgrade' listener (else nobody would answer).
   */
  readonly exclusive?: boolean;
  /**
   * JSON-RPC method → verb, for method names that are not Plexus verbs (`subtract` →
   * `spec.subtract`). Methods without an alias are verbs as written.
   * @default {}
   */
  readonly methodAliases?: Readonly<Record<string, string>>;
  /** The clock, Unix ms (credential expiry). @default Date.now */
  readonly now?: () => number;
  /**
   * The node's admission control: each call takes a slot (node-wide and per connection) before
   * it runs; a call beyond the bounds is answered −32003 (Rate Limited). @default none
   */
  readonly admission?: Admission;
}

/** The attached face. */
export interface WsJsonRpcFace {
  /**
   * Stops answering upgrades, closes every connection (1001, then terminates after the grace
   * period; their calls in flight are cancelled) and resolves when all are closed. Safe to
   * call twice.
   */
  close(): Promise<void>;
  /** The number of open connections. */
  connectionCount(): number;
}

function positiveInt(
  name: string,
  value: number | undefined,
  fallback: number,
  min = 1,
  max?: number,
): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min || (max !== undefined && v > max)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${name} must be a whole number ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, got ${String(v)}`,
      { details: { pointer: `/${name}` } },
    );
  }
  return v;
}

/** The Hyperspace face before it is attached: it answers the upgrades it is handed. */
export interface WsJsonRpcHandler extends WsJsonRpcFace {
  /** Answers one upgrade on one of the face's paths (`/`, `/rpc`). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/**
 * The Hyperspace face (WebSocket JSON-RPC 2.0), answering the upgrades it is handed: they
 * are authenticated with `components.auth` (header `Authorization: Bearer …`, else a
 * `plexus.bearer.<token>` subprotocol, else `?access_token=` / `?token=`) and refused with
 * HTTP 401 and `WWW-Authenticate` when that fails. Each text message is a JSON-RPC request,
 * notification or batch; the method is the verb, answered with the Hyperspace error codes
 * (see docs/decisions/faces-ws.md).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option.
 * @example
 * const ws = createWsJsonRpc(components);
 * server.on('upgrade', (request, socket, head) => ws.handleUpgrade(request, socket, head));
 */
export function createWsJsonRpc(components: FaceComponents, init: WsJsonRpcInit = {}): WsJsonRpcHandler {
  const D = WS_JSONRPC_DEFAULTS;
  const maxMessageBytes = positiveInt('maxMessageBytes', init.maxMessageBytes, D.maxMessageBytes);
  const maxFrameBytes = positiveInt(
    'maxFrameBytes',
    init.maxFrameBytes,
    maxMessageBytes * D.hardLimitFactor,
    maxMessageBytes,
  );
  const limits = {
    maxMessageBytes,
    maxInFlight: positiveInt('maxInFlight', init.maxInFlight, D.maxInFlight),
    maxBatchSize: positiveInt('maxBatchSize', init.maxBatchSize, D.maxBatchSize),
  };
  const maxConnections = positiveInt('maxConnections', init.maxConnections, D.maxConnections);
  const pingIntervalMs = positiveInt(
    'pingIntervalMs',
    init.pingIntervalMs,
    D.pingIntervalMs,
    WS_PING_INTERVAL_BOUNDS.min,
    WS_PING_INTERVAL_BOUNDS.max,
  );
  const closeGraceMs = positiveInt('closeGraceMs', init.closeGraceMs, D.closeGraceMs, 0);
  const methodAliases = new Map(Object.entries(init.methodAliases ?? {}));
  const now = init.now ?? Date.now;
  const logger = components.logger ?? silentLogger;

  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: maxFrameBytes,
    handleProtocols: (protocols) => selectProtocol(protocols),
  });
  // The 101 answer names the trace the upgrade was served in (W3C traceparent / tracestate).
  wss.on('headers', (headers: string[], request: IncomingMessage) => {
    for (const [name, value] of Object.entries(traceResponseHeaders(request))) {
      headers.push(`${name}: ${value}`);
    }
  });
  const connections = new Set<Connection>();
  let pending = 0;
  let closing: Promise<void> | undefined;

  const accept = (ws: WebSocket, request: IncomingMessage, credential: AuthenticatedCredential): void => {
    const { principal, capability } = credential;
    const trace = traceOfRequest(request);
    const caller = trace.continued ? callerTraceparent(request.headers[TRACEPARENT_HEADER]) : undefined;
    const gate = components.capabilities;
    const connection = openConnection({
      ws,
      principal,
      ...(capability === undefined ? {} : { capability }),
      // A UCAN credential is checked again on every message: a revoked or expired link ends it.
      ...(principal.kind !== 'ucan' || gate === undefined || capability === undefined
        ? {}
        : { credentialValid: () => credentialStillValid(gate, capability) }),
      remoteAddress: request.socket.remoteAddress ?? '',
      runtime: components.runtime,
      auth: components.auth,
      logger,
      limits,
      methodAliases,
      now,
      ...(init.admission === undefined ? {} : { admission: init.admission }),
      // each call is a span of the upgrade's trace, a child of the caller's span it named
      ...(caller === undefined ? {} : { traceparent: caller }),
      ...(caller === undefined || trace.tracestate === undefined ? {} : { tracestate: trace.tracestate }),
      ...(components.tracing === undefined ? {} : { tracing: components.tracing }),
    });
    connections.add(connection);
    void connection.closed.then(() => connections.delete(connection));
  };

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = upgradeUrl(request);
    socket.on('error', () => undefined);
    if (closing !== undefined || connections.size + pending >= maxConnections) {
      refuseUpgrade(
        socket,
        503,
        new PlexusError(
          'UNAVAILABLE',
          closing === undefined ? 'too many WebSocket connections; retry later' : 'the node is shutting down',
        ).toData(),
        { 'Retry-After': '1', ...traceResponseHeaders(request) },
      );
      return;
    }
    pending++;
    const credential = upgradeCredential(request, url);
    authenticateCredential(components, credential).then(
      (authenticated) => {
        pending--;
        if (closing !== undefined || socket.destroyed) {
          socket.destroy();
          return;
        }
        wss.handleUpgrade(request, socket, head, (ws) => {
          accept(ws, request, authenticated);
        });
      },
      (error: unknown) => {
        pending--;
        const refusal = toPlexusError(error);
        if (refusal.code === 'UNAUTHORIZED') {
          logger.info(
            { path: url.pathname, source: credential.source, reason: refusal.details?.reason ?? null },
            'WebSocket upgrade refused: not authenticated',
          );
          refuseUpgrade(socket, 401, refusal.toData(), {
            'WWW-Authenticate': bearerChallenge(refusal),
            ...traceResponseHeaders(request),
          });
        } else {
          logger.error({ error: refusal.message }, 'WebSocket upgrade failed');
          refuseUpgrade(
            socket,
            HTTP_STATUS[refusal.code] >= 500 ? 503 : HTTP_STATUS[refusal.code],
            {
              code: refusal.code,
              message: 'the credential could not be checked',
              retryable: refusal.retryable,
            },
            traceResponseHeaders(request),
          );
        }
      },
    );
  };

  const timer = setInterval(() => {
    for (const connection of connections) connection.heartbeat();
  }, pingIntervalMs);
  timer.unref();

  const shutdown = async (): Promise<void> => {
    clearInterval(timer);
    const open = [...connections];
    for (const connection of open) connection.close(WS_CLOSE_CODES.goingAway, 'the node is shutting down');
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(open.map((c) => c.closed)),
      new Promise<void>((resolve) => (grace = setTimeout(resolve, closeGraceMs))),
    ]);
    clearTimeout(grace);
    for (const connection of open) connection.terminate();
    await Promise.all(open.map((c) => c.closed));
    await new Promise<void>((resolve) => {
      wss.close(() => {
        resolve();
      });
    });
  };

  return {
    handleUpgrade,
    close() {
      closing ??= shutdown();
      return closing;
    },
    connectionCount: () => connections.size,
  };
}

/**
 * Attaches the Hyperspace face (WebSocket JSON-RPC 2.0) to an HTTP server: upgrades on `/` and
 * `/rpc` are answered by {@link createWsJsonRpc}; upgrades on other paths are refused with
 * HTTP 404 when `init.exclusive` says so (see {@link WsJsonRpcInit.exclusive}). A node's faces
 * share the server's upgrades through `FaceServer.upgrade` instead (`wsJsonRpcFace`).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option.
 * @example
 * const app = fastify(); await registerHttpFaces(app, components);
 * const ws = attachWsJsonRpc(app.server, components);
 * await app.listen({ port: 3100 });
 * // …
 * await ws.close(); await app.close();
 */
export function attachWsJsonRpc(
  server: Server,
  components: FaceComponents,
  init: WsJsonRpcInit = {},
): WsJsonRpcFace {
  const face = createWsJsonRpc(components, init);
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = upgradeUrl(request);
    if (!isFacePath(url)) {
      const exclusive = init.exclusive ?? server.listenerCount('upgrade') === 1;
      if (exclusive) {
        refuseUpgrade(
          socket,
          404,
          {
            code: 'NOT_FOUND',
            message: `no WebSocket endpoint at ${url.pathname}; connect to / or /rpc`,
            retryable: false,
          },
          traceResponseHeaders(request),
        );
      }
      return;
    }
    face.handleUpgrade(request, socket, head);
  };
  server.on('upgrade', onUpgrade);
  return {
    close() {
      server.off('upgrade', onUpgrade);
      return face.close();
    },
    connectionCount: () => face.connectionCount(),
  };
}
