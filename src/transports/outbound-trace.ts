/**
 * W3C trace context on the bridges' outgoing HTTP requests (issue 16 item 1, OBS-48). The
 * stock SDK clients (MCP, A2A) share one `fetch` per bridged server, so the trace of a call
 * cannot be given per request: the bridge runs the call in {@link withOutboundTrace}, and the
 * shared {@link tracedFetch} reads it at request time (an `AsyncLocalStorage`, which follows the
 * call through the SDK's promises). Each request then carries `traceparent` (and `tracestate`)
 * headers and, with a tracer, is a CLIENT span (OTel HTTP semantic conventions) whose id is the
 * header's; without a tracer the header names the call's own span. A call that names the span
 * in its message too decides the first request's CLIENT span id beforehand
 * ({@link withFirstClientSpan}, OBS-58).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PlexusError, toPlexusError } from '../core/errors.js';
import { cleanTracestate } from '../core/tracestate.js';
import type { Observer, ObserverSpan } from '../runtime/observer.js';
import { newSpanId } from '../wire/agentese/traceparent.js';
import { TRACEPARENT_HEADER, TRACESTATE_HEADER, callerTraceparent } from './trace-headers.js';

/** The trace outgoing requests continue: a W3C `traceparent` and its `tracestate`. */
export interface OutboundTrace {
  readonly traceparent?: string;
  readonly tracestate?: string;
  /**
   * The `traceparent` the first request made in this trace takes as its CLIENT span's own (a
   * child of `traceparent` whose id a message sent in that request already names, OBS-58);
   * later requests get new ids. Made by {@link withFirstClientSpan}; ignored without a tracer.
   */
  readonly firstClient?: string;
}

/** A `fetch` (the global one's shape). */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const current = new AsyncLocalStorage<OutboundTrace>();
/** The traces whose {@link OutboundTrace.firstClient} a request already took. */
const taken = new WeakSet<OutboundTrace>();

/**
 * `trace` with the id of its first request's CLIENT span decided now (OBS-58), when `tracing`
 * traces and `trace` names a valid parent: a message the request carries can then name that
 * span ({@link messageTraceparent}), so the far side's spans are its children whether they read
 * the header or the message. Without either, `trace` as it is.
 *
 * @example
 * const trace = withFirstClientSpan({ traceparent: ctx.traceparent }, tracing);
 * const metadata = { traceparent: messageTraceparent(trace) };
 * await withOutboundTrace(trace, () => client.sendMessage({ message: { metadata, … } }));
 */
export function withFirstClientSpan(trace: OutboundTrace, tracing: Observer | undefined): OutboundTrace {
  const parent = callerTraceparent(trace.traceparent);
  if (tracing === undefined || parent === undefined) return trace;
  const [, traceId, , flags] = parent.split('-');
  return { ...trace, firstClient: `00-${traceId ?? ''}-${newSpanId()}-${flags ?? ''}` };
}

/** The span a message sent in `trace` names as its parent: the first request's CLIENT span, else the caller's. */
export function messageTraceparent(trace: OutboundTrace): string | undefined {
  return trace.firstClient ?? trace.traceparent;
}

/** The preset CLIENT span `given` still holds for its first request (taken now), if any. */
function takeFirstClient(given: OutboundTrace | undefined, parent: string | undefined): string | undefined {
  const preset = given?.firstClient;
  if (given === undefined || preset === undefined || parent === undefined || taken.has(given))
    return undefined;
  taken.add(given);
  const self = callerTraceparent(preset);
  // only a child of the parent's trace: anything else is dropped, never an error
  return self !== undefined && self.slice(3, 35) === parent.slice(3, 35) ? self : undefined;
}

/**
 * Runs `work` with `trace` as the trace of the HTTP requests it makes through a
 * {@link tracedFetch} (and of nothing else).
 *
 * @example
 * await withOutboundTrace({ traceparent: ctx.traceparent }, () => client.callTool(params));
 */
export function withOutboundTrace<T>(trace: OutboundTrace, work: () => T): T {
  return current.run(trace, work);
}

/** The trace the request being made continues, when it runs in {@link withOutboundTrace}. */
export function outboundTrace(): OutboundTrace | undefined {
  return current.getStore();
}

/** The URL of a fetch's input. */
function urlOf(input: string | URL | Request): URL | undefined {
  try {
    return new URL(input instanceof Request ? input.url : input);
  } catch {
    return undefined;
  }
}

/** The default port of a URL's scheme (`server.port` when the URL names none). */
function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The Plexus error an HTTP status stands for on a client span (4xx and 5xx are errors). */
function statusError(status: number): PlexusError {
  const code =
    status === 401
      ? 'UNAUTHORIZED'
      : status === 403
        ? 'FORBIDDEN'
        : status === 404
          ? 'NOT_FOUND'
          : status === 429
            ? 'RATE_LIMITED'
            : status >= 500
              ? 'UNAVAILABLE'
              : 'INVALID_REQUEST';
  return new PlexusError(code, `HTTP ${String(status)}`);
}

function clientSpan(
  tracing: Observer,
  method: string,
  url: URL | undefined,
  trace: OutboundTrace,
  self: string | undefined,
): ObserverSpan {
  return tracing.span(
    method,
    {
      'http.request.method': method,
      // no credentials and no query: they can carry secrets
      ...(url === undefined
        ? {}
        : {
            'url.full': `${url.origin}${url.pathname}`,
            'server.address': url.hostname,
            'server.port': portOf(url),
          }),
    },
    {
      kind: 'client',
      ...(trace.traceparent === undefined ? {} : { parent: trace.traceparent }),
      ...(self === undefined ? {} : { self }),
      ...(trace.traceparent === undefined || trace.tracestate === undefined
        ? {}
        : { tracestate: trace.tracestate }),
    },
  );
}

/**
 * `base` (default: the global `fetch`) sending the trace of {@link withOutboundTrace} as
 * `traceparent` / `tracestate` headers. With `tracing` every request is a CLIENT span (a child
 * of that trace, or a new trace outside one) ended when the answer's head arrives, with
 * `http.response.status_code`; the header names it. Without `tracing`, a request outside a
 * trace goes as it is. A malformed trace is dropped, never an error.
 */
export function tracedFetch(base: FetchFn = fetch, tracing?: Observer): FetchFn {
  return async (input, init) => {
    const given = current.getStore();
    const parent = callerTraceparent(given?.traceparent);
    const tracestate = parent === undefined ? undefined : cleanTracestate(given?.tracestate);
    const trace: OutboundTrace = {
      ...(parent === undefined ? {} : { traceparent: parent }),
      ...(tracestate === undefined ? {} : { tracestate }),
    };
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const span =
      tracing === undefined
        ? undefined
        : clientSpan(tracing, method, urlOf(input), trace, takeFirstClient(given, parent));
    const traceparent = span?.traceparent ?? parent;
    if (traceparent === undefined) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set(TRACEPARENT_HEADER, traceparent);
    if (tracestate === undefined) headers.delete(TRACESTATE_HEADER);
    else headers.set(TRACESTATE_HEADER, tracestate);
    let response: Response;
    try {
      response = await base(input, { ...init, headers });
    } catch (error) {
      span?.end(toPlexusError(error));
      throw error;
    }
    span?.set?.({ 'http.response.status_code': response.status });
    span?.end(response.status >= 400 ? statusError(response.status) : undefined);
    return response;
  };
}
