/**
 * The root 404 and error handlers of a node's HTTP server: a request no face's route matched,
 * or a failure outside every face's context, answered in the form of the face its URL belongs
 * to (`framework-errors.ts`).
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import { faceErrorHandler } from './face-error-handler.js';
import type { FaceScope } from './face-scope.js';
import { faceOfUrl } from './faces.js';
import { sendErrorForUrl } from './framework-errors.js';

/**
 * Sets the root 404 handler and the root error handler of `app`.
 * @throws fastify's error when the root handlers are already set.
 */
export function registerFallbackHandlers(app: FastifyInstance, scope: FaceScope): void {
  app.setNotFoundHandler((request, reply) => {
    const refusal = new PlexusError(
      'NOT_FOUND',
      `no route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)} on this node`,
    );
    return sendErrorForUrl(request, reply, refusal, scope.components.nodeId);
  });
  app.setErrorHandler(faceErrorHandler(scope, (request) => faceOfUrl(request.url)));
}
