/**
 * `httpFace`: the one shape of the HTTP faces (ESRP, Emergence, discovery, health) as node
 * faces: a scope on the node's server, a fastify context of the face's own
 * ({@link registerHttpFaceContext}), its routes registered there.
 */
import type { FastifyInstance } from 'fastify';
import type { Face, FaceFactory } from '../face.js';
import type { FaceScope } from './face-scope.js';
import type { HttpFace } from './faces.js';
import { registerHttpFaceContext } from './http-face-context.js';
import { httpFaceScope } from './http-face-scope.js';

/** Options of {@link httpFace}. */
export interface HttpFaceInit {
  /** Authenticate every request of the face (D14); the health probes do not. @default true */
  readonly authenticate?: boolean;
  /** How often an idle SSE stream of the face gets a heartbeat, ms. @default 15000 */
  readonly heartbeatMs?: number;
}

/**
 * The factory of the HTTP face `name`, whose routes `register` adds to the face's context.
 *
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad `heartbeatMs`.
 * @example
 * export const healthFace = (): FaceFactory =>
 *   httpFace('health', (context, scope) => registerHealthRoutes(context, scope), { authenticate: false });
 */
export function httpFace(
  name: HttpFace,
  register: (context: FastifyInstance, scope: FaceScope) => void,
  init: HttpFaceInit = {},
): FaceFactory {
  const scopeInit = init.heartbeatMs === undefined ? {} : { heartbeatMs: init.heartbeatMs };
  return (components): Face => ({
    name,
    register(server) {
      const scope = httpFaceScope(components, server, scopeInit);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: init.authenticate ?? true,
        routes: (context) => {
          register(context, scope);
        },
      });
    },
  });
}
