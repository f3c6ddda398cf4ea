/**
 * `registerHttpFaces`: the ESRP, Emergence, discovery and health routes of a node on its one
 * fastify server (D15), with bearer authentication (D14), a body limit, and an error handler
 * that answers every failure in the face's own form.
 *
 * The routes live in their own fastify context: there every body is read as text whatever
 * its content type (ESRP needs the source text of numbers; `curl -d` sends form content
 * types), so the node's other routes keep fastify's own JSON parser.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { FaceComponents } from '../face-components.js';
import { registerCapabilityRoutes } from './capability-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import { registerEmergenceRoute } from './emergence-route.js';
import { registerEsrpEvents } from './esrp-events.js';
import { registerEsrpRoutes } from './esrp-routes.js';
import { sendFaceError, toFaceError } from './face-errors.js';
import { FaceScope, httpFacesSettings, type HttpFacesInit } from './face-scope.js';
import { faceOfRequest, faceOfUrl } from './faces.js';
import { sendErrorForUrl } from './framework-errors.js';
import { registerHealthRoutes } from './health-routes.js';
import { registerTraceHeaders } from './trace-hook.js';

function errorHandler(scope: FaceScope, face: (request: FastifyRequest) => ReturnType<typeof faceOfUrl>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined => {
    const refusal = toFaceError(error, scope.settings.bodyLimitBytes);
    if (refusal.code === 'INTERNAL') {
      scope.logger.error(
        {
          err: error instanceof Error ? error.message : String(error),
          method: request.method,
          url: request.url,
        },
        'request failed',
      );
    }
    if (reply.sent || reply.raw.headersSent) return undefined;
    return sendFaceError(reply, face(request), refusal, {
      nodeId: scope.components.nodeId,
      raw: scope.bodyOf(request),
    });
  };
}

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
  const scope = new FaceScope(components, httpFacesSettings(init));
  const { bodyLimitBytes } = scope.settings;
  registerTraceHeaders(app); // every answer names its trace (W3C traceparent)

  await app.register((faces, _options, done) => {
    faces.removeAllContentTypeParsers();
    faces.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: bodyLimitBytes },
      (_request, body, done) => {
        done(null, body);
      },
    );
    faces.setErrorHandler(errorHandler(scope, faceOfRequest));
    faces.addHook('preClose', (hookDone) => {
      scope.closeStreams();
      hookDone();
    });
    faces.addHook('onRequest', async (request, reply) => {
      const face = faceOfRequest(request);
      if (face === 'health') return;
      try {
        await scope.authenticate(request);
      } catch (error) {
        const refusal =
          error instanceof PlexusError
            ? error
            : new PlexusError('UNAUTHORIZED', 'the credential could not be checked');
        return sendFaceError(reply, face, refusal, { nodeId: components.nodeId });
      }
    });
    registerHealthRoutes(faces, scope);
    registerEsrpRoutes(faces, scope);
    registerEsrpEvents(faces, scope);
    registerEmergenceRoute(faces, scope, {
      ...(init.helloTtlMs === undefined ? {} : { ttlMs: init.helloTtlMs }),
      ...(init.now === undefined ? {} : { now: init.now }),
    });
    registerDiscoveryRoutes(faces, scope);
    registerCapabilityRoutes(faces, scope);
    done();
  });

  if (scope.settings.fallbackHandlers) {
    app.setNotFoundHandler((request, reply) => {
      const refusal = new PlexusError(
        'NOT_FOUND',
        `no route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)} on this node`,
      );
      return sendErrorForUrl(request, reply, refusal, components.nodeId);
    });
    app.setErrorHandler(errorHandler(scope, (request) => faceOfUrl(request.url)));
  }
}
