/**
 * Discovery as a node face: the agent cards (`GET /agents…`) and the capability routes
 * (`POST /v1/capabilities/revocations`), every request authenticated (D14), errors in the plain
 * `{error: {code, message}}` form.
 */
import type { Face, FaceFactory } from '../face.js';
import { registerCapabilityRoutes } from './capability-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import { registerHttpFaceContext } from './http-face-context.js';
import { httpFaceScope } from './http-face-scope.js';

/**
 * The discovery face's factory.
 * @example
 * createNode({ faces: [discoveryFace()] });
 */
export function discoveryFace(): FaceFactory {
  return (components): Face => ({
    name: 'discovery',
    register(server) {
      const scope = httpFaceScope(components, server);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: true,
        routes: (context) => {
          registerDiscoveryRoutes(context, scope);
          registerCapabilityRoutes(context, scope);
        },
      });
    },
  });
}
