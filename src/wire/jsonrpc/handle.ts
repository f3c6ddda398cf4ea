/**
 * The server side of JSON-RPC 2.0 (spec §4–6), as a pure function the transports call: text
 * (or parsed values) in, the reply out, the work done by an injected dispatcher.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import { recordableProblem } from '../../core/recordable.js';
import { decodeValidJsonRpc } from './codec.js';
import { toJsonRpcError } from './errors.js';
import type { JsonRpcCodeTable } from './errors.js';
import { JSONRPC_VERSION, isJsonRpcId } from './message.js';
import type { JsonRpcId, JsonRpcMessage, JsonRpcParams, JsonRpcResponse } from './message.js';
import { classifyJsonRpc, parseJsonRpcText } from './parse.js';
import type { JsonRpcParsed } from './parse.js';
import { validateJsonRpcMessage } from './validate.js';

/**
 * Runs one call. Resolves to the result; rejects with a {@link PlexusError} to answer with an
 * error (`UNKNOWN_VERB` → −32601 Method not found, `INVALID_PARAMS` → −32602, …); anything
 * else thrown becomes −32603 Internal error. `envelope` is the decoded call, for handlers that
 * want its id.
 */
export type JsonRpcDispatch = (
  method: string,
  params: JsonRpcParams | undefined,
  signal: AbortSignal | undefined,
  envelope: Envelope,
) => Promise<JsonValue>;

/** Options for {@link handleJsonRpc} and {@link handleJsonRpcText}. */
export interface JsonRpcHandleInit {
  /** Passed to every dispatch; aborting it is the caller's way to stop the work. */
  readonly signal?: AbortSignal;
  /**
   * Error code table: the spec's codes, or the Hyperspace face's −32001…−32008.
   * @default 'jsonrpc'
   */
  readonly codes?: JsonRpcCodeTable;
  /**
   * The `data` member of an error answer for a dispatcher's error.
   * @default the error's `details` (no `data` member when it has none)
   */
  readonly errorData?: (error: PlexusError) => JsonValue | undefined;
  /**
   * Receives a valid response object that arrived where a call was expected (a peer answering
   * our own call on a two-way socket). Without it such responses are ignored. They are never
   * answered, so two peers cannot bounce errors at each other.
   */
  readonly onResponse?: (response: JsonRpcResponse) => void;
  /** Receives the error of a notification, which the spec forbids answering. */
  readonly onNotificationError?: (error: PlexusError, method: string) => void;
}

/** The reply to a piece of JSON-RPC input: one response or a batch of them. */
export type JsonRpcReply = JsonRpcResponse | JsonRpcResponse[];

/** The error response for `id` with a standard code (`PARSE_ERROR` / `INVALID_REQUEST`). */
function standardError(code: 'PARSE_ERROR' | 'INVALID_REQUEST', id: JsonRpcId): JsonRpcResponse {
  return {
    jsonrpc: JSONRPC_VERSION,
    error: toJsonRpcError(new PlexusError(code, code), { data: undefined }),
    id,
  };
}

/** True unless `value` is an object without `method` holding `result` or `error` (a response). */
function isCallShaped(value: JsonValue): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  return 'method' in value || !('result' in value || 'error' in value);
}

/** The id of an invalid message when it can be read (an `id` member of a valid type), else null. */
function detectableId(value: JsonValue): JsonRpcId {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && isJsonRpcId(value.id)) {
    return value.id;
  }
  return null;
}

/** An error response carrying `error`'s explanation in `data` (as the face words it). */
function explainedError(error: PlexusError, id: JsonRpcId, init: JsonRpcHandleInit): JsonRpcResponse {
  const data = init.errorData === undefined ? error.details : init.errorData(error);
  return {
    jsonrpc: JSONRPC_VERSION,
    error: toJsonRpcError(error, { codes: init.codes ?? 'jsonrpc', data }),
    id,
  };
}

/**
 * The refusal of a message the event log could not record (docs/decisions/bad-input.md):
 * −32602 with the call's id when the trouble is inside `params`, −32600 otherwise (with id
 * null when the id itself is the trouble). `undefined` when the message is recordable.
 */
