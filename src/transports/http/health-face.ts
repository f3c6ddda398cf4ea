/**
 * The health probes as a node face: `GET /healthz` and `GET /readyz` (the node's readiness),
 * never authenticated.
 */
import type { FaceFactory } from '../face.js';
import { registerHealthRoutes } from './health-routes.js';
import { httpFace } from './http-face.js';

/**
 * The health face's factory.
 * @example
 * createNode({ faces: [healthFace()] });
 */
export function healthFace(): FaceFactory {
  return httpFace('health', registerHealthRoutes, { authenticate: false });
}
