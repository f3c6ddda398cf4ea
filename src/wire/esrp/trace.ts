/**
 * ESRP tracing context ↔ W3C `traceparent`. ESRP trace and span ids are UUIDs (128 bits);
 * a traceparent's trace id is 128 bits but its parent id only 64, so the span id's first
 * 16 hex digits become the parent id and the full context travels in an extension.
 */
import type { EsrpContext } from '../../core/esrp/model.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C traceparent for an ESRP context, or `undefined` when its ids are all zeros. */
export function traceparentFromContext(context: EsrpContext): string | undefined {
  const trace = context.trace_id.replace(/-/g, '');
  const parent = context.span_id.replace(/-/g, '').slice(0, 16);
  if (/^0+$/.test(trace) || /^0+$/.test(parent)) return undefined;
  return `00-${trace}-${parent}-01`;
}

/**
 * The ESRP context for a W3C traceparent (version 00): trace id → `trace_id`, parent id →
 * the first half of `span_id` (the rest zeros), no tags. `undefined` when it does not parse.
 */
export function contextFromTraceparent(traceparent: string): EsrpContext | undefined {
  const m = TRACEPARENT.exec(traceparent);
  if (m?.[1] === undefined || m[2] === undefined) return undefined;
  return { trace_id: toUuid(m[1]), span_id: toUuid(m[2].padEnd(32, '0')), tags: null };
}

function toUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
