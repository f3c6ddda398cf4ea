/**
 * The trace a log line belongs to: the active OpenTelemetry span's (when a tracer is set and a
 * span is active; `@opentelemetry/api` is a no-op otherwise), else the W3C `traceparent` the
 * request carried (every ESRP request has one: the face adopts the caller's or starts one).
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';

/** A trace id and span id, lower-case hex (32 and 16 characters). */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/;

/** The ids of the active OpenTelemetry span, or `undefined` when there is none. */
export function activeTraceIds(): TraceIds | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  if (context === undefined || !isSpanContextValid(context)) return undefined;
  return { traceId: context.traceId, spanId: context.spanId };
}

/** The ids of a W3C `traceparent`, or `undefined` when it is absent or malformed. */
export function traceIdsOf(traceparent: string | undefined): TraceIds | undefined {
  if (traceparent === undefined) return undefined;
  const m = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (m === null || /^0+$/.test(m[1] ?? '') || /^0+$/.test(m[2] ?? '')) return undefined;
  return { traceId: m[1] ?? '', spanId: m[2] ?? '' };
}

/** The active span's ids, else `traceparent`'s (see the module comment). */
export function traceIdsFor(traceparent: string | undefined): TraceIds | undefined {
  return activeTraceIds() ?? traceIdsOf(traceparent);
}
