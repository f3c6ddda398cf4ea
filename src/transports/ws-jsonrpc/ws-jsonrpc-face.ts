/**
 * The Hyperspace face (WebSocket JSON-RPC 2.0) as a node face: it claims the upgrades on `/`
 * and `/rpc`, reads messages up to the node's body limit, admits each call through the node's
 * admission gate, and closes its connections when it stops.
 */
import type { Face, FaceFactory } from '../face.js';
import { HYPERSPACE_FACE } from './dispatch.js';
import { WS_JSONRPC_PATHS } from './protocol.js';
import { createWsJsonRpc, type WsJsonRpcHandler, type WsJsonRpcInit } from './server.js';

/** Options of {@link wsJsonRpcFace}: those of the face beyond what the node's server gives. */
export type WsJsonRpcFaceInit = Omit<WsJsonRpcInit, 'maxMessageBytes' | 'admission' | 'exclusive'>;

/**
 * The Hyperspace face's factory.
 *
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad option.
 * @example
 * createNode({ faces: [...defaultFaces(init), wsJsonRpcFace({ pingIntervalMs: 5000 })] });
 */
export function wsJsonRpcFace(init: WsJsonRpcFaceInit = {}): FaceFactory {
  return (components): Face => {
    let ws: WsJsonRpcHandler | undefined;
    return {
      name: HYPERSPACE_FACE,
      register(server) {
        const { admission, bodyLimitBytes } = server.options;
        const handler = createWsJsonRpc(components, {
          ...init,
          maxMessageBytes: bodyLimitBytes,
          ...(admission === undefined ? {} : { admission }),
        });
        ws = handler;
        server.upgrade(WS_JSONRPC_PATHS, (request, socket, head) => {
          handler.handleUpgrade(request, socket, head);
        });
      },
      stop: () => ws?.close() ?? Promise.resolve(),
    };
  };
}
