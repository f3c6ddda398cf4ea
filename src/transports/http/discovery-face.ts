/**
 * Discovery as a node face: the agent cards (`GET /agents…`) and the capability routes
 * (`POST /v1/capabilities/revocations`), every request authenticated (D14), errors in the plain
 * `{error: {code, message}}` form.
 */
import type { FaceFactory } from '../face.js';
import { registerCapabilityRoutes } from './capability-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import { httpFace } from './http-face.js';

/**
 * The discovery face's factory.
 * @example
 * createNode({ faces: [discoveryFace()] });
 */
export function discoveryFace(): FaceFactory {
  return httpFace('discovery', (context, scope) => {
    registerDiscoveryRoutes(context, scope);
    registerCapabilityRoutes(context, scope);
  });
}