function unrecordable(value: JsonValue, init: JsonRpcHandleInit): JsonRpcResponse | undefined {
  const problem = recordableProblem(value);
  if (problem === undefined) return undefined;
  const id = detectableId(value);
  const idOk = recordableProblem(id) === undefined;
  const inParams = problem.pointer.startsWith('/params');
  const error = new PlexusError(inParams ? 'INVALID_PARAMS' : 'INVALID_REQUEST', problem.message, {
    details: { pointer: problem.pointer },
  });
  return explainedError(error, idOk ? id : null, init);
}

async function handleOne(
  value: JsonValue,
  dispatch: JsonRpcDispatch,
  init: JsonRpcHandleInit,
  unchecked: boolean,
): Promise<JsonRpcResponse | undefined> {
  if (unchecked) {
    const refused = unrecordable(value, init);
    // A response (no method) is never answered, not even with an error.
    if (refused !== undefined) return isCallShaped(value) ? refused : undefined;
  }
  if (validateJsonRpcMessage(value).length > 0) return standardError('INVALID_REQUEST', detectableId(value));
  const message = value as unknown as JsonRpcMessage;
  if (!('method' in message)) {
    init.onResponse?.(message);
    return undefined;
  }
  const envelope = decodeValidJsonRpc(message);
  const isNotification = !('id' in message);
  try {
    const result = await dispatch(message.method, message.params, init.signal, envelope);
    if (isNotification) return undefined;
    return { jsonrpc: JSONRPC_VERSION, result: result ?? null, id: message.id };
  } catch (thrown) {
    const error = toPlexusError(thrown);
    if (isNotification) {
      init.onNotificationError?.(error, message.method);
      return undefined;
    }
    const data = init.errorData === undefined ? error.details : init.errorData(error);
    return {
      jsonrpc: JSONRPC_VERSION,
      error: toJsonRpcError(error, { codes: init.codes ?? 'jsonrpc', data }),
      id: message.id,
    };
  }
}

/**
 * Answers parsed JSON-RPC input by the spec's server rules: a parse error → one −32700 with id
 * null; text refused before parsing (too deep, too large) → one −32600 with id null and the
 * reason in `data`; a message the event log could not record → −32602 (in `params`) or
 * −32600, before any dispatch; an empty batch → one −32600 with id null; each invalid message → −32600 with its id
 * when that can be read, else null; notifications and all-notification batches → nothing;
 * batch members run concurrently and answers keep the request order.
 *
 * Resolves to `undefined` when nothing must be sent.
 * @throws never: every failure becomes an error response.
 */
export async function handleJsonRpc(
  input: JsonRpcParsed,
  dispatch: JsonRpcDispatch,
  init: JsonRpcHandleInit = {},
): Promise<JsonRpcReply | undefined> {
  switch (input.type) {
    case 'parse-error':
      return standardError('PARSE_ERROR', null);
    case 'refused':
      return explainedError(input.error, null, init);
    case 'single':
      return handleOne(input.message, dispatch, init, input.unchecked === true);
    case 'batch': {
      if (input.messages.length === 0) return standardError('INVALID_REQUEST', null);
      const unchecked = input.unchecked === true;
      const answers = await Promise.all(input.messages.map((m) => handleOne(m, dispatch, init, unchecked)));
      const sent = answers.filter((a): a is JsonRpcResponse => a !== undefined);
      return sent.length === 0 ? undefined : sent;
    }
  }
}

/**
 * {@link handleJsonRpc} for an already-parsed value (an array is a batch).
 * @throws never.
 */
export function handleJsonRpcValue(
  value: JsonValue,
  dispatch: JsonRpcDispatch,
  init: JsonRpcHandleInit = {},
): Promise<JsonRpcReply | undefined> {
  // A value parsed elsewhere may hold what the log cannot record: every message is checked.
  return handleJsonRpc(classifyJsonRpc(value, true), dispatch, init);
}

/**
 * Answers JSON-RPC text with JSON-RPC text: parse, {@link handleJsonRpc}, serialise.
 * Resolves to `undefined` when nothing must be sent (notifications only).
 * @throws never.
 * @example
 * const reply = await handleJsonRpcText(body, (method, params) => runtime.call(method, params));
 * if (reply !== undefined) socket.send(reply);
 */
export async function handleJsonRpcText(
  text: string,
  dispatch: JsonRpcDispatch,
  init: JsonRpcHandleInit = {},
): Promise<string | undefined> {
  const reply = await handleJsonRpc(parseJsonRpcText(text), dispatch, init);
  return reply === undefined ? undefined : JSON.stringify(reply);
}
