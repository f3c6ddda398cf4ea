/**
 * The ESRP face (seed 001, D5): `POST /v1/execute` (sync), `POST /v1/jobs` (async),
 * `GET /v1/jobs/{id}` and `DELETE /v1/jobs/{id}` (cancel), `GET /v1/jobs` (list, in
 * `esrp-job-list.ts`). The SSE stream of a job's events
 * is in `esrp-events.ts`.
 *
 * A request body is read as text and parsed losslessly, so non-integer numbers are judged on
 * their source text (`56.0` is refused). The request goes to the agent whose id is
 * `target.service` when there is one, otherwise to whoever offers the verb
 * `service.operation` (a capability selector).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { EsrpRequest } from '../../core/esrp/model.js';
import { payloadHash } from '../../core/esrp/payload-hash.js';
import { capabilitySelector } from '../../core/verb-name.js';
import type { InvocationContext } from '../../runtime/context.js';
import { jobNotFound, visibleToTenant } from '../../runtime/pipeline/tenancy.js';
import type { Job } from '../../core/records/job.js';
import { decodeEsrpRequestTyped } from '../../wire/esrp/request-codec.js';
import { contextFromTraceparent } from '../../wire/esrp/trace.js';
import { parseWireText } from '../../wire/registry.js';
import { adoptTrace, traceOfRequest } from '../trace-headers.js';
import { esrpInputFor } from './esrp-input-form.js';
import { esrpAcceptedAnswer, esrpAnswerOfInvocation, esrpJobAnswer, type EsrpAnswer } from './esrp-answer.js';
import { keepSlotUntil } from './admission-hook.js';
import { registerEsrpJobList } from './esrp-job-list.js';
import { bodyText, type FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The route config of every ESRP route. */
export const ESRP_ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'esrp' } };

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Requests decoded by the ESRP face (`/v1/execute`, `/v1/jobs`). */
    readonly esrp: true;
  }
}

/** A decoded ESRP request, ready for the runtime. */
export interface DecodedEsrpRequest {
  /** The typed request (the reference's typed parse). */
  readonly typed: EsrpRequest;
  /** The request envelope, addressed as the node routes it. */
  readonly envelope: Envelope;
  /** The invocation context (face `esrp`, principal, idempotency key, payload hash, timeout). */
  readonly context: InvocationContext;
}

/**
 * Decodes the ESRP request in `request`'s body.
 *
 * @throws PlexusError `PARSE_ERROR` (line and column) for broken JSON; `INVALID_PARAMS` or
 *   `VERSION_MISMATCH` with `details.problems` (every problem with its JSON pointer).
 */
export function decodeEsrpHttpRequest(scope: FaceScope, request: FastifyRequest): DecodedEsrpRequest {
  const value = parseWireText(bodyText(request), 'esrp-request');
  scope.parsed(request, value);
  const { envelope: named, typed } = decodeEsrpRequestTyped(value);
  const { runtime } = scope.components;
  const { registry } = runtime.agents;
  // `state.createSession` is `state.create_session` (docs/decisions/primitive-names.md)
  const verb = runtime.agents.resolveVerb(named.verb);
  const to = registry.find(typed.target.service) === undefined ? capabilitySelector(verb) : named.to;
  // The trace: the body's `context` when it has one, else the request's traceparent header
  // (a new trace when that is missing or invalid); the answer names it (header and `context`).
  const served = traceOfRequest(request.raw);
  const traceparent = named.traceparent ?? served.traceparent;
  adoptTrace(request.raw, traceparent);
  const decoded: Envelope = {
    ...named,
    verb,
    data: esrpInputFor(registry, to, verb, named.data),
    traceparent,
    // OBS-45: the header's tracestate goes with the header's trace
    ...(named.traceparent === undefined && served.tracestate !== undefined
      ? { tracestate: served.tracestate }
      : {}),
  };
  const principal = scope.principalOf(request);
  // The capability travels in the headers on this face (ESRP's body has no field for it).
  const capability = decoded.capability ?? scope.capabilityOf(request);
  const context: InvocationContext = {
    face: 'esrp',
    ...(principal === undefined ? {} : { principal }),
    transport: scope.transportOf(request),
    ...(typed.idempotency_key === undefined ? {} : { idempotencyKey: typed.idempotency_key }),
    payloadHash: payloadHash(typed),
    timeoutMs: typed.mode.timeout_ms,
  };
  return {
    typed,
    envelope: { ...decoded, to, ...(capability === undefined ? {} : { capability }) },
    context,
  };
}

