/**
 * A small client of the Hyperspace face (WebSocket JSON-RPC 2.0): calls, notifications,
 * batches, stream chunks and server notifications over one connection. Used by the CLI and
 * the benchmarks.
 */
import WebSocket from 'ws';
import { PlexusError, isPlexusErrorCode, toPlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { JSONRPC_VERSION, isJsonRpcId, jsonRpcErrorToPlexus } from '../../wire/jsonrpc/index.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcParams } from '../../wire/jsonrpc/index.js';
import {
  WS_CLOSE_CODES,
  WS_CONTROL_PARAMS,
  WS_JSONRPC_DEFAULTS,
  WS_JSONRPC_SUBPROTOCOL,
  WS_STREAM_METHOD,
} from './protocol.js';
import type { WsStreamChunk } from './protocol.js';
import { plexusCodeFromHttp } from '../http/http-status.js';

/** Options of {@link wsJsonRpcClient}. */
export interface WsJsonRpcClientInit {
  /** `ws://host:port/` or `wss://…/rpc`. */
  readonly url: string;
  /** A bearer token (node JWT or `plx_…` API key), sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** Aborting it cancels the connection attempt, or closes the client. */
  readonly signal?: AbortSignal;
  /**
   * Largest message sent (bigger calls fail locally with `INPUT_TOO_LARGE`) and received.
   * @default 1048576 (the server's default)
   */
  readonly maxMessageBytes?: number;
}

/** Options of one call. */
export interface WsCallOptions {
  /** Aborting it rejects the call with `CANCELLED` (the server's job is not stopped). */
  readonly signal?: AbortSignal;
  /**
   * Gives up after this many ms (`TIMEOUT`); also sent as `_x_timeout_ms` when `params` is
   * an object or absent, so the server stops the job at the same time.
   */
  readonly timeoutMs?: number;
  /** Ask for progress chunks (`_x_stream: true`; needs object or absent params). */
  readonly stream?: boolean;
  /** Receives this call's `stream.data` chunks, in order. */
  readonly onProgress?: (chunk: WsStreamChunk) => void;
  /**
   * The caller's span (W3C `traceparent`), sent as `params._meta.traceparent` when `params` is
   * an object or absent: the server runs the call in that trace.
   */
  readonly traceparent?: string;
  /** The W3C `tracestate` beside `traceparent`, sent as `params._meta.tracestate` (OBS-45). */
  readonly tracestate?: string;
}

/** One member of a batch. */
export interface WsBatchCall {
  readonly method: string;
  readonly params?: JsonRpcParams;
  /** Send as a notification (no answer, no entry in the results). @default false */
  readonly notification?: boolean;
}

/** The outcome of one call of a batch. */
export type WsBatchResult =
  { readonly ok: true; readonly result: JsonValue } | { readonly ok: false; readonly error: PlexusError };

/** Receives a notification from the server (`method`, `params`). */
export type WsNotificationListener = (method: string, params: JsonRpcParams | undefined) => void;

/** A connected client. */
export interface WsJsonRpcClient {
  /**
   * Calls `method` and resolves with its result.
   * @throws PlexusError the server's error (its Plexus code, message, retryable, details when
   *   the server sent ErrorData as `data`); `TIMEOUT`; `CANCELLED`; `INPUT_TOO_LARGE`;
   *   `PEER_UNAVAILABLE` when the connection is closed or closes first.
   */
  call(method: string, params?: JsonRpcParams, options?: WsCallOptions): Promise<JsonValue>;
  /** Sends a notification; resolves once written. @throws PlexusError `PEER_UNAVAILABLE`, `INPUT_TOO_LARGE`. */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Sends a batch; resolves with one outcome per call that is not a notification, in order
   * (a timeout, a cancel or the connection closing makes each unanswered call's outcome that
   * error).
   * @throws PlexusError `INPUT_TOO_LARGE` or `PEER_UNAVAILABLE` when the batch cannot be sent;
   *   `CANCELLED` when the signal is already aborted; `INVALID_PARAMS` for an empty batch.
   */
  batch(
    calls: readonly WsBatchCall[],
    options?: Omit<WsCallOptions, 'stream' | 'onProgress'>,
  ): Promise<WsBatchResult[]>;
  /** Listens to server notifications (stream chunks of calls without `onProgress` included). */
  onNotification(listener: WsNotificationListener): () => void;
  /** Closes the connection (1000); pending calls fail with `PEER_UNAVAILABLE`. Safe to call twice. */
  close(): Promise<void>;
}

interface Pending {
  resolve(value: JsonValue): void;
  reject(error: PlexusError): void;
  onProgress?: ((chunk: WsStreamChunk) => void) | undefined;
}

/** The PlexusError of a JSON-RPC error object (exact when `data` is the server's ErrorData). */
export function errorFromJsonRpc(error: JsonRpcErrorObject): PlexusError {
  const data = error.data;
  if (isJsonObject(data) && isPlexusErrorCode(data.code) && typeof data.message === 'string') {
    const details = isJsonObject(data.details) ? data.details : undefined;
    return new PlexusError(data.code, data.message, {
      ...(typeof data.retryable === 'boolean' ? { retryable: data.retryable } : {}),
      ...(details === undefined ? {} : { details }),
    });
  }
  return jsonRpcErrorToPlexus(error);
}

function closedError(detail: string): PlexusError {
  return new PlexusError('PEER_UNAVAILABLE', `the WebSocket connection is closed (${detail})`);
}

/** Opens the socket; rejects with the HTTP refusal of the upgrade (401 → `UNAUTHORIZED`). */
function connect(init: WsJsonRpcClientInit, maxPayload: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> =
      init.token === undefined ? {} : { Authorization: `Bearer ${init.token}` };
    let ws: WebSocket;
    try {
      ws = new WebSocket(init.url, [WS_JSONRPC_SUBPROTOCOL], {
        headers,
        maxPayload,
        perMessageDeflate: false,
      });
    } catch (error) {
      reject(
        new PlexusError('INVALID_PARAMS', `cannot connect to ${init.url}: ${toPlexusError(error).message}`),
      );
      return;
    }
    const onAbort = (): void => {
      ws.terminate();
      reject(new PlexusError('CANCELLED', 'the connection attempt was cancelled'));
    };
    init.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => init.signal?.removeEventListener('abort', onAbort);
    ws.once('open', () => {
      done();
      resolve(ws);
    });
    ws.once('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        done();
        const status = response.statusCode ?? 0;
        let message = `the node refused the WebSocket upgrade with HTTP ${status}`;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            error?: { message?: unknown };
          };
          if (typeof body.error?.message === 'string') message = `${message}: ${body.error.message}`;
        } catch {
          // not a JSON body: keep the status line
        }
        reject(new PlexusError(plexusCodeFromHttp(status), message));
        request.destroy();
      });
    });
    ws.once('error', (error) => {
      done();
      reject(
        new PlexusError('PEER_UNAVAILABLE', `cannot connect to ${init.url}: ${error.message}`, {
          cause: error,
        }),
      );
    });
  });
}

