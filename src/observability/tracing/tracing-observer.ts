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
  type Attributes,
  type Context,
  type Span,
  type TraceState,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { PlexusError } from '../../core/errors.js';
import { cleanTracestate } from '../../core/tracestate.js';
import { INVOCATION_SPAN } from '../span-names.js';
import { startLightSpan, type LightSpanSink } from './light-span.js';
import type { PresetIds } from './preset-ids.js';
import { ATTR_TENANT_ID, ATTR_VERB } from './span-attributes.js';

type Flat = Readonly<Record<string, string | number | boolean>>;

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

/** `00-<trace>-<span>-<flags>`, version 00 exactly (the forms the runtime writes). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The ids of a version-00 `traceparent`, or `undefined` when it is not one (or all zeros). */
export function traceparentIds(
  value: string | undefined,
): { readonly traceId: string; readonly spanId: string; readonly flags: number } | undefined {
  if (value === undefined) return undefined;
  const m = TRACEPARENT.exec(value);
  if (m === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = m;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/**
 * The parent context a `traceparent` names (the root context without a valid one), with the
 * `tracestate` that came with it when that is well formed (OBS-45; a malformed one is dropped).
 */
export function contextOf(traceparent: string | undefined, tracestate?: string | TraceState): Context {
  const ids = traceparentIds(traceparent);
  if (ids === undefined) return ROOT_CONTEXT;
  const clean = typeof tracestate === 'string' ? cleanTracestate(tracestate) : undefined;
  const state =
    typeof tracestate === 'string' ? (clean === undefined ? undefined : createTraceState(clean)) : tracestate;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: ids.traceId,
    spanId: ids.spanId,
    traceFlags: ids.flags & TraceFlags.SAMPLED,
    isRemote: true,
    ...(state === undefined ? {} : { traceState: state }),
  });
}

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** Span attributes the runtime sets for its log lines (OBS-23), never exported. */
const LOG_ONLY: ReadonlySet<string> = new Set(['traceparent', 'user']);

/**
 * The runtime's attribute names as span attributes: on the invocation span `verb` and `tenant`
 * are the seed's `agentese.verb` / `agentese.tenant_id`; names with a dot are kept; any other
 * bare name is the node's own, `plexus.<name>`.
 */
function attributesOf(name: string, attributes: Flat | undefined): Attributes {
  const out: Attributes = {};
  if (attributes === undefined) return out;
  const invocation = name === INVOCATION_SPAN;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (invocation && key === 'verb') out[ATTR_VERB] = value;
    else if (invocation && key === 'tenant') out[ATTR_TENANT_ID] = value;
    else {
      const exported = exportedName(key);
      if (exported !== undefined) out[exported] = value;
    }
  }
  return out;
}

/** Exported names of the runtime's attribute names, worked out once per name (a small, fixed set). */
const EXPORTED = new Map<string, string | undefined>();

/** `key` as a span attribute name, or `undefined` for one kept for the log line only. */
function exportedName(key: string): string | undefined {
  let exported = EXPORTED.get(key);
  if (exported === undefined && !EXPORTED.has(key)) {
    // for the log line only: the trace is the span's own, and user ids are personal data
    exported = LOG_ONLY.has(key) ? undefined : key.includes('.') ? key : `plexus.${key}`;
    if (EXPORTED.size < 4096) EXPORTED.set(key, exported);
  }
  return exported;
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
  // The steps of one invocation all name the invocation span as their parent: parsing the
  // same `traceparent` into the same context once instead of per span.
  let lastParent: string | undefined;
  let lastState: string | TraceState | undefined;
  let lastContext: Context = ROOT_CONTEXT;
  const parentContext = (options: TracedSpanOptions): Context => {
    if (options.parent === undefined) return ROOT_CONTEXT;
    const state = parentState(options);
    if (options.parent !== lastParent || state !== lastState) {
      lastContext = contextOf(options.parent, state);
      lastParent = options.parent;
      lastState = state;
    }
    return lastContext;
  };
  return {
    span(name, attributes, options = {}) {
      if (steps !== undefined && options.self === undefined && (options.kind ?? 'internal') === 'internal') {
        const parent =
          options.parent === undefined ? undefined : trace.getSpanContext(parentContext(options));
        if (parent !== undefined) {
          const step = startLightSpan(steps, name, attributesOf(name, attributes), parent, options.startedAt);
          remember(step.spanId, parent.traceState);
          return {
            traceparent: step.traceparent,
            set: (more) => {
              step.set(attributesOf(name, more));
            },
            end: (error) => {
              if (parent.traceState !== undefined) states.delete(step.spanId);
              step.end(
                error === undefined
                  ? undefined
                  : { code: SpanStatusCode.ERROR, message: `${error.code}: ${error.message}` },
                error === undefined ? undefined : { [ATTR_ERROR_TYPE]: error.code },
              );
            },
          };
        }
      }
      const self = traceparentIds(options.self);
      if (self !== undefined) ids.preset(self.traceId, self.spanId);
      let span: Span;
      try {
        span = tracer.startSpan(
          name,
          {
            kind: KINDS[options.kind ?? 'internal'],
            attributes: attributesOf(name, attributes),
            ...(options.startedAt === undefined ? {} : { startTime: options.startedAt }),
          },
          parentContext(options),
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
          if (!ended && span.isRecording()) span.setAttributes(attributesOf(name, more));
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
