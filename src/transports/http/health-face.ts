/**
 * The health probes as a node face: `GET /healthz` and `GET /readyz` (the node's readiness),
 * never authenticated.
 */
import type { Face, FaceFactory } from '../face.js';
import { registerHealthRoutes } from './health-routes.js';
import { registerHttpFaceContext } from './http-face-context.js';
import { httpFaceScope } from './http-face-scope.js';

/**
 * The health face's factory.
 * @example
 * createNode({ faces: [healthFace()] });
 */
export function healthFace(): FaceFactory {
  return (components): Face => ({
    name: 'health',
    register(server) {
      const scope = httpFaceScope(components, server);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: false,
        routes: (context) => {
          registerHealthRoutes(context, scope);
        },
      });
    },
  });
}
