/**
 * Pipeline-step spans without the tracer (OBS-55): a step of a sampled invocation is a plain
 * `ReadableSpan` handed straight to the node's span processor when it ends, so the same batch
 * processor and OTLP exporter send it as they send the tracer's spans. The tracer's
 * `startSpan` (sampler, id validation, clock anchoring, attribute limits) cost ~40% of the
 * CPU tracing took per span; a step only needs its ids, times, attributes and status.
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
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { randomHexId } from '../../core/random-hex.js';

/** Where ended light spans go: the provider's processor, resource and scope. */
export interface LightSpanSink {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/** A light span in progress. */
export interface LightSpan {
  readonly traceparent: string;
  /** The span's own id (16 hex characters). */
  readonly spanId: string;
  set(attributes: Attributes): void;
  end(status?: SpanStatus, attributes?: Attributes): void;
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

class RecordedStep implements ReadableSpan, LightSpan {
  readonly kind = SpanKind.INTERNAL;
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: HrTime = [0, 0];
  duration: HrTime = [0, 0];
  ended = false;
  readonly startTime: HrTime;
  readonly traceparent: string;
  readonly spanId: string;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;

  constructor(
    readonly name: string,
    readonly attributes: Attributes,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext,
    private readonly startMs: number,
    private readonly sink: LightSpanSink,
  ) {
    this.startTime = hrTimeOf(startMs);
    this.spanId = context.spanId;
    this.traceparent = `00-${context.traceId}-${context.spanId}-01`;
    this.resource = sink.resource;
    this.instrumentationScope = sink.scope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  set(more: Attributes): void {
    if (!this.ended) Object.assign(this.attributes, more);
  }

  end(status?: SpanStatus, more?: Attributes): void {
    if (this.ended) return;
    const endMs = Math.max(nowMs(), this.startMs);
    if (more !== undefined) Object.assign(this.attributes, more);
    if (status !== undefined) this.status = status;
    this.endTime = hrTimeOf(endMs);
    const micros = Math.round((endMs - this.startMs) * 1000);
    this.duration = [Math.floor(micros / 1e6), (micros % 1e6) * 1000];
    this.ended = true;
    this.sink.processor.onEnd(this);
  }
}

class UnsampledStep implements LightSpan {
  constructor(
    readonly traceparent: string,
    readonly spanId: string,
  ) {}
  set(): void {}
  end(): void {}
}

/**
 * Starts a step span under `parent` (a valid span context): recorded and exported when the
 * parent is sampled, a non-recording span with its own id otherwise.
 */
export function startLightSpan(
  sink: LightSpanSink,
  name: string,
  attributes: Attributes,
  parent: SpanContext,
  startedAt?: number,
): LightSpan {
  const spanId = randomHexId(8);
  if ((parent.traceFlags & TraceFlags.SAMPLED) === 0) {
    return new UnsampledStep(`00-${parent.traceId}-${spanId}-00`, spanId);
  }
  const context: SpanContext = {
    traceId: parent.traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    ...(parent.traceState === undefined ? {} : { traceState: parent.traceState }),
  };
  return new RecordedStep(name, attributes, context, parent, startedAt ?? nowMs(), sink);
}
