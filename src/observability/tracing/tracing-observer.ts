/**
 * The runtime's observer as OpenTelemetry spans (issue 16 item 1; docs/observability.md
 * "Traces"). Every span is started with an explicit parent context built from a W3C
 * `traceparent`: nothing is registered globally (no context manager, no global provider), so
 * two nodes in one process keep their traces apart (OBS-6). Spans whose id was decided
 * earlier (a face's answer, a hop on the wire) take that id through {@link PresetIds}.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  createTraceState,
  trace,
  type Context,
  type SpanContext,
  type Span,
  type TraceState,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { PlexusError } from '../../core/errors.js';
import { cleanTracestate } from '../../core/tracestate.js';
import { startLightSpan, type LightSpanSink } from './light-span.js';
import type { PresetIds } from './preset-ids.js';
import { sharedAttributesConverter, spanAttributesOf, type FlatAttributes } from './runtime-attributes.js';

type Flat = FlatAttributes;

/** Span kinds by name (the runtime's `ObserverSpanKind`). */
export type TracedSpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

/** Where a span sits in its trace (the runtime's `ObserverSpanOptions`, structurally). */
export interface TracedSpanOptions {
  readonly parent?: string;
  readonly tracestate?: string;
  readonly self?: string;
  readonly kind?: TracedSpanKind;
  readonly startedAt?: number;
}

/** A span in progress (the runtime's `ObserverSpan`, structurally). */
export interface TracedSpan {
  end(error?: PlexusError): void;
  set(attributes: Flat): void;
  readonly traceparent: string;
}

/** The observer side of a node's tracer (the runtime's `Observer`, structurally). */
export interface TracingObserver {
  span(name: string, attributes?: Flat, options?: TracedSpanOptions): TracedSpan;
  count(name: string, attributes?: Flat, value?: number): void;
}

const KINDS: Readonly<Record<TracedSpanKind, SpanKind>> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** 1 for the character codes of lower-case hex digits. */
const LOWER_HEX = new Uint8Array(128);
for (const c of '0123456789abcdef') LOWER_HEX[c.charCodeAt(0)] = 1;

function lowerHex(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 128 || LOWER_HEX[code] === 0) return false;
  }
  return true;
}

/**
 * The ids of a version-00 `traceparent` — `00-<32 hex>-<16 hex>-<2 hex>`, lower case, the forms
 * the runtime writes — or `undefined` when it is not one (or its ids are all zeros). Checked
 * character by character (a regular expression and its match array cost more, once per span).
 */
export function traceparentIds(
  value: string | undefined,
): { readonly traceId: string; readonly spanId: string; readonly flags: number } | undefined {
  if (value?.length !== 55) return undefined;
  if (value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 48) return undefined; // "00"
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  if (!lowerHex(value, 3, 35) || !lowerHex(value, 36, 52) || !lowerHex(value, 53, 55)) return undefined;
  const traceId = value.slice(3, 35);
  const spanId = value.slice(36, 52);
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: Number.parseInt(value.slice(53, 55), 16) };
}

/**
 * The span context a `traceparent` names as a parent (remote, as the tracer would take it), or
 * `undefined` without a valid one, with the `tracestate` that came with it when that is well
 * formed (OBS-45; a malformed one is dropped).
 */
export function parentSpanContextOf(
  traceparent: string | undefined,
  tracestate?: string | TraceState,
): SpanContext | undefined {
  const ids = traceparentIds(traceparent);
  if (ids === undefined) return undefined;
  const clean = typeof tracestate === 'string' ? cleanTracestate(tracestate) : undefined;
  const state =
    typeof tracestate === 'string' ? (clean === undefined ? undefined : createTraceState(clean)) : tracestate;
  return {
    traceId: ids.traceId,
    spanId: ids.spanId,
    traceFlags: ids.flags & TraceFlags.SAMPLED,
    isRemote: true,
    ...(state === undefined ? {} : { traceState: state }),
  };
}

/**
 * The parent context a `traceparent` names (the root context without a valid one), with the
 * `tracestate` that came with it when that is well formed (OBS-45; a malformed one is dropped).
 */
export function contextOf(traceparent: string | undefined, tracestate?: string | TraceState): Context {
  const parent = parentSpanContextOf(traceparent, tracestate);
  return parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
}

/** How many parents {@link parentCache} keeps: the invocation's, an execute's, a commit's. */
const PARENTS_KEPT = 4;

