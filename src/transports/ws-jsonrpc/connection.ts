/**
 * One WebSocket connection of the Hyperspace face: text frames in, JSON-RPC answers out,
 * with the face's limits — message size, batch size, messages in flight (backpressure) — and
 * the credential checked again on every message.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import WebSocket from 'ws';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { PlexusErrorCode } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Runtime } from '../../runtime/index.js';
import type { Authenticator, Principal as AuthPrincipal } from '../../security/auth/index.js';
import {
  JSONRPC_VERSION,
  handleJsonRpc,
  isJsonRpcId,
  parseJsonRpcText,
  toJsonRpcError,
} from '../../wire/jsonrpc/index.js';
import type { JsonRpcId, JsonRpcResponse } from '../../wire/jsonrpc/index.js';
import type { Admission } from '../admission.js';
import type { Logger } from '../../core/logger.js';
import type { Observer } from '../../runtime/observer.js';
import { errorDataWithRecovery, hyperspaceDispatch } from './dispatch.js';
import { WS_CLOSE_CODES } from './protocol.js';

/** The settled limits a connection enforces. */
export interface ConnectionLimits {
  readonly maxMessageBytes: number;
  readonly maxInFlight: number;
  readonly maxBatchSize: number;
}

/** What a connection needs. */
export interface ConnectionInit {
  readonly ws: WebSocket;
  readonly principal: AuthPrincipal;
  /** The capability container presented at the upgrade (each call may bring its own). */
  readonly capability?: string;
  /**
   * Re-checks the credential (a UCAN chain: revocations, expiry of every link) before each
   * message; false closes the connection like an expired token. @default none
   */
  readonly credentialValid?: () => boolean;
  readonly remoteAddress: string;
  readonly runtime: Runtime;
  readonly auth: Authenticator;
  readonly logger: Logger;
  readonly limits: ConnectionLimits;
  readonly methodAliases: ReadonlyMap<string, string>;
  readonly now: () => number;
  /** The node's admission control: every call takes a slot, this socket being its connection. */
  readonly admission?: Admission;
  /** The caller's span the upgrade request named (a valid `traceparent` header): each call is a span of its trace. */
  readonly traceparent?: string;
  /** The upgrade's `tracestate` beside it, when well formed (OBS-45). */
  readonly tracestate?: string;
  /** The node's tracer: each call is a SERVER span. @default none */
  readonly tracing?: Observer;
}

/** A live connection, as the server tracks it. */
export interface Connection {
  readonly id: string;
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;
  /** Terminates the connection when the previous ping was not answered, else pings. */
  heartbeat(): void;
  /** Starts the closing handshake. */
  close(code: number, reason: string): void;
  /** Drops the socket at once. */
  terminate(): void;
}

/**
 * The `data` member of an error answer: the Plexus ErrorData (`code`, `message`, `retryable`,
 * `details`) with the members of `details` also copied to the top, where the seed's clients
 * read them (`{remaining, requested, limit}` on −32002), except that failures which are not PlexusErrors (bugs) say no more than
 * "internal error".
 */
export function hyperspaceErrorData(error: PlexusError): JsonValue {
  if (error.code === 'INTERNAL' && error.cause !== undefined && !(error.cause instanceof PlexusError)) {
    return { code: 'INTERNAL', message: 'internal error', retryable: false };
  }
  const data = errorDataWithRecovery(error); // ErrorData plus the recovery fields (seed 002 §8.2)
  const details = data['details'];
  // The seed's clients read application fields at the top of `data` (seed 003 §8:
  // `{remaining, requested, limit}` for −32002); Plexus's own members win a clash.
  return isJsonObject(details) ? { ...details, ...data } : data;
}

/** One JSON-RPC error response (Hyperspace codes) for an error the face itself found. */
export function faceErrorResponse(
  code: PlexusErrorCode,
  message: string,
  id: JsonRpcId,
  details?: JsonObject,
): JsonRpcResponse {
  const error = new PlexusError(code, message, details === undefined ? {} : { details });
  return {
    jsonrpc: JSONRPC_VERSION,
    error: toJsonRpcError(error, { codes: 'hyperspace', data: hyperspaceErrorData(error) }),
    id,
  };
}

function byteLength(raw: WebSocket.RawData): number {
  if (Array.isArray(raw)) return raw.reduce((n, b) => n + b.length, 0);
  return raw.byteLength;
}

function textOf(raw: WebSocket.RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  if (raw instanceof ArrayBuffer) return Buffer.from(raw).toString('utf8');
  return raw.toString('utf8');
}

/** The answer to a batch over the size limit: one error per member with a readable id. */
function batchTooLarge(messages: readonly JsonValue[], limit: number): JsonRpcResponse[] | JsonRpcResponse {
  const message = `the batch has ${messages.length} calls; the limit is ${limit}: split it`;
  const details = { limit, size: messages.length };
  const answers = messages.flatMap((m) =>
    isJsonObject(m) && 'id' in m && isJsonRpcId(m.id)
      ? [faceErrorResponse('INPUT_TOO_LARGE', message, m.id, details)]
      : [],
  );
  return answers.length > 0 ? answers : faceErrorResponse('INPUT_TOO_LARGE', message, null, details);
}

