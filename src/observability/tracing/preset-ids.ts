/**
 * An OpenTelemetry `IdGenerator` that hands out an id decided beforehand once, then random
 * ones. Plexus decides some span ids before the span is reported (the `traceparent` a face
 * answers with, the hop a forwarded envelope carries, signed, to a peer); the tracer gives the
 * span exactly that id so the trace the log records and the one exported agree (OBS-8).
 * `Tracer.startSpan` asks for the ids synchronously, so setting them just before is safe.
 */
import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';

/** An id generator whose next ids can be preset. */
export interface PresetIds extends IdGenerator {
  /** The next span started takes these ids (`traceId` only matters for a root span). */
  preset(traceId: string, spanId: string): void;
  /** Forgets a preset that was not taken. */
  clear(): void;
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

function randomHex(bytes: number, zero: string): string {
  const buffer = Buffer.alloc(bytes);
  let hex = zero;
  while (hex === zero) hex = randomFillSync(buffer).toString('hex'); // all zeros is invalid (W3C)
  return hex;
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
      const id = traceId ?? randomHex(16, ZERO_TRACE);
      traceId = undefined;
      return id;
    },
    generateSpanId() {
      const id = spanId ?? randomHex(8, ZERO_SPAN);
      spanId = undefined;
      return id;
    },
  };
}
