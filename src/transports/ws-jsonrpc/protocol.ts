/**
 * The wire conventions of the Hyperspace face (seed 003 §2.2, §3, §8; DESIGN D10, D14, D15):
 * WebSocket JSON-RPC 2.0 on the node's port. Shared by the server and the client so both
 * sides agree on paths, subprotocols, the request controls and the stream notification.
 */
import type { JsonValue } from '../../core/json.js';
import type { JsonRpcId } from '../../wire/jsonrpc/index.js';

/** The request paths the face answers WebSocket upgrades on (query strings allowed). */
export const WS_JSONRPC_PATHS: readonly string[] = ['/', '/rpc'];

/**
 * The subprotocol the server selects when the client offers it. Browsers that offer
 * subprotocols must get one back, so a browser client offers this one beside its
 * credential ({@link WS_BEARER_PROTOCOL_PREFIX}).
 */
export const WS_JSONRPC_SUBPROTOCOL = 'jsonrpc';

/**
 * The prefix of the subprotocol that carries a bearer credential for clients that cannot set
 * headers (browsers): `plexus.bearer.<token>`. The server never selects it (the token is not
 * echoed back).
 */
export const WS_BEARER_PROTOCOL_PREFIX = 'plexus.bearer.';

/** The query parameters that carry a bearer credential (RFC 6750 §2.3 name, and a short alias). */
export const WS_TOKEN_QUERY_PARAMS: readonly string[] = ['access_token', 'token'];

/**
 * Members of object `params` that steer the face rather than the verb. They are removed
 * before `params` becomes the verb's input.
 */
export const WS_CONTROL_PARAMS = {
  /** `true`: send progress as {@link WS_STREAM_METHOD} notifications before the answer. */
  stream: '_x_stream',
  /** The job's timeout in ms (a whole number ≥ 1; the node's maximum still applies). */
  timeoutMs: '_x_timeout_ms',
  /** An explicit idempotency key (1–256 characters): a repeat gets the first job's answer. */
  idempotencyKey: '_x_idempotency_key',
  /** A capability container (UCAN, then proofs) for this call; wins over the upgrade's. */
  capability: '_x_capability',
  /**
   * Reserved call metadata (as MCP's `params._meta`): `traceparent` names the caller's span
   * (W3C), whose trace the call continues. Never part of the verb's input.
   */
  meta: '_meta',
} as const;

/** The method of the notifications that carry a streaming call's progress chunks. */
export const WS_STREAM_METHOD = 'stream.data';

/** The `params` of a {@link WS_STREAM_METHOD} notification. */
export interface WsStreamChunk {
  /** The id of the request the chunk belongs to. */
  readonly id: JsonRpcId;
  /** The job running the request (usable on the ESRP face: `GET /v1/jobs/{id}`). */
  readonly job: string;
  /** 1 for the first chunk of the request, then 2, 3, … with no gaps. */
  readonly seq: number;
  /** What the handler reported (`HandlerContext.progress(data)`). */
  readonly data: JsonValue;
}

/** WebSocket close codes the face uses (RFC 6455 §7.4). */
export const WS_CLOSE_CODES = {
  /** The server is shutting down (`close()`). */
  goingAway: 1001,
  /** The credential expired or was revoked while the connection was open. */
  policyViolation: 1008,
  /** A frame was larger than the hard frame limit. */
  messageTooBig: 1009,
  /** Normal closure (the client's `close()`). */
  normal: 1000,
} as const;

/** Defaults of the face's limits. */
export const WS_JSONRPC_DEFAULTS = {
  /** Largest message answered (bigger ones get a −32600 error and the connection stays). */
  maxMessageBytes: 1024 * 1024,
  /** Frames bigger than this many times `maxMessageBytes` close the connection with 1009. */
  hardLimitFactor: 4,
  /** Most messages of one connection being worked on before the server stops reading it. */
  maxInFlight: 64,
  /** Most calls in one batch. */
  maxBatchSize: 100,
  /** Most open connections. */
  maxConnections: 10_000,
  /** Ping interval, ms; a connection that missed the previous pong is terminated. */
  pingIntervalMs: 30_000,
  /** How long `close()` waits for clients to finish the closing handshake, ms. */
  closeGraceMs: 1_000,
} as const;

/** Bounds of the ping interval, ms. */
export const WS_PING_INTERVAL_BOUNDS = { min: 10, max: 600_000 } as const;