/**
 * Serves one accepted WebSocket: answers each text message (request, notification or batch)
 * through the runtime. Never throws into the socket's event handlers.
 */
export function openConnection(init: ConnectionInit): Connection {
  const { ws, limits, logger } = init;
  const id = randomUUID();
  const controller = new AbortController();
  // Every call in flight listens to it; their number is bounded by maxInFlight × maxBatchSize.
  setMaxListeners(0, controller.signal);
  let alive = true;
  let inFlight = 0;
  let paused = false;
  const backlog: [WebSocket.RawData, boolean][] = [];
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const dispatch = hyperspaceDispatch(
    init.runtime,
    { methodAliases: init.methodAliases },
    {
      principal: init.principal,
      ...(init.capability === undefined ? {} : { capability: init.capability }),
      transport: { remoteAddress: init.remoteAddress, connection: id },
      ...(init.traceparent === undefined ? {} : { traceparent: init.traceparent }),
      ...(init.tracestate === undefined ? {} : { tracestate: init.tracestate }),
      ...(init.tracing === undefined ? {} : { tracing: init.tracing }),
      signal: controller.signal,
      ...(init.admission === undefined ? {} : { admission: init.admission, connection: ws }),
      notify: (text) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      },
    },
  );
  const handleInit = {
    signal: controller.signal,
    codes: 'hyperspace' as const,
    errorData: hyperspaceErrorData,
    onNotificationError: (error: PlexusError, method: string) => {
      logger.info({ connection: id, method, code: error.code }, 'a JSON-RPC notification failed');
    },
  };

  const acquire = (): void => {
    inFlight++;
    if (!paused && inFlight >= limits.maxInFlight) {
      paused = true;
      ws.pause();
    }
  };
  const release = (): void => {
    inFlight--;
    const next = backlog.shift();
    if (next !== undefined) {
      handle(next[0], next[1]);
      return;
    }
    if (paused && inFlight < limits.maxInFlight) {
      paused = false;
      ws.resume();
    }
  };
  /** Sends `text`; the slot is released once it is written to the socket (output backpressure). */
  const answer = (text: string | undefined): void => {
    if (text === undefined || ws.readyState !== WebSocket.OPEN) {
      release();
      return;
    }
    ws.send(text, () => {
      release();
    });
  };

  const credentialLapsed = (): boolean => {
    const { expiresAt, tokenId } = init.principal;
    if (expiresAt !== undefined && init.now() >= expiresAt) return true;
    if (init.credentialValid !== undefined && !init.credentialValid()) return true;
    return tokenId !== undefined && init.auth.isRevoked(tokenId);
  };

  const process = async (text: string): Promise<string | undefined> => {
    const parsed = parseJsonRpcText(text);
    if (parsed.type === 'batch' && parsed.messages.length > limits.maxBatchSize) {
      return JSON.stringify(batchTooLarge(parsed.messages, limits.maxBatchSize));
    }
    const reply = await handleJsonRpc(parsed, dispatch, handleInit);
    return reply === undefined ? undefined : JSON.stringify(reply);
  };

  /** Handles one message in a new slot. */
  const handle = (raw: WebSocket.RawData, isBinary: boolean): void => {
    acquire();
    if (isBinary) {
      answer(
        JSON.stringify(
          faceErrorResponse(
            'INVALID_REQUEST',
            'binary frames are not JSON-RPC here: send each message as a text frame',
            null,
          ),
        ),
      );
      return;
    }
    const size = byteLength(raw);
    if (size > limits.maxMessageBytes) {
      answer(
        JSON.stringify(
          faceErrorResponse(
            'INPUT_TOO_LARGE',
            `the message is ${size} bytes; the limit is ${limits.maxMessageBytes}`,
            null,
            { limit: limits.maxMessageBytes, size },
          ),
        ),
      );
      return;
    }
    if (credentialLapsed()) {
      backlog.length = 0;
      ws.close(WS_CLOSE_CODES.policyViolation, 'the credential expired or was revoked; reconnect');
      release();
      return;
    }
    process(textOf(raw)).then(answer, (error: unknown) => {
      logger.error({ connection: id, error: toPlexusError(error).message }, 'answering a message failed');
      release();
    });
  };

  /**
   * A message read while every slot is taken (frames of the same socket read still arrive
   * after `pause()`) waits in the backlog, so at most `maxInFlight` are worked on at once.
   */
  const onMessage = (raw: WebSocket.RawData, isBinary: boolean): void => {
    alive = true;
    if (inFlight >= limits.maxInFlight) backlog.push([raw, isBinary]);
    else handle(raw, isBinary);
  };

  ws.on('message', onMessage);
  ws.on('pong', () => {
    alive = true;
  });
  ws.on('error', (error: Error) => {
    logger.warn({ connection: id, error: error.message }, 'WebSocket error; the connection closes');
  });
  ws.once('close', () => {
    controller.abort(new PlexusError('CANCELLED', 'the WebSocket connection closed'));
    resolveClosed();
  });

  return {
    id,
    closed,
    heartbeat() {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    },
    close(code, reason) {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
    },
    terminate() {
      ws.terminate();
    },
  };
}
