/**
 * The ESRP face (seed 001, D5) as a node face: `POST /v1/execute`, `POST /v1/jobs`,
 * `GET` / `DELETE /v1/jobs/{id}`, `GET /v1/jobs` and the SSE stream `GET /v1/jobs/{id}/events`,
 * every request authenticated (D14).
 */
import type { Face, FaceFactory } from '../face.js';
import { registerEsrpEvents } from './esrp-events.js';
import { registerEsrpRoutes } from './esrp-routes.js';
import { registerHttpFaceContext } from './http-face-context.js';
import { httpFaceScope } from './http-face-scope.js';

/** Options of {@link esrpFace}. */
export interface EsrpFaceInit {
  /** How often an idle SSE stream gets a `: heartbeat` comment, ms. @default 15000 */
  readonly heartbeatMs?: number;
}

/**
 * The ESRP face's factory.
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad `heartbeatMs`.
 * @example
 * createNode({ faces: [esrpFace({ heartbeatMs: 5000 })] });
 */
export function esrpFace(init: EsrpFaceInit = {}): FaceFactory {
  return (components): Face => ({
    name: 'esrp',
    register(server) {
      const scope = httpFaceScope(components, server, init);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: true,
        routes: (context) => {
          registerEsrpRoutes(context, scope);
          registerEsrpEvents(context, scope);
        },
      });
    },
  });
}