/**
 * The parent span contexts of the last few distinct parents (OBS-61): the steps of one call all
 * name the invocation span, the effects and the store commit their step, so each `traceparent`
 * is parsed once per call instead of once per span.
 */
function parentCache(): {
  get(traceparent: string, state: string | TraceState | undefined): SpanContext | undefined;
} {
  const texts: (string | undefined)[] = new Array<string | undefined>(PARENTS_KEPT).fill(undefined);
  const states: (string | TraceState | undefined)[] = new Array<string | TraceState | undefined>(
    PARENTS_KEPT,
  ).fill(undefined);
  const contexts: (SpanContext | undefined)[] = new Array<SpanContext | undefined>(PARENTS_KEPT).fill(
    undefined,
  );
  let next = 0;
  return {
    get(traceparent, state) {
      for (let i = 0; i < PARENTS_KEPT; i += 1) {
        if (texts[i] === traceparent && states[i] === state) return contexts[i];
      }
      const context = parentSpanContextOf(traceparent, state);
      texts[next] = traceparent;
      states[next] = state;
      contexts[next] = context;
      next = (next + 1) % PARENTS_KEPT;
      return context;
    },
  };
}

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Creates the observer over `tracer`, whose provider uses `ids` as its id generator. With
 * `steps`, an internal span under a known parent (a pipeline step) skips the tracer and goes
 * to the provider's processor as a light span (OBS-55); server, client, producer and consumer
 * spans, roots and spans with a preset id always come from the tracer.
 */
export function tracingObserver(tracer: Tracer, ids: PresetIds, steps?: LightSpanSink): TracingObserver {
  // The tracestate of each open span that has one, by span id: a child named by its parent's
  // traceparent alone keeps it (OBS-45). Bounded: a span that never ends cannot grow it forever.
  const states = new Map<string, TraceState>();
  const MAX_STATES = 10_000;
  const parentState = (options: TracedSpanOptions): string | TraceState | undefined => {
    if (options.tracestate !== undefined) return options.tracestate;
    if (states.size === 0) return undefined;
    const parent = traceparentIds(options.parent);
    return parent === undefined ? undefined : states.get(parent.spanId);
  };
  const remember = (spanId: string, state: TraceState | undefined): void => {
    if (state === undefined) return;
    if (states.size >= MAX_STATES) states.clear();
    states.set(spanId, state);
  };
  const parents = parentCache();
  const attributesOf = sharedAttributesConverter();
  return {
    span(name, attributes, options = {}) {
      const parentText = options.parent;
      if (steps !== undefined && options.self === undefined && (options.kind ?? 'internal') === 'internal') {
        const parent = parentText === undefined ? undefined : parents.get(parentText, parentState(options));
        if (parent !== undefined) {
          const step = startLightSpan(steps, name, attributesOf(name, attributes), parent, options.startedAt);
          if (parent.traceState === undefined) return step;
          remember(step.spanId, parent.traceState);
          return {
            get traceparent() {
              return step.traceparent;
            },
            set: (more) => {
              step.set(more);
            },
            end: (error) => {
              states.delete(step.spanId);
              step.end(error);
            },
          };
        }
      }
      const self = traceparentIds(options.self);
      if (self !== undefined) ids.preset(self.traceId, self.spanId);
      let span: Span;
      try {
        const parent = parentText === undefined ? undefined : parents.get(parentText, parentState(options));
        span = tracer.startSpan(
          name,
          {
            kind: KINDS[options.kind ?? 'internal'],
            attributes: spanAttributesOf(name, attributes),
            ...(options.startedAt === undefined ? {} : { startTime: options.startedAt }),
          },
          parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent),
        );
      } finally {
        if (self !== undefined) ids.clear();
      }
      const traceparent = traceparentOf(span);
      const { spanId, traceState } = span.spanContext();
      remember(spanId, traceState);
      let ended = false;
      return {
        traceparent,
        set(more) {
          if (!ended && span.isRecording()) span.setAttributes(spanAttributesOf(name, more));
        },
        end(error) {
          if (ended) return;
          ended = true;
          if (traceState !== undefined) states.delete(spanId);
          if (error !== undefined) {
            span.setAttribute(ATTR_ERROR_TYPE, error.code);
            span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.code}: ${error.message}` });
          }
          span.end();
        },
      };
    },
    count: () => undefined,
  };
}
