/**
 * How `POST /v1/peer/invoke` refuses (issue 11 item 1): the ESRP failed response, with the
 * Plexus code in `error.details.plexus_code`, its status and headers (`Retry-After` on a
 * retryable code, a bearer challenge on `UNAUTHORIZED`). The route itself, the admission hook
 * (429) and fastify's framework errors all answer through here, so the route has one form.
 */
import type { FastifyReply } from 'fastify';
import type { PlexusError } from '../../core/errors.js';
import { bearerChallenge } from '../../security/auth/index.js';
import { esrpErrorAnswer } from '../http/esrp-answer.js';

/** Sends `error` as the peer route's refusal. */
export function sendPeerRefusal(reply: FastifyReply, error: PlexusError): FastifyReply {
  const answer = esrpErrorAnswer(error);
  if (error.code === 'UNAUTHORIZED') reply.header('www-authenticate', bearerChallenge(error));
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  return reply
    .code(answer.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(answer.body));
}
