/**
 * The ESRP face (seed 001, D5) as a node face: `POST /v1/execute`, `POST /v1/jobs`,
 * `GET` / `DELETE /v1/jobs/{id}`, `GET /v1/jobs` and the SSE stream `GET /v1/jobs/{id}/events`,
 * every request authenticated (D14).
 */
import type { FaceFactory } from '../face.js';
import { registerEsrpEvents } from './esrp-events.js';
import { registerEsrpRoutes } from './esrp-routes.js';
import { httpFace } from './http-face.js';

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
  return httpFace(
    'esrp',
    (context, scope) => {
      registerEsrpRoutes(context, scope);
      registerEsrpEvents(context, scope);
    },
    init,
  );
}
