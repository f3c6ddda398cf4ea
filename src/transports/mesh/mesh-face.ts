/**
 * The mesh face (issue 15; docs/mesh.md): the node's libp2p peer, started once the node
 * listens and stopped with it, and `GET /v1/mesh` — the peer id, addresses, connected peers
 * with latency and score, and each topic's mesh size. The route is authenticated like every
 * other (D14) and answers in the ESRP error form.
 */
import type { Face, FaceComponents } from '../face.js';
import { httpFaceScope } from '../http/http-face-scope.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';
import { meshNode, type MeshNode, type MeshOptions } from './mesh-node.js';
import { meshRpc, type MeshRpcInit } from './rpc-service.js';

/** The path of the mesh status. */
export const MESH_STATUS_PATH = '/v1/mesh';

/** The mesh face, with its mesh (its libp2p peer once started). */
export interface MeshFace extends Face {
  readonly mesh: MeshNode;
}

/**
 * The mesh face's factory.
 * @example
 * createNode({ faces: [...defaultFaces(init), meshFace({ bootstrap: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW…'] })] });
 */
export function meshFace(
  options: MeshOptions = {},
  rpcOptions: MeshRpcInit = {},
): (components: FaceComponents) => MeshFace {
  return (components) => {
    const mesh = meshNode(components, options);
    // direct calls: rpc-service.ts; `mesh.rpcIdleTimeoutMs` unless the caller set its own (MESH-49)
    const rpc = meshRpc(components, {
      ...(options.rpcIdleTimeoutMs === undefined ? {} : { idleStreamTimeoutMs: options.rpcIdleTimeoutMs }),
      ...rpcOptions,
    });
    return {
      name: 'mesh',
      mesh,
      register(server) {
        const scope = httpFaceScope(components, server);
        return registerHttpFaceContext(server.http, scope, {
          authenticate: true,
          routes: (context) => {
            context.get(MESH_STATUS_PATH, { config: { face: 'esrp' } }, async () => mesh.status());
          },
        });
      },
      start: async () => {
        await mesh.start();
        if (mesh.libp2p !== undefined) await rpc.start(mesh.libp2p);
      },
      stop: async () => {
        await rpc.stop();
        await mesh.stop();
      },
    };
  };
}
