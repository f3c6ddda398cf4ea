/**
 * W3C trace context for SDK calls: every call is a new span (a fresh 16-hex parent id in the
 * request's `traceparent`) inside the caller's trace, or inside a new trace when the caller
 * has none.
 */
import { PlexusError } from '../core/errors.js';
import {
  DEFAULT_TRACE_FLAGS,
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
} from '../wire/agentese/traceparent.js';

/** A new `traceparent` starting a new trace (sampled). */
export function newTraceparent(): string {
  return formatTraceparent({ traceId: newTraceId(), spanId: newSpanId(), flags: DEFAULT_TRACE_FLAGS });
}

/**
 * The `traceparent` of a new span under `parent`: same trace id and flags, a fresh span id.
 * Without `parent`, a new trace.
 *
 * @throws PlexusError `INVALID_PARAMS` when `parent` is given but is not a version-00 traceparent.
 */
export function childTraceparent(parent?: string): string {
  if (parent === undefined) return newTraceparent();
  const parts = parseTraceparent(parent);
  if (parts === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `traceparent ${JSON.stringify(parent)} is not a W3C version-00 traceparent (00-<32 hex>-<16 hex>-<2 hex>)`,
      { details: { pointer: '/traceparent' } },
    );
  }
  return formatTraceparent({ traceId: parts.traceId, spanId: newSpanId(), flags: parts.flags });
}

/** The trace id of a `traceparent`, or `undefined` when it is not one. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent === undefined ? undefined : parseTraceparent(traceparent)?.traceId;
}
