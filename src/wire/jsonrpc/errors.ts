/**
 * Between Plexus errors and JSON-RPC error objects (DESIGN D10).
 */
import { ERROR_TABLE, PlexusError, isPlexusErrorCode } from '../../core/errors.js';
import type { ErrorData } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { JSONRPC_ERRORS, JSONRPC_STANDARD_MESSAGES, plexusCodeFromJsonRpc } from './error-table.js';
import type { JsonRpcErrorObject } from './message.js';

/**
 * Which code table a JSON-RPC face uses: `'jsonrpc'` (the spec's standard codes) or
 * `'hyperspace'` (the Hyperspace face, −32001…−32008 where the seed defines one).
 */
export type JsonRpcCodeTable = 'jsonrpc' | 'hyperspace';

/** Options for {@link toJsonRpcError}. */
export interface JsonRpcErrorInit {
  /**
   * The code table.
   * @default 'jsonrpc'
   */
  readonly codes?: JsonRpcCodeTable;
  /**
   * The `data` member. When the key is absent, the error's `details` are used (and no `data`
   * member is written when there are none); `undefined` writes no `data` member.
   */
  readonly data?: JsonValue | undefined;
}

/**
 * The JSON-RPC error object for a Plexus error: `code` from `JSONRPC_ERRORS[code].jsonrpc` (or
 * `.hyperspace`), `message` the spec's standard text for the five standard codes
 * (JSONRPC_STANDARD_MESSAGES) when the number means exactly that error (so `CONFLICT`, sent as
 * −32603, keeps its own message) and the error's own message otherwise, `data` the error's
 * `details` unless `init.data` says otherwise. An unknown code is treated as `INTERNAL`.
 * @throws never.
 */
export function toJsonRpcError(
  error: PlexusError | ErrorData,
  init: JsonRpcErrorInit = {},
): JsonRpcErrorObject {
  const plexusCode = isPlexusErrorCode(error.code) ? error.code : 'INTERNAL';
  const code = JSONRPC_ERRORS[plexusCode][init.codes ?? 'jsonrpc'];
  // The spec's text only where the number means exactly this error; CONFLICT on −32603 keeps its own words.
  const standard = plexusCodeFromJsonRpc(code) === plexusCode ? JSONRPC_STANDARD_MESSAGES[code] : undefined;
  const message = standard ?? error.message;
  const data = 'data' in init ? init.data : error.details;
  return data === undefined ? { code, message } : { code, message, data };
}

/**
 * The core ErrorData a JSON-RPC error object decodes to: `code` =
 * `plexusCodeFromJsonRpc(error.code)`, the wire `message`, the code's default `retryable`, and
 * `details` = the wire `data` when it is an object.
 * @throws never.
 */
export function jsonRpcErrorToData(error: JsonRpcErrorObject): JsonObject {
  const code = plexusCodeFromJsonRpc(error.code);
  const out: JsonObject = { code, message: error.message, retryable: ERROR_TABLE[code].retryable };
  if (isJsonObject(error.data)) out.details = error.data;
  return out;
}

/**
 * A {@link PlexusError} for a JSON-RPC error object received from a peer: code by
 * `plexusCodeFromJsonRpc`, the wire message, and `details` `{jsonrpcCode, data?}` keeping the
 * original number and `data` member.
 * @throws never.
 */
export function jsonRpcErrorToPlexus(error: JsonRpcErrorObject): PlexusError {
  const details: JsonObject = { jsonrpcCode: error.code };
  if (error.data !== undefined) details.data = error.data;
  return new PlexusError(plexusCodeFromJsonRpc(error.code), error.message, { details });
}
