/**
 * W3C Trace Context on the HTTP faces and the WebSocket upgrade (docs/decisions/traces-and-errors.md):
 * a request's `traceparent` (and `tracestate`) header is honoured — the node serves it in a new
 * span of that trace — and a missing or invalid one starts a new trace, as W3C Trace Context
 * §4.3 says (never an error). The answer carries the span it was served in as its own
 * `traceparent` header (and the `tracestate` it was given), so a caller learns the trace id of
 * any call, and `plexus trace <id>` finds it.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { cleanTracestate } from '../core/tracestate.js';
import {
  DEFAULT_TRACE_FLAGS,
  formatTraceparent,
  isW3cSpanId,
  isW3cTraceId,
  newSpanId,
  newTraceId,
} from '../wire/agentese/traceparent.js';

/** The W3C `traceparent` header. */
export const TRACEPARENT_HEADER = 'traceparent';
/** The W3C `tracestate` header. */
export const TRACESTATE_HEADER = 'tracestate';

/** The trace a request is served in. */
export interface ServedTrace {
  /** The server span: the caller's trace id and flags (or a new trace), a fresh span id. */
  readonly traceparent: string;
  /** The caller's `tracestate`, when its `traceparent` was valid and it sent one. */
  readonly tracestate?: string;
  /** True when the caller's `traceparent` was valid (its trace is continued). */
  readonly continued: boolean;
}

const HEX2 = /^[0-9a-f]{2}$/;

function headerValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined; // two traceparents: invalid
  return value;
}

/**
 * The trace id and flags of a `traceparent` header value, read as W3C Trace Context §4.3 says:
 * version `00` exactly `00-<32 hex>-<16 hex>-<2 hex>`; a higher version (not `ff`) read by its
 * first four fields (a longer value must continue with `-`); ids not all zeros; lower-case.
 * `undefined` when it is invalid.
 */
export function parseTraceparentHeader(
  value: string | undefined,
): { readonly traceId: string; readonly flags: string } | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const version = text.slice(0, 2);
  if (!HEX2.test(version) || version === 'ff') return undefined;
  if (version === '00' ? text.length !== 55 : text.length < 55 || (text.length > 55 && text[55] !== '-')) {
    return undefined;
  }
  if (text[2] !== '-' || text[35] !== '-' || text[52] !== '-') return undefined;
  const traceId = text.slice(3, 35);
  const spanId = text.slice(36, 52);
  const flags = text.slice(53, 55);
  if (!isW3cTraceId(traceId) || !isW3cSpanId(spanId) || !HEX2.test(flags)) return undefined;
  return { traceId, flags };
}

/**
 * The caller's span a `traceparent` value names, as a version-00 `traceparent` (a higher
 * version read by its first four fields, W3C §4.3), or `undefined` when the value is missing
 * or invalid. The form a face puts on a request envelope it makes for the caller.
 */
export function callerTraceparent(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const parsed = parseTraceparentHeader(text);
  if (parsed === undefined) return undefined;
  return `00-${parsed.traceId}-${text.slice(36, 52)}-${parsed.flags}`;
}

/**
 * The caller's span a message's metadata names (JSON-RPC and MCP `params._meta`, A2A message
 * `metadata`): its `traceparent` member, read like the header. Anything else — not an object,
 * no member, a malformed value — is `undefined`: the call then starts (or keeps) a trace of
 * the face's own, never an error (W3C Trace Context §4.3).
 */
export function traceparentOfMeta(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  return callerTraceparent((meta as Record<string, unknown>)[TRACEPARENT_HEADER]);
}

/**
 * The `tracestate` a message's metadata carries beside its `traceparent` (OBS-45): kept only
 * when the metadata's `traceparent` is valid and the value is well formed and within W3C's
 * bounds; anything else is `undefined`, never an error.
 */
export function tracestateOfMeta(meta: unknown): string | undefined {
  if (traceparentOfMeta(meta) === undefined) return undefined;
  return cleanTracestate((meta as Record<string, unknown>)[TRACESTATE_HEADER]);
}

/** The trace a request with these headers is served in (a new trace when they carry none or an invalid one). */
export function servedTrace(headers: IncomingHttpHeaders): ServedTrace {
  const parent = parseTraceparentHeader(headerValue(headers[TRACEPARENT_HEADER]));
  if (parent === undefined) return { traceparent: childSpan(), continued: false };
  const tracestate = cleanTracestate(headers[TRACESTATE_HEADER]);
  return {
    traceparent: formatTraceparent({ traceId: parent.traceId, spanId: newSpanId(), flags: parent.flags }),
    ...(tracestate === undefined ? {} : { tracestate }),
    continued: true,
  };
}

const served = new WeakMap<IncomingMessage, ServedTrace>();

/** The trace `request` is served in, decided once per request (see {@link servedTrace}). */
export function traceOfRequest(request: IncomingMessage): ServedTrace {
  let trace = served.get(request);
  if (trace === undefined) {
    trace = servedTrace(request.headers);
    served.set(request, trace);
  }
  return trace;
}

/** Records that `request` is served in `traceparent` (a face that took the trace from its body). */
export function adoptTrace(request: IncomingMessage, traceparent: string): void {
  const current = traceOfRequest(request);
  if (current.traceparent !== traceparent) served.set(request, { ...current, traceparent });
}

/** The response headers naming the trace `request` was served in. */
export function traceResponseHeaders(request: IncomingMessage): Record<string, string> {
  const trace = traceOfRequest(request);
  return {
    [TRACEPARENT_HEADER]: trace.traceparent,
    ...(trace.tracestate === undefined ? {} : { [TRACESTATE_HEADER]: trace.tracestate }),
  };
}

/**
 * `envelope` with the trace `request` is served in: its own `traceparent` when it has a valid
 * one (recorded as the request's), else the request's header trace.
 */
export function withServedTrace<E extends { readonly traceparent?: string; readonly tracestate?: string }>(
  envelope: E,
  request: IncomingMessage,
): E {
  const own = envelope.traceparent;
  if (typeof own === 'string' && parseTraceparentHeader(own) !== undefined) {
    adoptTrace(request, own);
    return envelope;
  }
  const served = traceOfRequest(request);
  return {
    ...envelope,
    traceparent: served.traceparent,
    // the header's tracestate goes with the header's trace (OBS-45)
    ...(served.tracestate === undefined ? {} : { tracestate: served.tracestate }),
  };
}

/**
 * The `traceparent` of a new span: a child of `parent` (same trace id and flags, a fresh span
 * id), or the first span of a new trace when `parent` is missing or invalid.
 */
export function childSpan(parent?: string): string {
  const parts = parseTraceparentHeader(parent);
  return formatTraceparent({
    traceId: parts?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    flags: parts?.flags ?? DEFAULT_TRACE_FLAGS,
  });
}
