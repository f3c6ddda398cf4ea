/**
 * The fastify context of one HTTP face (ESRP, Emergence, discovery, health): there every body
 * is read as text whatever its content type (ESRP needs the source text of numbers; `curl -d`
 * sends form content types), failures are answered in the face's own form, open streams end
 * when the server closes, and, unless the face is open, each request is authenticated first
 * (D14: a refusal is 401 with `WWW-Authenticate` in the face's form). The node's other routes
 * keep fastify's own JSON parser.
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import { faceErrorHandler } from './face-error-handler.js';
import { sendFaceError } from './face-errors.js';
import type { FaceScope } from './face-scope.js';
import { faceOfRequest } from './faces.js';

/** Options of {@link registerHttpFaceContext}. */
export interface HttpFaceContextInit {
  /** Authenticate every request of the face (all but the health probes). */
  readonly authenticate: boolean;
  /** Registers the face's routes on its context. */
  readonly routes: (context: FastifyInstance) => void;
}

/** Registers one HTTP face's context, with its routes, on `app`. */
export async function registerHttpFaceContext(
  app: FastifyInstance,
  scope: FaceScope,
  init: HttpFaceContextInit,
): Promise<void> {
  const { bodyLimitBytes } = scope.settings;
  await app.register((face, _options, done) => {
    face.removeAllContentTypeParsers();
    face.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: bodyLimitBytes },
      (_request, body, parsed) => {
        parsed(null, body);
      },
    );
    face.setErrorHandler(faceErrorHandler(scope, faceOfRequest));
    face.addHook('preClose', (hookDone) => {
      scope.closeStreams();
      hookDone();
    });
    if (init.authenticate) {
      face.addHook('onRequest', async (request, reply) => {
        try {
          await scope.authenticate(request);
        } catch (error) {
          const refusal =
            error instanceof PlexusError
              ? error
              : new PlexusError('UNAUTHORIZED', 'the credential could not be checked');
          return sendFaceError(reply, faceOfRequest(request), refusal, { nodeId: scope.components.nodeId });
        }
      });
    }
    init.routes(face);
    done();
  });
}
