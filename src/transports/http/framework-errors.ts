/**
 * The failures fastify answers before any route or error handler runs — a path that is not
 * valid percent-encoding (`FST_ERR_BAD_URL`), a path parameter over the length limit
 * (`FST_ERR_MAX_PARAM_LENGTH`) — and requests that match no route, answered in the form of
 * the face the URL belongs to: ESRP, Emergence, the peer route (`{"error": ErrorData}`), or
 * the plain `{error: {code, message}}` of discovery and health. Never fastify's own body.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { PEER_INVOKE_PATH } from '../peer/peer-config.js';
import { sendPeerRefusal } from '../peer/peer-refusal.js';
import { sendFaceError, toFaceError } from './face-errors.js';
import { faceOfUrl, type HttpFace } from './faces.js';

/** The longest URL path quoted back in a message. */
const QUOTED_PATH_CHARS = 120;

/** The path of `url` (no query), shortened for a message. */
function quotedPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return JSON.stringify(path.length > QUOTED_PATH_CHARS ? `${path.slice(0, QUOTED_PATH_CHARS)}…` : path);
}

/** True for the peer route's paths (`/v1/peer/…`), which answer `{"error": ErrorData}`. */
export function isPeerUrl(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return path === PEER_INVOKE_PATH || path.startsWith('/v1/peer/');
}

/**
 * Sends `error` in the form of the face `request` belongs to, with the status of its code:
 * the peer route's form on its paths, else `face`'s — by default the face of the URL
 * ({@link faceOfUrl}: requests that matched no route); a caller that knows the route passes
 * `faceOfRequest(request)`.
 */
export function sendErrorForUrl(
  request: FastifyRequest,
  reply: FastifyReply,
  error: PlexusError,
  nodeId: string,
  face: HttpFace = faceOfUrl(request.url),
): FastifyReply {
  if (isPeerUrl(request.url)) {
    return sendPeerRefusal(reply, error);
  }
  return sendFaceError(reply, face, error, { nodeId });
}

/**
 * A fastify framework error as a PlexusError a person can act on: a bad URL is
 * `INVALID_REQUEST` (400), an over-long path parameter `INVALID_PARAMS` (400); anything else
 * as {@link toFaceError} reads it.
 */
export function frameworkRefusal(error: FastifyError, url: string, bodyLimitBytes: number): PlexusError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new PlexusError(
        'INVALID_REQUEST',
        `the URL path ${quotedPath(url)} is not valid: a %-escape in it does not decode to UTF-8 text; percent-encode the path again`,
        { cause: error },
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new PlexusError(
        'INVALID_PARAMS',
        `a path segment of ${quotedPath(url)} is longer than this node accepts; no id here is that long`,
        { cause: error },
      );
    default:
      return toFaceError(error, bodyLimitBytes);
  }
}

/** Options of {@link faceFrameworkErrors}. */
export interface FrameworkErrorsInit {
  /** The node's id (`from` of Emergence ERRORs). */
  readonly nodeId: string;
  /** The body limit, for the 413 message. @default 1048576 */
  readonly bodyLimitBytes?: number;
}

/**
 * The `frameworkErrors` option of a node's fastify server: each framework error answered in
 * its face's form (see the module comment).
 *
 * @example
 * const app = Fastify({ frameworkErrors: faceFrameworkErrors({ nodeId }) });
 */
export function faceFrameworkErrors(
  init: FrameworkErrorsInit,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  const bodyLimitBytes = init.bodyLimitBytes ?? 1_048_576;
  return (error, request, reply) => {
    void sendErrorForUrl(request, reply, frameworkRefusal(error, request.url, bodyLimitBytes), init.nodeId);
  };
}

/**
 * The refusal of any failure in a face's fastify context: a PlexusError as it is, a fastify
 * framework error as {@link frameworkRefusal} words it, anything else as `toPlexusError` reads it.
 */
export function refusalOf(error: FastifyError, url: string, bodyLimitBytes: number): PlexusError {
  if (error instanceof PlexusError) return error;
  if (typeof error.code === 'string' && error.code.startsWith('FST_')) {
    return frameworkRefusal(error, url, bodyLimitBytes);
  }
  return toPlexusError(error);
}
