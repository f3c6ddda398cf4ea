/**
 * `registerHttpFaces`: the ESRP, Emergence, discovery and health faces of a node on a fastify
 * server (D15), with bearer authentication (D14), a body limit, trace headers, and the root
 * 404 and error handlers answering every failure in the face's own form. A node registers
 * these faces through its face list (`node/faces.ts`); this registers the four at once on a
 * server of one's own.
 */
import type { FastifyInstance } from 'fastify';
import type { FaceComponents } from '../face-components.js';
import { faceServer } from '../face-server.js';
import { discoveryFace } from './discovery-face.js';
import { emergenceFace } from './emergence-face.js';
import { esrpFace } from './esrp-face.js';
import { FaceScope, httpFacesSettings, type HttpFacesInit } from './face-scope.js';
import { registerFallbackHandlers } from './fallback-handlers.js';
import { healthFace } from './health-face.js';
import { registerTraceHeaders } from './trace-hook.js';

/**
 * Registers the HTTP faces of a node on `app`:
 *
 * - ESRP: `POST /v1/execute`, `POST /v1/jobs`, `GET` / `DELETE /v1/jobs/{id}`,
 *   `GET /v1/jobs/{id}/events` (SSE);
 * - Emergence: `POST /emergence`;
 * - discovery: `GET /agents`, `GET /agents/{id}`, `GET /agents/{id}/capabilities`;
 * - `GET /healthz`, `GET /readyz` (no authentication).
 *
 * Every other route of these faces needs `Authorization: Bearer …` accepted by
 * `components.auth` (an authenticator with `allowAnonymous` admits callers without one);
 * a refusal is 401 with `WWW-Authenticate` and the face's error form. Unless
 * `init.fallbackHandlers` is false, it also sets the root 404 and error handlers.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option; fastify's errors when a route is
 *   already registered or the root handlers are already set.
 * @example
 * const app = Fastify();
 * await registerHttpFaces(app, components, { bodyLimitBytes: 1 << 20 });
 * await app.listen({ host: '127.0.0.1', port: 3100 });
 */
export async function registerHttpFaces(
  app: FastifyInstance,
  components: FaceComponents,
  init: HttpFacesInit = {},
): Promise<void> {
  const settings = httpFacesSettings(init);
  const { ready, unreadyReason } = settings;
  const server = faceServer(app, {
    bodyLimitBytes: settings.bodyLimitBytes,
    readiness: {
      ready: () => ready?.() ?? true,
      unreadyReason: () => unreadyReason?.(),
    },
  });
  registerTraceHeaders(app, components.tracing); // every answer names its trace (W3C traceparent)
  for (const face of [
    healthFace(),
    esrpFace({ heartbeatMs: settings.heartbeatMs }),
    emergenceFace({
      ...(init.helloTtlMs === undefined ? {} : { helloTtlMs: init.helloTtlMs }),
      ...(init.now === undefined ? {} : { now: init.now }),
    }),
    discoveryFace(),
  ]) {
    await face(components).register(server);
  }
  if (settings.fallbackHandlers) registerFallbackHandlers(app, new FaceScope(components, settings));
}
