/**
 * The runtime's observer of a node (OBS-62): its meters, its log lines and its tracer, each
 * handed only the spans it reads. The meters read the invocation span alone and the log the
 * invocation and routing spans; the tracer reads every span. A span only one of them reads is
 * that one's span, unwrapped — the dozen pipeline steps of a call go straight to the tracer (or
 * to nothing when it is off) instead of through a fan-out that asks every part and wraps
 * their spans. Counters go to every part. Several parts reading one span get it as the
 * runtime's `teeObserver` does: ended and set on each, named by the first `traceparent`.
 */

/** Attributes of a span or counter (the runtime's, structurally: flat scalars). */
type Flat = Readonly<Record<string, string | number | boolean>>;
/** What a span ends with (the runtime's end attributes, structurally). */
type EndAttributes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** A span (the runtime's `ObserverSpan`, structurally). */
export interface PartSpan {
  end(error?: { readonly code: string; readonly message: string }, attributes?: EndAttributes): void;
  set?(attributes: Flat): void;
  readonly traceparent?: string;
}

/** An observer (the runtime's `Observer`, structurally). */
export interface PartObserver<O = object> {
  span(name: string, attributes?: Flat, options?: O): PartSpan;
  count(name: string, attributes?: Flat, value?: number): void;
}

/** One part of a node's observer: `spans` the names of the spans it reads (every span when absent). */
export interface ObserverPart<O = object> {
  readonly observer: PartObserver<O>;
  readonly spans?: readonly string[];
}

const NOOP_SPAN: PartSpan = { end: () => undefined };

/** Span names whose readers are remembered (a node's span names are a small, fixed set). */
const MAX_NAMES = 1024;

/**
 * The spans of several parts (or observers) as one: ended and set on each, named by the first
 * `traceparent` among theirs. The runtime's `teeObserver` answers with it too.
 */
export function fanOutSpans(spans: readonly PartSpan[]): PartSpan {
  const traceparent = spans.find((s) => s.traceparent !== undefined)?.traceparent;
  return {
    end(error, attributes) {
      for (const s of spans) s.end(error, attributes);
    },
    set(more) {
      for (const s of spans) s.set?.(more);
    },
    ...(traceparent === undefined ? {} : { traceparent }),
  };
}

/**
 * Creates the observer over `parts`; with no part, one that records nothing; with one, that
 * part's own.
 *
 * @example
 * const observer = nodeObserver([
 *   { observer: metrics.observer, spans: METERED_SPANS },
 *   { observer: tracing.observer },
 * ]);
 */
export function nodeObserver<O>(parts: readonly ObserverPart<O>[]): PartObserver<O> {
  if (parts.length === 0) return { span: () => NOOP_SPAN, count: () => undefined };
  // one part ignores the spans it does not read by itself
  if (parts.length === 1) return (parts[0] as ObserverPart<O>).observer;
  const readers = new Map<string, readonly PartObserver<O>[]>();
  const readersOf = (name: string): readonly PartObserver<O>[] => {
    let list = readers.get(name);
    if (list === undefined) {
      list = parts.filter((p) => p.spans === undefined || p.spans.includes(name)).map((p) => p.observer);
      if (readers.size >= MAX_NAMES) readers.clear();
      readers.set(name, list);
    }
    return list;
  };
  return {
    span(name, attributes, options) {
      const list = readersOf(name);
      if (list.length === 0) return NOOP_SPAN;
      if (list.length === 1) return (list[0] as PartObserver<O>).span(name, attributes, options);
      return fanOutSpans(list.map((o) => o.span(name, attributes, options)));
    },
    count(name, attributes, value) {
      for (const p of parts) p.observer.count(name, attributes, value);
    },
  };
}