/**
 * Connects to a node's Hyperspace face.
 *
 * @throws PlexusError `UNAUTHORIZED` (HTTP 401 at the upgrade), `PEER_UNAVAILABLE` (cannot
 *   connect), `CANCELLED` (the signal aborted), `INVALID_PARAMS` (a bad URL).
 * @example
 * const client = await wsJsonRpcClient({ url: 'ws://127.0.0.1:3100/', token });
 * const out = await client.call('demo.echo', { text: 'hi' });
 * await client.close();
 */
export async function wsJsonRpcClient(init: WsJsonRpcClientInit): Promise<WsJsonRpcClient> {
  const maxMessageBytes = init.maxMessageBytes ?? WS_JSONRPC_DEFAULTS.maxMessageBytes;
  const ws = await connect(init, maxMessageBytes * WS_JSONRPC_DEFAULTS.hardLimitFactor);
  const pending = new Map<JsonRpcId, Pending>();
  const listeners = new Set<WsNotificationListener>();
  let nextId = 1;
  let closedBy: PlexusError | undefined;

  const onNotification = (method: string, params: JsonRpcParams | undefined): void => {
    if (method === WS_STREAM_METHOD && isJsonObject(params) && isJsonRpcId(params.id)) {
      const target = pending.get(params.id);
      if (target?.onProgress !== undefined) {
        target.onProgress(params as unknown as WsStreamChunk);
        return;
      }
    }
    for (const listener of listeners) listener(method, params);
  };

  const onAnswer = (message: JsonValue): void => {
    if (!isJsonObject(message)) return;
    if (typeof message.method === 'string' && !('id' in message)) {
      onNotification(message.method, message.params as JsonRpcParams | undefined);
      return;
    }
    if (!isJsonRpcId(message.id)) return;
    const target = pending.get(message.id);
    if (target === undefined) return;
    pending.delete(message.id);
    if (isJsonObject(message.error)) {
      target.reject(errorFromJsonRpc(message.error as unknown as JsonRpcErrorObject));
    } else {
      target.resolve(message.result ?? null);
    }
  };

  ws.on('message', (raw: WebSocket.RawData, isBinary: boolean) => {
    if (isBinary) return;
    let value: JsonValue;
    try {
      value = JSON.parse(
        Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8'),
      ) as JsonValue;
    } catch {
      return;
    }
    if (Array.isArray(value)) value.forEach(onAnswer);
    else onAnswer(value);
  });
  ws.on('error', () => undefined);
  ws.once('close', (code: number, reason: Buffer) => {
    closedBy = closedError(`code ${code}${reason.length > 0 ? `: ${reason.toString('utf8')}` : ''}`);
    for (const target of pending.values()) target.reject(closedBy);
    pending.clear();
  });
  const closeOnAbort = (): void => {
    ws.close(WS_CLOSE_CODES.normal);
  };
  init.signal?.addEventListener('abort', closeOnAbort, { once: true });

  const send = (text: string): Promise<void> => {
    if (closedBy !== undefined || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(closedBy ?? closedError('not open'));
    }
    const size = Buffer.byteLength(text);
    if (size > maxMessageBytes) {
      return Promise.reject(
        new PlexusError('INPUT_TOO_LARGE', `the message is ${size} bytes; the limit is ${maxMessageBytes}`, {
          details: { limit: maxMessageBytes, size },
        }),
      );
    }
    return new Promise((resolve, reject) => {
      ws.send(text, (error) => {
        // ws passes null (not undefined) on success, whatever its types say.
        if (error instanceof Error) reject(closedError(error.message));
        else resolve();
      });
    });
  };

  const withControls = (
    params: JsonRpcParams | undefined,
    options: WsCallOptions,
  ): JsonRpcParams | undefined => {
    const extra: JsonObject = {};
    if (options.stream === true) extra[WS_CONTROL_PARAMS.stream] = true;
    if (options.timeoutMs !== undefined) extra[WS_CONTROL_PARAMS.timeoutMs] = options.timeoutMs;
    if (options.traceparent !== undefined && !Array.isArray(params)) {
      const meta = params?.[WS_CONTROL_PARAMS.meta];
      extra[WS_CONTROL_PARAMS.meta] = {
        ...(isJsonObject(meta ?? null) ? (meta as JsonObject) : {}),
        traceparent: options.traceparent,
        ...(options.tracestate === undefined ? {} : { tracestate: options.tracestate }),
      };
    }
    if (Object.keys(extra).length === 0) return params;
    if (Array.isArray(params)) {
      if (options.stream === true) {
        throw new PlexusError('INVALID_PARAMS', 'stream: true needs object params (or none), not an array');
      }
      return params;
    }
    return { ...params, ...extra };
  };

  /** Registers ids, sends `payload`, and settles the ids' promises (bounded by the options). */
  const exchange = async (
    entries: readonly { id: number; onProgress?: ((chunk: WsStreamChunk) => void) | undefined }[],
    payload: JsonValue,
    options: WsCallOptions,
  ): Promise<WsBatchResult[]> => {
    if (options.signal?.aborted === true) throw new PlexusError('CANCELLED', 'the call was cancelled');
    const outcomes = entries.map(
      (entry) =>
        new Promise<WsBatchResult>((resolve) => {
          pending.set(entry.id, {
            resolve: (result) => {
              resolve({ ok: true, result });
            },
            reject: (error) => {
              resolve({ ok: false, error });
            },
            onProgress: entry.onProgress,
          });
        }),
    );
    const stop = (error: PlexusError): void => {
      for (const { id } of entries) {
        const target = pending.get(id);
        pending.delete(id);
        target?.reject(error);
      }
    };
    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      timer = setTimeout(() => {
        stop(new PlexusError('TIMEOUT', `no answer within ${ms} ms`));
      }, ms);
    }
    const onAbort = (): void => {
      stop(new PlexusError('CANCELLED', 'the call was cancelled'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await send(JSON.stringify(payload));
      return await Promise.all(outcomes);
    } catch (error) {
      stop(toPlexusError(error));
      throw toPlexusError(error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  };

  return {
    async call(method, params, options = {}) {
      const id = nextId++;
      const message: JsonObject = { jsonrpc: JSONRPC_VERSION, method, id };
      const sent = withControls(params, options);
      if (sent !== undefined) message.params = sent;
      const [outcome] = await exchange([{ id, onProgress: options.onProgress }], message, options);
      if (outcome === undefined) throw new PlexusError('INTERNAL', 'no outcome for the call');
      if (!outcome.ok) throw outcome.error;
      return outcome.result;
    },
    async notify(method, params) {
      const message: JsonObject = { jsonrpc: JSONRPC_VERSION, method };
      if (params !== undefined) message.params = params;
      await send(JSON.stringify(message));
    },
    async batch(calls, options = {}) {
      if (calls.length === 0) throw new PlexusError('INVALID_PARAMS', 'a batch needs at least one call');
      const entries: { id: number }[] = [];
      const messages = calls.map((c) => {
        const message: JsonObject = { jsonrpc: JSONRPC_VERSION, method: c.method };
        if (c.params !== undefined) message.params = c.params;
        if (c.notification !== true) {
          const id = nextId++;
          entries.push({ id });
          message.id = id;
        }
        return message;
      });
      if (entries.length === 0) {
        await send(JSON.stringify(messages));
        return [];
      }
      return exchange(entries, messages, options);
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      init.signal?.removeEventListener('abort', closeOnAbort);
      if (ws.readyState === WebSocket.CLOSED) return;
      const closed = new Promise<void>((resolve) => {
        ws.once('close', () => {
          resolve();
        });
      });
      ws.close(WS_CLOSE_CODES.normal);
      const timer = setTimeout(() => {
        ws.terminate();
      }, WS_JSONRPC_DEFAULTS.closeGraceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
