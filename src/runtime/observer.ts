/**
 * The runtime's observability hook: a small injected interface through which every pipeline
 * step reports a span and counters. No OpenTelemetry dependency here; the observability layer
 * adapts this interface to OTEL and Prometheus later. Notable happenings are not reported here:
 * the runtime logs them on its `Logger` (see `RuntimeComponents.logger`).
 * A no-op default and an in-memory recorder (for tests) are provided.
 */
import type { PlexusError } from '../core/errors.js';
import { fanOutSpans } from '../observability/node-observer.js';

/** Span and counter attributes: flat scalars only. */
export type ObserverAttributes = Readonly<Record<string, string | number | boolean>>;

/**
 * What is known of a span only at its end (e.g. the effects an invocation carried out): flat
 * scalars or lists of strings, as OpenTelemetry attributes allow.
 */
export type ObserverEndAttributes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** A span in progress. */
export interface ObserverSpan {
  /**
   * Ends the span; `error` marks it failed with that error's code; `attributes` add what is
   * known only now. Ending twice is a no-op.
   */
  end(error?: PlexusError, attributes?: ObserverEndAttributes): void;
  /** Adds attributes learnt after the start (an observer that records none leaves it out). */
  set?(attributes: ObserverAttributes): void;
  /**
   * This span's W3C `traceparent`, when the observer traces (docs/observability.md "Traces"):
   * child spans name it as their parent and hops to other nodes carry it.
   */
  readonly traceparent?: string;
}

/** The kind of a span (OpenTelemetry's SpanKind, by name). */
export type ObserverSpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

/** Where a span sits in its trace. Every field is optional; an observer that does not trace ignores them. */
export interface ObserverSpanOptions {
  /** The parent span's W3C `traceparent` (a new trace without one, or when it is invalid). */
  readonly parent?: string;
  /**
   * The W3C `tracestate` that came with `parent` from another service (OBS-45): the span and
   * its children keep it in their span context. A span whose parent is a span of this node
   * inherits its parent's without it.
   */
  readonly tracestate?: string;
  /**
   * The span's own W3C `traceparent`, when its id was already decided (a hop whose id went on
   * the wire, a server span whose id the answer named): the span takes that trace and span id.
   */
  readonly self?: string;
  /** @default 'internal' */
  readonly kind?: ObserverSpanKind;
  /** Unix ms the span started, when it started before it was reported. @default now */
  readonly startedAt?: number;
}

/** Where the runtime reports what it does. Implementations must never throw. */
export interface Observer {
  /** Starts a span named `name` (e.g. `runtime.validate_input`). */
  span(name: string, attributes?: ObserverAttributes, options?: ObserverSpanOptions): ObserverSpan;
  /** Adds `value` (default 1) to the counter `name`. */
  count(name: string, attributes?: ObserverAttributes, value?: number): void;
}

const NOOP_SPAN: ObserverSpan = { end: () => undefined };

/** An observer that records nothing (the default). */
export const noopObserver: Observer = {
  span: () => NOOP_SPAN,
  count: () => undefined,
};

/**
 * An observer reporting to each of `observers` (the node's meters and its tracer). The span it
 * returns ends and sets on all of them and names the first `traceparent` among theirs.
 */
export function teeObserver(...observers: readonly Observer[]): Observer {
  const list = observers.filter((o) => o !== noopObserver);
  if (list.length === 0) return noopObserver;
  if (list.length === 1) return list[0] as Observer;
  return {
    span(name, attributes, options) {
      return fanOutSpans(list.map((o) => o.span(name, attributes, options)));
    },
    count(name, attributes, value) {
      for (const o of list) o.count(name, attributes, value);
    },
  };
}

/**
 * `observer` with `parent` as the default parent of its spans (the steps of one invocation
 * under its span). `observer` itself when there is no parent: nothing to pay when not tracing.
 */
export function underSpan(observer: Observer, parent: string | undefined): Observer {
  if (parent === undefined) return observer;
  return {
    span: (name, attributes, options) => observer.span(name, attributes, { parent, ...options }),
    count: (name, attributes, value) => {
      observer.count(name, attributes, value);
    },
  };
}

/** One finished (or still open) span in a {@link MemoryObserver}. */
export interface RecordedSpan {
  readonly name: string;
  readonly attributes: ObserverAttributes;
  /** Whether `end()` was called. */
  ended: boolean;
  /** The error code the span ended with, when it failed. */
  errorCode?: string;
  /** Milliseconds between start and end (for display; tests never assert it). */
  durationMs?: number;
}

/** An observer that keeps everything in memory, for tests and debugging. */
export interface MemoryObserver extends Observer {
  /** Spans in start order. */
  readonly spans: RecordedSpan[];
  /** The current value of a counter, summed over all attribute sets (0 when never counted). */
  counter(name: string): number;
  /** Names of the spans started so far, in order. */
  spanNames(): string[];
  /** Forgets everything recorded. */
  reset(): void;
}

/**
 * Creates an in-memory observer.
 *
 * @example
 * const observer = memoryObserver();
 * const runtime = createRuntime({ log, observer });
 * // … invoke …
 * observer.spanNames(); // ['runtime.validate_envelope', 'runtime.resolve', …]
 */
export function memoryObserver(): MemoryObserver {
  const spans: RecordedSpan[] = [];
  const counters = new Map<string, number>();
  return {
    spans,
    span(name, attributes = {}) {
      const record: RecordedSpan = { name, attributes, ended: false };
      const started = performance.now();
      spans.push(record);
      return {
        end(error) {
          if (record.ended) return;
          record.ended = true;
          record.durationMs = performance.now() - started;
          if (error !== undefined) record.errorCode = error.code;
        },
      };
    },
    count(name, _attributes, value = 1) {
      counters.set(name, (counters.get(name) ?? 0) + value);
    },
    counter: (name) => counters.get(name) ?? 0,
    spanNames: () => spans.map((s) => s.name),
    reset() {
      spans.length = 0;
      counters.clear();
    },
  };
}
