/**
 * Internal spans without the tracer (OBS-55), kept as compact records (OBS-61): a step of a
 * sampled invocation is one object — its name, the call's shared attributes, the parent's span
 * context, a span id (a slice of a batch of random hex, `span-ids.ts`), start and end as Unix
 * milliseconds and a status code — handed to the node's span processor when it ends, so the
 * same batch processor and exporter send it as they send the tracer's spans. It is the span
 * the runtime holds (no wrapper, no closures) and it is its own span context. What the
 * OpenTelemetry `ReadableSpan` shape asks for beyond that (`HrTime` pairs, a status object,
 * the merged attributes) is worked out only when read: the OTLP/protobuf encoder reads the
 * record's fields directly (`otlp-protobuf.ts`), other exporters through the getters.
 * A step under an unsampled parent records nothing, as the parent-based sampler would decide.
 */
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanStatus,
  type TraceState,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { spanAttributesOf, type FlatAttributes } from './runtime-attributes.js';
import { newSpanIdHex } from './span-ids.js';

/** Where ended light spans go: the provider's processor, resource and scope. */
export interface LightSpanSink {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/** What a span ends with when it failed (a `PlexusError`, structurally). */
export interface SpanFailure {
  readonly code: string;
  readonly message: string;
}

/** A light span in progress (the runtime's `ObserverSpan`, structurally). */
export interface LightSpan {
  readonly traceparent: string;
  /** The span's own id (16 hex characters). */
  readonly spanId: string;
  /** Adds the runtime's attributes (converted as on the span's start). */
  set(attributes: FlatAttributes): void;
  /** Ends the span, failed with `error` when given. Ending twice is a no-op. */
  end(error?: SpanFailure): void;
}

const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
const ORIGIN_MS = performance.timeOrigin;

/** Unix milliseconds (fractional) as an OpenTelemetry `HrTime`. */
export function hrTimeOf(ms: number): HrTime {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

const nowMs = (): number => ORIGIN_MS + performance.now();

/** A recorded internal span: the compact record, and a `ReadableSpan` and `SpanContext` by its getters. */
export class StepSpan implements ReadableSpan, LightSpan {
  readonly kind = SpanKind.INTERNAL;
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly traceFlags = TraceFlags.SAMPLED;
  /** The trace id (the parent's). */
  readonly traceId: string;
  readonly spanId: string;
  /** Attributes shared with other spans of the call: never written. */
  readonly base: Attributes;
  /** Attributes of this span alone (set later, or the error type), when any. */
  own: Attributes | undefined = undefined;
  endMs = 0;
  statusCode: SpanStatusCode = SpanStatusCode.UNSET;
  statusMessage: string | undefined = undefined;
  ended = false;
  private merged: Attributes | undefined = undefined;
  private header: string | undefined = undefined;

  constructor(
    readonly name: string,
    base: Attributes,
    readonly parentSpanContext: SpanContext,
    readonly startMs: number,
    private readonly sink: LightSpanSink,
  ) {
    this.traceId = parentSpanContext.traceId;
    this.spanId = newSpanIdHex();
    this.base = base;
  }

  // ---- SpanContext: the span is its own ----
  get traceState(): TraceState | undefined {
    return this.parentSpanContext.traceState;
  }

  spanContext(): SpanContext {
    // its trace and span id, flags and trace state are the context's fields (a trace state
    // reads `undefined` when there is none, as an absent one does)
    return this as unknown as SpanContext;
  }

  get traceparent(): string {
    return (this.header ??= `00-${this.traceId}-${this.spanId}-01`);
  }

  // ---- ReadableSpan, worked out when read ----
  get attributes(): Attributes {
    if (this.own === undefined) return this.base;
    return (this.merged ??= { ...this.base, ...this.own });
  }

  get status(): SpanStatus {
    return this.statusMessage === undefined
      ? { code: this.statusCode }
      : { code: this.statusCode, message: this.statusMessage };
  }

  get startTime(): HrTime {
    return hrTimeOf(this.startMs);
  }

  get endTime(): HrTime {
    return this.ended ? hrTimeOf(this.endMs) : [0, 0];
  }

  get duration(): HrTime {
    if (!this.ended) return [0, 0];
    const micros = Math.round((this.endMs - this.startMs) * 1000);
    return [Math.floor(micros / 1e6), (micros % 1e6) * 1000];
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.sink.scope;
  }

  // ---- the runtime's span ----
  set(more: FlatAttributes): void {
    if (this.ended) return;
    this.addOwn(spanAttributesOf(this.name, more));
  }

  end(error?: SpanFailure): void {
    if (this.ended) return;
    this.endMs = Math.max(nowMs(), this.startMs);
    if (error !== undefined) {
      this.statusCode = SpanStatusCode.ERROR;
      this.statusMessage = `${error.code}: ${error.message}`;
      this.addOwn({ [ATTR_ERROR_TYPE]: error.code });
    }
    this.ended = true;
    this.sink.processor.onEnd(this);
  }

  private addOwn(more: Attributes): void {
    this.merged = undefined;
    if (this.own === undefined) this.own = more;
    else Object.assign(this.own, more);
  }
}

/** A span under an unsampled parent: an id of its own, nothing recorded. */
class UnsampledStep implements LightSpan {
  readonly spanId = newSpanIdHex();
  constructor(private readonly traceId: string) {}
  get traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-00`;
  }
  set(): void {}
  end(): void {}
}

/**
 * Starts an internal span named `name` under `parent` (a valid span context) with `attributes`
 * (span attributes, possibly shared with other spans: never written): recorded and exported
 * when the parent is sampled, a non-recording span with its own id otherwise.
 */
export function startLightSpan(
  sink: LightSpanSink,
  name: string,
  attributes: Attributes,
  parent: SpanContext,
  startedAt?: number,
): LightSpan {
  if ((parent.traceFlags & TraceFlags.SAMPLED) === 0) return new UnsampledStep(parent.traceId);
  return new StepSpan(name, attributes, parent, startedAt ?? nowMs(), sink);
}
