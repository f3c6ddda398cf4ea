/**
 * One node's tracer (issue 16 item 1; docs/observability.md "Traces"): a tracer provider of
 * its own — never registered globally, so two nodes in one process do not share one (OBS-6) —
 * with head sampling (a new trace is sampled at `sampling`; a continued one follows its
 * caller's flag), a batch span processor and an exporter (OTLP/HTTP for a node, any
 * `SpanExporter` for tests). A node without `tracing:` makes none of this (OBS-7).
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { otlpProtobufExporter } from './otlp-protobuf-exporter.js';
import { presetIds } from './preset-ids.js';
import { tracingObserver, type TracingObserver } from './tracing-observer.js';

/** The OTLP protocols a node exports with; `http/protobuf` is the default (OBS-60). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** One of {@link OTLP_PROTOCOLS}. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The collector's default base URL (OTLP/HTTP). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
/** The service name spans carry when none is configured. */
export const DEFAULT_SERVICE_NAME = 'plexus';

/** The instrumentation scope of every span a node makes. */
const SCOPE = { name: 'plexus' } as const;

/** Options of {@link nodeTracing}. */
export interface NodeTracingInit {
  /** Where finished spans go. */
  readonly exporter: SpanExporter;
  /** `service.name` of the spans. @default 'plexus' */
  readonly serviceName?: string;
  /** `service.instance.id` (the node's DID). */
  readonly instanceId?: string;
  /** The share of new traces sampled, 0 to 1. @default 1 */
  readonly sampling?: number;
  /** Batch spans before export (a node), or export each as it ends (tests). @default true */
  readonly batch?: boolean;
}

/** A node's tracer. */
export interface NodeTracing {
  /** Hand this to the runtime (with the meters', through `teeObserver`) and to the faces. */
  readonly observer: TracingObserver;
  /** The OpenTelemetry tracer, for code that speaks the API directly. */
  readonly tracer: Tracer;
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops; spans started later are dropped. */
  shutdown(): Promise<void>;
}

/** The trace endpoint of an OTLP/HTTP base URL: `<base>/v1/traces` unless it names it already. */
export function tracesUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

/**
 * An OTLP/HTTP exporter to `endpoint` (a base URL, `OTEL_EXPORTER_OTLP_ENDPOINT`'s form):
 * protobuf (Plexus's serializer, OBS-60) unless `http/json` is asked for (OpenTelemetry's
 * JSON exporter).
 *
 * @throws RangeError for a protocol not in {@link OTLP_PROTOCOLS}.
 */
export function otlpExporter(endpoint: string, protocol: OtlpProtocol = 'http/protobuf'): SpanExporter {
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new RangeError(
      `tracing.protocol ${JSON.stringify(protocol)} is not supported; use ${OTLP_PROTOCOLS.join(', ')}`,
    );
  }
  const url = tracesUrl(endpoint);
  return protocol === 'http/json' ? new OTLPTraceExporter({ url }) : otlpProtobufExporter(url);
}

/**
 * Creates a node's tracer.
 *
 * @throws RangeError when `sampling` is not a number from 0 to 1.
 * @example
 * const tracing = nodeTracing({ exporter: otlpExporter('http://collector:4318'), serviceName: 'plexus' });
 * const runtime = createRuntime({ log, observer: teeObserver(metrics.observer, tracing.observer) });
 * // … at stop: await tracing.shutdown();
 */
export function nodeTracing(init: NodeTracingInit): NodeTracing {
  const ratio = init.sampling ?? 1;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) {
    throw new RangeError(`tracing.sampling must be a number from 0 to 1, got ${String(ratio)}`);
  }
  const ids = presetIds();
  const processor =
    init.batch === false ? new SimpleSpanProcessor(init.exporter) : new BatchSpanProcessor(init.exporter);
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: init.serviceName ?? DEFAULT_SERVICE_NAME,
    ...(init.instanceId === undefined ? {} : { 'service.instance.id': init.instanceId }),
  });
  const provider = new BasicTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
    idGenerator: ids,
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer(SCOPE.name);
  return {
    observer: tracingObserver(tracer, ids, { processor, resource, scope: SCOPE }),
    tracer,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