/**
 * Sends an ESRP answer. The answer to a request that ran (or was answered by) a job names the
 * trace the request was served in as ESRP's own tracing `context` (`trace_id`, `span_id` in
 * ESRP's UUID form, as in a request), beside the `traceparent` response header. A job read back
 * later (`GET`/`DELETE /v1/jobs/{id}`, the job list) keeps the snapshot form, the same in each:
 * only the header names the reading request's trace.
 */
function send(reply: FastifyReply, answer: EsrpAnswer, duplicate = false, traced = false): FastifyReply {
  if (duplicate) reply.header('idempotent-replayed', 'true');
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  const context = traced ? contextFromTraceparent(traceOfRequest(reply.request.raw).traceparent) : undefined;
  const body =
    context === undefined || 'context' in answer.body
      ? answer.body
      : { ...answer.body, context: { trace_id: context.trace_id, span_id: context.span_id, tags: null } };
  return reply.code(answer.status).type('application/json; charset=utf-8').send(body);
}

async function submit(
  scope: FaceScope,
  request: FastifyRequest,
  reply: FastifyReply,
  decoded: DecodedEsrpRequest,
): Promise<FastifyReply> {
  const { runtime } = scope.components;
  const { job, duplicate, warnings } = await runtime.submit(decoded.envelope, decoded.context);
  // The job is work in flight until it ends: it keeps the node's admission slot until then.
  keepSlotUntil(request, runtime.jobs.wait(job.id));
  reply.header('location', `/v1/jobs/${encodeURIComponent(job.id)}`);
  return send(reply, esrpAcceptedAnswer(job, decoded.typed.request_id, warnings), duplicate, true);
}

function jobIdOf(request: FastifyRequest): string {
  const { id } = request.params as { id?: unknown };
  if (typeof id !== 'string' || id === '') {
    throw new PlexusError('INVALID_PARAMS', 'the URL names no job id: use /v1/jobs/{job_id}');
  }
  return id;
}

/**
 * The job `id` as the caller of `request` may see it: a job of another tenant is answered
 * exactly like a missing one (`NOT_FOUND`, same message).
 *
 * @throws PlexusError `NOT_FOUND` for a missing job or one of another tenant.
 */
export async function visibleJob(scope: FaceScope, request: FastifyRequest, id: string): Promise<Job> {
  const job = await scope.components.runtime.jobs.get(id);
  if (!visibleToTenant(job.tenantId, scope.principalOf(request))) throw jobNotFound(id);
  return job;
}

/** Registers the ESRP request and job routes on `app`. */
export function registerEsrpRoutes(app: FastifyInstance, scope: FaceScope): void {
  const { runtime } = scope.components;

  app.post('/v1/execute', ESRP_ROUTE, async (request, reply) => {
    const decoded = decodeEsrpHttpRequest(scope, request);
    if (decoded.typed.mode.type === 'async') return submit(scope, request, reply, decoded);
    const invocation = await runtime.invoke(decoded.envelope, decoded.context);
    return send(
      reply,
      esrpAnswerOfInvocation(invocation, decoded.typed.request_id),
      invocation.duplicate,
      true,
    );
  });

  app.post('/v1/jobs', ESRP_ROUTE, async (request, reply) =>
    submit(scope, request, reply, decodeEsrpHttpRequest(scope, request)),
  );

  registerEsrpJobList(app, scope, ESRP_ROUTE); // GET /v1/jobs: the caller's jobs, newest first

  app.get('/v1/jobs/:id', ESRP_ROUTE, async (request, reply) => {
    const job = await visibleJob(scope, request, jobIdOf(request));
    return send(reply, esrpJobAnswer(job, runtime.agents.registry));
  });

  app.delete('/v1/jobs/:id', ESRP_ROUTE, async (request, reply) => {
    const id = jobIdOf(request);
    await visibleJob(scope, request, id); // another tenant's job is not cancelled: it is "missing"
    const job = await runtime.jobs.cancel(id, { reason: 'cancelled by DELETE /v1/jobs/{id}' });
    return send(reply, esrpJobAnswer(job, runtime.agents.registry));
  });
}
