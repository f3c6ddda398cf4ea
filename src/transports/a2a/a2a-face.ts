/**
 * A2A as a node face (issue 14): today its agent cards only, signed when the node gives a signer (docs/decisions/a2a.md A2A-1);
 * the JSON-RPC binding is not built yet. Cards are public, as A2A discovery expects.
 */
import type { Face, FaceFactory } from '../face.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';
import { httpFaceScope } from '../http/http-face-scope.js';
import { registerA2aCardRoutes } from './card-routes.js';

/**
 * The A2A face's factory.
 * @example
 * createNode({ faces: [a2aFace()] });
 */
export function a2aFace(): FaceFactory {
  return (components): Face => ({
    name: 'a2a',
    register(server) {
      const scope = httpFaceScope(components, server);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: false,
        routes: (context) => {
          registerA2aCardRoutes(context, components);
        },
      });
    },
  });
}
