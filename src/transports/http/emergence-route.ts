/**
 * The Emergence face (seed 000, D4): `POST /emergence` with one Emergence message; the
 * reply (DONE or ERROR) comes in the response body, reusing the request's `id` with `from`
 * and `to` swapped. The HTTP status is 200 for DONE and the ERROR's `data.code` for ERROR
 * (400 malformed, 401 unauthenticated, 404 unknown agent, 413 too large, 501 unknown verb…).
 *
 * HELLO registers the sender's card (one without `_x_endpoint` expires after a TTL); HELP runs the work (see `emergence-work.ts` for how
 * HELP names it); any other verb is answered ERROR 501. A HELP's `id` is its idempotency
 * key (`emergence:<id>`): a retry with the same id (D4) gets the first answer and never runs
 * twice, while two HELPs with different ids run separately.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { parseCapabilitySelector } from '../../core/verb-name.js';
import type { InvocationContext } from '../../runtime/context.js';
import { decodeEmergence } from '../../wire/emergence/codec.js';
import { parseWireText } from '../../wire/registry.js';
import {
  emergenceAnswerOf,
  emergenceDoneAnswer,
  emergenceErrorAnswer,
  type EmergenceAnswer,
} from './emergence-answer.js';
import { emergencePresence, type EmergencePresenceInit } from './emergence-presence.js';
import { adoptTrace, traceOfRequest } from '../trace-headers.js';
import { helloCard, helpRequest } from './emergence-work.js';
import { toFaceError } from './face-errors.js';
import { bodyText, type FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The route config of the Emergence route. */
export const EMERGENCE_ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'emergence' } };

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Requests decoded by the Emergence face (`POST /emergence`). */
    readonly emergence: true;
  }
}

/** The prefix of the idempotency key of a HELP (`emergence:<message id>`). */
export const EMERGENCE_IDEMPOTENCY_PREFIX = 'emergence:';

/** The extension key of a capability container in an Emergence message (D4 `_x_` keys). */
export const EMERGENCE_CAPABILITY_KEY = '_x_capability';

/**
 * The capability container a message carries in `_x_capability`, if any. It wins over the
 * request's `ucans` / `Plexus-Capability` headers.
 *
 * @throws PlexusError `INVALID_PARAMS` when `_x_capability` is not a non-empty string.
 */
export function emergenceCapability(message: Envelope): string | undefined {
  const value = message.extensions?.[EMERGENCE_CAPABILITY_KEY];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${EMERGENCE_CAPABILITY_KEY} must be a capability container: the UCAN, then its proofs, comma-separated`,
      { details: { pointer: `/${EMERGENCE_CAPABILITY_KEY}` } },
    );
  }
  return value;
}

/**
 * Registers `POST /emergence` on `app`, and the expiry of HELLO registrations without an
 * endpoint (`presence`, see `emergence-presence.ts`), stopped when `app` closes.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad `presence.ttlMs`.
 */
export function registerEmergenceRoute(
  app: FastifyInstance,
  scope: FaceScope,
  presenceInit: EmergencePresenceInit = {},
): void {
  const { runtime, nodeId } = scope.components;
  const presence = emergencePresence(runtime.agents.registry, { logger: scope.logger, ...presenceInit });
  presence.start();
  app.addHook('onClose', (_instance, hookDone) => {
    presence.stop();
    hookDone();
  });
  /** Who replies: the addressed agent, or the node when the message named no single agent. */
  const replierOf = (message: Envelope): string =>
    message.to === BROADCAST || parseCapabilitySelector(message.to) !== undefined ? nodeId : message.to;

  async function hello(message: Envelope): Promise<EmergenceAnswer> {
    const existing = runtime.agents.registry.find(message.from);
    if (existing !== undefined && existing.card.origin !== 'remote') {
      throw new PlexusError(
        'CONFLICT',
        `agent id ${JSON.stringify(message.from)} belongs to an agent hosted by this node; announce under another id`,
        { details: { agent: message.from } },
      );
    }
    const stored = await runtime.agents.registry.upsert(helloCard(message), {
      origin: 'remote',
      causation: message.id,
    });
    presence.seen(stored);
    return emergenceDoneAnswer(
      message,
      { registered: stored.id, revision: stored.revision ?? 1 },
      replierOf(message),
    );
  }

  async function help(
    message: Envelope,
    context: InvocationContext,
    httpRequest: FastifyRequest,
  ): Promise<{ answer: EmergenceAnswer; duplicate: boolean }> {
    const capability = emergenceCapability(message) ?? scope.capabilityOf(httpRequest);
    const work = helpRequest(message, runtime.agents.registry, (name) => runtime.agents.resolveVerb(name));
    // W3C trace context: the request's traceparent header (a new trace without a valid one)
    const served = traceOfRequest(httpRequest.raw);
    const traceparent = work.traceparent ?? served.traceparent;
    adoptTrace(httpRequest.raw, traceparent);
    const traced = {
      ...work,
      traceparent,
      // OBS-45: the header's tracestate goes with the header's trace
      ...(work.traceparent === undefined && served.tracestate !== undefined
        ? { tracestate: served.tracestate }
        : {}),
    };
    const request = capability === undefined ? traced : { ...traced, capability };
    const invocation = await runtime.invoke(request, context);
    const { envelope } = invocation;
    const direct = message.to !== BROADCAST && parseCapabilitySelector(message.to) === undefined;
    const replier = direct ? message.to : envelope.from !== '' ? envelope.from : nodeId;
    const answer = emergenceAnswerOf(message, envelope, replier);
    return { answer, duplicate: invocation.duplicate };
  }

  app.post('/emergence', EMERGENCE_ROUTE, async (request, reply) => {
    const value = parseWireText(bodyText(request), 'emergence');
    scope.parsed(request, value);
    const message = decodeEmergence(value);
    await presence.maybeSweep();
    let answer: EmergenceAnswer;
    let duplicate = false;
    try {
      switch (message.verb) {
        case 'HELLO':
          answer = await hello(message);
          break;
        case 'HELP': {
          const principal = scope.principalOf(request);
          const context: InvocationContext = {
            face: 'emergence',
            ...(principal === undefined ? {} : { principal }),
            transport: scope.transportOf(request),
            idempotencyKey: `${EMERGENCE_IDEMPOTENCY_PREFIX}${message.id}`,
          };
          ({ answer, duplicate } = await help(message, context, request));
          break;
        }
        default:
          throw new PlexusError(
            'UNKNOWN_VERB',
            `this node answers HELLO and HELP; ${message.verb} is not a request it accepts`,
            { details: { verb: message.verb } },
          );
      }
    } catch (error) {
      const refusal = toFaceError(error, scope.settings.bodyLimitBytes);
      if (refusal.code === 'INTERNAL')
        scope.logger.error({ err: String(refusal.cause) }, 'Emergence request failed');
      answer = emergenceErrorAnswer(message, refusal, replierOf(message));
    }
    if (duplicate) reply.header('idempotent-replayed', 'true');
    for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
    return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
  });
}
