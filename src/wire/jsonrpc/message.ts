/**
 * JSON-RPC 2.0 message shapes (jsonrpc.org/specification §4–6) and the constants of the spec.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';

/** The value of the `jsonrpc` member. */
export const JSONRPC_VERSION = '2.0';

/** A request id: a string, a number, or null (spec §4). */
export type JsonRpcId = string | number | null;

/** Request parameters: by position or by name (spec §4.2). */
export type JsonRpcParams = JsonValue[] | JsonObject;

/** A call that expects an answer. */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonRpcParams;
  readonly id: JsonRpcId;
}

/** A call without `id`: the server never answers it (spec §4.1). */
export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonRpcParams;
}

/** The `error` member of a failed response (spec §5.1). */
export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

/** A successful response. */
export interface JsonRpcSuccess {
  readonly jsonrpc: '2.0';
  readonly result: JsonValue;
  readonly id: JsonRpcId;
}

/** A failed response. */
export interface JsonRpcFailure {
  readonly jsonrpc: '2.0';
  readonly error: JsonRpcErrorObject;
  readonly id: JsonRpcId;
}

/** Any response. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The spec's predefined error codes (§5.1). */
export const JSONRPC_ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The implementation-defined server-error range (§5.1), used for application codes. */
export const JSONRPC_SERVER_ERROR_RANGE = { min: -32099, max: -32000 } as const;

/** The range the spec reserves for predefined errors (§5.1). */
export const JSONRPC_RESERVED_RANGE = { min: -32768, max: -32000 } as const;

/**
 * The Envelope extension keys that keep a JSON-RPC message lossless:
 * the original `id` when it is not a string, the original numeric error code, and an error
 * `data` member that is not an object.
 */
export const JSONRPC_EXTENSIONS = {
  id: '_x_jsonrpc_id',
  code: '_x_jsonrpc_code',
  errorData: '_x_jsonrpc_error_data',
} as const;

/**
 * True when `code` may appear in a JSON-RPC error: an integer that is either outside the
 * reserved range −32768…−32000, one of the five predefined codes, or in the server-error range
 * −32099…−32000.
 */
export function isAllowedJsonRpcErrorCode(code: number): boolean {
  if (!Number.isSafeInteger(code)) return false;
  if (code < JSONRPC_RESERVED_RANGE.min || code > JSONRPC_RESERVED_RANGE.max) return true;
  if (code >= JSONRPC_SERVER_ERROR_RANGE.min) return true;
  return (Object.values(JSONRPC_ERROR_CODES) as number[]).includes(code);
}

/** True when `value` is a valid id type: string, number or null. */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || value === null || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The Envelope `id` text of a JSON-RPC id: a string as is, a number as its JSON text, null as
 * `"null"`.
 */
export function jsonRpcIdText(id: JsonRpcId): string {
  return typeof id === 'string' ? id : JSON.stringify(id);
}
