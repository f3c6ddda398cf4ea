/**
 * An OpenTelemetry `IdGenerator` that hands out an id decided beforehand once, then random
 * ones. Plexus decides some span ids before the span is reported (the `traceparent` a face
 * answers with, the hop a forwarded envelope carries, signed, to a peer); the tracer gives the
 * span exactly that id so the trace the log records and the one exported agree (OBS-8).
 * `Tracer.startSpan` asks for the ids synchronously, so setting them just before is safe.
 */
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { newSpanIdHex, newTraceIdHex } from './span-ids.js';

/** An id generator whose next ids can be preset. */
export interface PresetIds extends IdGenerator {
  /** The next span started takes these ids (`traceId` only matters for a root span). */
  preset(traceId: string, spanId: string): void;
  /** Forgets a preset that was not taken. */
  clear(): void;
}

/** Creates the generator (one per tracer provider). */
export function presetIds(): PresetIds {
  let traceId: string | undefined;
  let spanId: string | undefined;
  return {
    preset(trace, span) {
      traceId = trace;
      spanId = span;
    },
    clear() {
      traceId = undefined;
      spanId = undefined;
    },
    generateTraceId() {
      const id = traceId ?? newTraceIdHex();
      traceId = undefined;
      return id;
    },
    generateSpanId() {
      const id = spanId ?? newSpanIdHex();
      spanId = undefined;
      return id;
    },
  };
}
