/**
 * The error handler of the HTTP faces: every failure answered in the form of the request's
 * face, a failure nobody foresaw (`INTERNAL`) logged first.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendFaceError, toFaceError } from './face-errors.js';
import type { FaceScope } from './face-scope.js';
import type { HttpFace } from './faces.js';

/** The error handler for requests whose face `face(request)` names. */
export function faceErrorHandler(
  scope: FaceScope,
  face: (request: FastifyRequest) => HttpFace,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined {
  return (error, request, reply) => {
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
