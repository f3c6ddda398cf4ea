/**
 * The Hyperspace face (seed 003 §2.2): WebSocket JSON-RPC 2.0 on the node's port, and a
 * client for it.
 */
export { attachWsJsonRpc } from './server.js';
export type { WsJsonRpcFace, WsJsonRpcInit } from './server.js';
export { createWsJsonRpc } from './server.js';
export type { WsJsonRpcHandler } from './server.js';
export { wsJsonRpcFace, type WsJsonRpcFaceInit } from './ws-jsonrpc-face.js';
export { errorFromJsonRpc, wsJsonRpcClient } from './client.js';
export type {
  WsBatchCall,
  WsBatchResult,
  WsCallOptions,
  WsJsonRpcClient,
  WsJsonRpcClientInit,
  WsNotificationListener,
} from './client.js';
export {
  HYPERSPACE_FACE,
  hyperspaceDispatch,
  isStreamVerb,
  jsonRpcIdOf,
  resultOf,
  splitParams,
} from './dispatch.js';
export type { CallControls, CallerContext, DispatchOptions, SplitParams } from './dispatch.js';
export { faceErrorResponse, hyperspaceErrorData, openConnection } from './connection.js';
export type { Connection, ConnectionInit, ConnectionLimits } from './connection.js';
export {
  WS_BEARER_PROTOCOL_PREFIX,
  WS_CLOSE_CODES,
  WS_CONTROL_PARAMS,
  WS_JSONRPC_DEFAULTS,
  WS_JSONRPC_PATHS,
  WS_JSONRPC_SUBPROTOCOL,
  WS_PING_INTERVAL_BOUNDS,
  WS_STREAM_METHOD,
  WS_TOKEN_QUERY_PARAMS,
} from './protocol.js';
export type { WsStreamChunk } from './protocol.js';
export {
  isFacePath,
  offeredProtocols,
  refuseUpgrade,
  selectProtocol,
  upgradeCredential,
  upgradeUrl,
} from './upgrade.js';
export type { CredentialSource, UpgradeCredential } from './upgrade.js';
