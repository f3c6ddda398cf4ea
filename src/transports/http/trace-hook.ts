/**
 * Installs W3C Trace Context on every HTTP route of a fastify app (`trace-headers.ts`): each
 * answer — ESRP, Emergence, the peer route, job routes, discovery, errors and 404s — carries
 * the `traceparent` (and `tracestate`) of the span the request was served in. Streams that
 * write their own head (SSE) add {@link traceResponseHeaders} themselves.
 *
 * With a tracer (docs/observability.md "Traces") each request is also a SERVER span with the
 * OpenTelemetry HTTP semantic conventions, whose id is the one the answer names: the caller's
 * span is its parent, the runtime's invocation span its child (OBS-9). A new trace's head
 * sampling decision is written into the flags the answer (and the request's envelope) carry.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { Observer, ObserverSpan } from '../../runtime/observer.js';
import { PlexusError } from '../../core/errors.js';
import {
  TRACEPARENT_HEADER,
  adoptTrace,
  callerTraceparent,
  traceOfRequest,
  traceResponseHeaders,
} from '../trace-headers.js';

/** The caller's span as a version-00 `traceparent` (a higher version read by its first fields). */
function callerSpan(request: FastifyRequest): string | undefined {
  return callerTraceparent(request.headers[TRACEPARENT_HEADER]);
}

/** The path of a URL without its query. */
function pathOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

const spans = new WeakMap<FastifyRequest, ObserverSpan>();

function endSpan(request: FastifyRequest, reply: FastifyReply | undefined): void {
  const span = spans.get(request);
  if (span === undefined) return;
  spans.delete(request);
  if (reply === undefined) {
    span.end(new PlexusError('CANCELLED', 'the client closed the connection before the answer'));
    return;
  }
  const status = reply.statusCode;
  span.set?.({ [ATTR_HTTP_RESPONSE_STATUS_CODE]: status });
  // semconv: a server span is an error for 5xx only
  if (status >= 500) {
    span.set?.({ [ATTR_ERROR_TYPE]: String(status) });
    span.end(new PlexusError('INTERNAL', `HTTP ${status}`));
  } else span.end();
}

/** Adds the hook to `app`; routes registered after it (in any plugin below it) are covered. */
export function registerTraceHeaders(app: FastifyInstance, tracing?: Observer): void {
  if (tracing !== undefined) {
    app.addHook('onRequest', (request, _reply, done) => {
      const served = traceOfRequest(request.raw);
      const parent = served.continued ? callerSpan(request) : undefined;
      const route = request.routeOptions.url;
      const span = tracing.span(
        route === undefined ? request.method : `${request.method} ${route}`,
        {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: pathOf(request.url),
          [ATTR_URL_SCHEME]: request.protocol,
          ...(route === undefined ? {} : { [ATTR_HTTP_ROUTE]: route }),
        },
        {
          kind: 'server',
          self: served.traceparent,
          ...(parent === undefined ? {} : { parent }),
          // OBS-45: the caller's tracestate stays in the span context of the request's spans
          ...(parent === undefined || served.tracestate === undefined
            ? {}
            : { tracestate: served.tracestate }),
        },
      );
      // a new trace: its sampling decision (the span's flags) is what the request carries on
      if (span.traceparent !== undefined && span.traceparent !== served.traceparent) {
        adoptTrace(request.raw, span.traceparent);
      }
      spans.set(request, span);
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      endSpan(request, reply);
      done();
    });
    app.addHook('onRequestAbort', (request, done) => {
      endSpan(request, undefined);
      done();
    });
  }
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(traceResponseHeaders(request.raw));
    done(null, payload);
  });
}
