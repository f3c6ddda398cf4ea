/**
 * Installs W3C Trace Context on every HTTP route of a fastify app (`trace-headers.ts`): each
 * answer — ESRP, Emergence, the peer route, job routes, discovery, errors and 404s — carries
 * the `traceparent` (and `tracestate`) of the span the request was served in. Streams that
 * write their own head (SSE) add {@link traceResponseHeaders} themselves.
 */
import type { FastifyInstance } from 'fastify';
import { traceResponseHeaders } from '../trace-headers.js';

/** Adds the hook to `app`; routes registered after it (in any plugin below it) are covered. */
export function registerTraceHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(traceResponseHeaders(request.raw));
    done(null, payload);
  });
}
