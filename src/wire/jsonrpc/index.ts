/**
 * The JSON-RPC 2.0 codec and server-side processing (jsonrpc.org/specification).
 */
export {
  createJsonRpcCodec,
  decodeJsonRpc,
  decodeJsonRpcBatch,
  decodeValidJsonRpc,
  encodeJsonRpc,
  jsonRpcCodec,
} from './codec.js';
export type { JsonRpcCodecInit } from './codec.js';
export { jsonRpcErrorToData, jsonRpcErrorToPlexus, toJsonRpcError } from './errors.js';
export type { JsonRpcCodeTable, JsonRpcErrorInit } from './errors.js';
export {
  HYPERSPACE_ERROR_NAMES,
  JSONRPC_ERRORS,
  JSONRPC_STANDARD_MESSAGES,
  plexusCodeFromJsonRpc,
  type JsonRpcErrorRow,
} from './error-table.js';
export { handleJsonRpc, handleJsonRpcText, handleJsonRpcValue } from './handle.js';
export type { JsonRpcDispatch, JsonRpcHandleInit, JsonRpcReply } from './handle.js';
export {
  JSONRPC_ERROR_CODES,
  JSONRPC_EXTENSIONS,
  JSONRPC_RESERVED_RANGE,
  JSONRPC_SERVER_ERROR_RANGE,
  JSONRPC_VERSION,
  isAllowedJsonRpcErrorCode,
  isJsonRpcId,
  jsonRpcIdText,
} from './message.js';
export type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from './message.js';
export { classifyJsonRpc, parseJsonRpcText } from './parse.js';
export type { JsonRpcParsed } from './parse.js';
export { jsonRpcShape, validateJsonRpc, validateJsonRpcMessage } from './validate.js';
export type { JsonRpcShape } from './validate.js';
