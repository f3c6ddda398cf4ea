/**
 * W3C trace context across hops (seed 002 §2.1, §7.1): a request that leaves this job — forwarded
 * to a peer node, or run as a child call (`tool.invoke`) — becomes a new span in the same trace.
 * Its `traceparent` keeps the trace id and flags with a fresh span id, and the span it came from
 * is named in the extension `_x_agentese_parent_span_id` (the AGENTESE `parent_span_id`).
 */
import type { Envelope } from '../../core/envelope.js';
import { AGENTESE_EXTENSIONS } from '../../wire/agentese/envelope.js';
import { formatTraceparent, newSpanId, parseTraceparent } from '../../wire/agentese/traceparent.js';

/** The extension key naming the parent span of a request's span. */
export const PARENT_SPAN_EXTENSION = AGENTESE_EXTENSIONS.parentSpanId;

export { newSpanId };

/** The trace context of a child span of `traceparent`, or `undefined` when it is not W3C. */
export function childSpan(
  traceparent: string | undefined,
): { readonly traceparent: string; readonly parentSpanId: string } | undefined {
  const parts = traceparent === undefined ? undefined : parseTraceparent(traceparent);
  if (parts === undefined) return undefined;
  return {
    traceparent: formatTraceparent({ traceId: parts.traceId, spanId: newSpanId(), flags: parts.flags }),
    parentSpanId: parts.spanId,
  };
}

/**
 * `request` as a child span of `parent`'s span: same trace id, a new span id, the parent span
 * id in `_x_agentese_parent_span_id`. A parent without a W3C `traceparent` leaves `request`
 * as it is.
 *
 * @example
 * const forwarded = asChildSpan(job.request, { ...job.request, to: 'math' });
 */
export function asChildSpan(parent: Pick<Envelope, 'traceparent'>, request: Envelope): Envelope {
  const child = childSpan(parent.traceparent);
  if (child === undefined) return request;
  return {
    ...request,
    traceparent: child.traceparent,
    extensions: { ...(request.extensions ?? {}), [PARENT_SPAN_EXTENSION]: child.parentSpanId },
  };
}
