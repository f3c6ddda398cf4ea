/**
 * Errors on the HTTP faces: anything thrown (PlexusError, fastify's own errors, bugs) becomes
 * a PlexusError with a safe message, and is written in the face's own form — an ESRP
 * response on `/v1/*`, an Emergence ERROR on `/emergence`, `{error: {code, message}}`
 * elsewhere. Never a stack trace, never fastify's default body.
 */
import type { FastifyReply } from 'fastify';
import { recoveryFields } from '../../core/error-recovery.js';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { bearerChallenge } from '../../security/auth/auth-error.js';
import { emergenceFallbackError } from './emergence-answer.js';
import { esrpErrorAnswer, esrpRequestIdOf } from './esrp-answer.js';
import type { HttpFace } from './faces.js';
import { retryAfterHeader } from './http-deprecation.js';
import { HTTP_STATUS, plexusCodeFromHttp } from './http-status.js';

/** What a fastify (or Node) error looks like. */
interface HttpishError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: unknown;
}

/** Fastify's terse messages, reworded so a person knows what to change. */
const FRAMEWORK_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE:
    'the Content-Type header is not a media type this route reads (or not a valid one); send the body as application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the Content-Length header does not match the body that was sent',
};

/**
 * Turns anything thrown while serving a request into a PlexusError whose message is safe to
 * send: a PlexusError as is; fastify's body-too-large as `INPUT_TOO_LARGE` naming the limit;
 * other fastify 4xx errors by their status (`plexusCodeFromHttp`) with fastify's message;
 * anything else as `INTERNAL` with a generic message (the original kept as `cause`).
 *
 * @param bodyLimitBytes the body limit, for the 413 message.
 */
export function toFaceError(error: unknown, bodyLimitBytes: number): PlexusError {
  if (error instanceof PlexusError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as HttpishError;
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new PlexusError(
      'INPUT_TOO_LARGE',
      `the request body is larger than the limit of ${bodyLimitBytes} bytes`,
      { cause: error, details: { limitBytes: bodyLimitBytes } },
    );
  }
  if (status !== undefined && status >= 400 && status < 500) {
    const own = typeof e.code === 'string' ? FRAMEWORK_MESSAGES[e.code] : undefined;
    const message = own ?? (typeof e.message === 'string' && e.message !== '' ? e.message : `HTTP ${status}`);
    return new PlexusError(plexusCodeFromHttp(status), message, { cause: error });
  }
  return new PlexusError(
    'INTERNAL',
    'an internal error occurred while serving the request; see the node log',
    {
      cause: error,
    },
  );
}

/**
 * The `{error: {code, message, details?, category, …}}` body of the discovery and health
 * routes: the recovery fields of seed 002 §8.2 sit beside the code.
 */
export function plainErrorBody(error: PlexusError): JsonObject {
  const inner: JsonObject = { code: error.code, message: error.message };
  if (error.details !== undefined) inner['details'] = error.details;
  return { error: { ...inner, ...recoveryFields(error.toData()) } };
}

/** What is known of the request an error answers. */
export interface ErrorContext {
  /** The node's id (`from` of Emergence ERRORs that cannot name the addressed agent). */
  readonly nodeId: string;
  /** The parsed request body, when it was parsed (ids are taken from it where usable). */
  readonly raw?: unknown;
}

/**
 * Sends `error` in `face`'s form with the status its code maps to, adding
 * `WWW-Authenticate` to 401 answers and `Retry-After` (seconds) to retryable errors.
 */
export function sendFaceError(
  reply: FastifyReply,
  face: HttpFace,
  error: PlexusError,
  context: ErrorContext,
): FastifyReply {
  if (HTTP_STATUS[error.code] === 401) reply.header('www-authenticate', bearerChallenge(error));
  for (const [name, value] of Object.entries(retryAfterHeader(error.toData()))) reply.header(name, value);
  reply.type('application/json; charset=utf-8');
  switch (face) {
    case 'esrp': {
      const raw = context.raw as { request_id?: unknown } | undefined;
      const answer = esrpErrorAnswer(error, esrpRequestIdOf(raw?.request_id));
      return reply.code(answer.status).send(answer.body);
    }
    case 'emergence': {
      const answer = emergenceFallbackError(error, context.raw, context.nodeId);
      return reply.code(answer.status).send(answer.body);
    }
    case 'discovery':
    case 'health':
      return reply.code(HTTP_STATUS[error.code]).send(plainErrorBody(error));
  }
}
