/**
 * W3C Trace Context `traceparent` values (version `00`): `00-<32 hex trace id>-<16 hex
 * parent id>-<2 hex flags>`, lower-case, ids not all zeros.
 */
import { PlexusError } from '../../core/errors.js';
import { randomHexId } from '../../core/random-hex.js';

/** The parts of a `traceparent`. */
export interface TraceparentParts {
  /** 32 lower-case hex characters, not all zeros. */
  readonly traceId: string;
  /** 16 lower-case hex characters, not all zeros (the span that made the call). */
  readonly spanId: string;
  /** 2 lower-case hex characters; `01` = sampled. */
  readonly flags: string;
}

const TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16}$)[0-9a-f]{16}$/;
const FLAGS = /^[0-9a-f]{2}$/;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The flags written when a wire format carries no sampling decision: sampled. */
export const DEFAULT_TRACE_FLAGS = '01';

/** A new W3C trace id: 16 random bytes as 32 hex characters, never all zeros. */
export function newTraceId(): string {
  return randomHexId(16);
}

/** A new W3C span id: 8 random bytes as 16 hex characters, never all zeros. */
export function newSpanId(): string {
  return randomHexId(8);
}

/** True when `id` is a valid W3C trace id. */
export function isW3cTraceId(id: unknown): boolean {
  return typeof id === 'string' && TRACE_ID.test(id);
}

/** True when `id` is a valid W3C span (parent) id. */
export function isW3cSpanId(id: unknown): boolean {
  return typeof id === 'string' && SPAN_ID.test(id);
}

/** The parts of a version-00 `traceparent`, or `undefined` when `text` is not one. */
export function parseTraceparent(text: string): TraceparentParts | undefined {
  const m = TRACEPARENT.exec(text);
  if (!m) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = m;
  return isW3cTraceId(traceId) && isW3cSpanId(spanId) ? { traceId, spanId, flags } : undefined;
}

/**
 * Writes a version-00 `traceparent`.
 * @throws PlexusError `INVALID_PARAMS` naming the part that is not W3C-shaped.
 */
export function formatTraceparent(parts: { traceId: string; spanId: string; flags?: string }): string {
  const flags = parts.flags ?? DEFAULT_TRACE_FLAGS;
  if (!isW3cTraceId(parts.traceId)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `trace id "${parts.traceId}" is not 32 lower-case hex characters (not all zeros)`,
    );
  }
  if (!isW3cSpanId(parts.spanId)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `span id "${parts.spanId}" is not 16 lower-case hex characters (not all zeros)`,
    );
  }
  if (!FLAGS.test(flags))
    throw new PlexusError('INVALID_PARAMS', `trace flags "${flags}" are not 2 lower-case hex characters`);
  return `00-${parts.traceId}-${parts.spanId}-${flags}`;
}
