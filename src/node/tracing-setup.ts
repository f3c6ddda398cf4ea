/**
 * The node's tracer from its configuration (docs/observability.md "Traces"): none unless
 * `tracing.enabled`, a `tracing.endpoint` or a `spanExporter` asks for it (OBS-7). The
 * endpoint is `tracing.endpoint`, else `OTEL_EXPORTER_OTLP_ENDPOINT`, else the collector's
 * default `http://localhost:4318`; spans go to `<endpoint>/v1/traces` as OTLP/HTTP JSON.
 */
import {
  DEFAULT_OTLP_ENDPOINT,
  nodeTracing,
  otlpExporter,
  type NodeTracing,
} from '../observability/tracing/node-tracing.js';
import type { NodeInit } from './node-init.js';

/** The environment variable naming the collector (the OpenTelemetry SDKs' own). */
export const OTLP_ENDPOINT_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/** The endpoint spans are sent to: the configured one, the environment's, or the default. */
export function otlpEndpoint(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[OTLP_ENDPOINT_ENV]?.trim();
  return configured ?? (fromEnv === undefined || fromEnv === '' ? DEFAULT_OTLP_ENDPOINT : fromEnv);
}

/** The node's tracer, or `undefined` when tracing is off. */
export function nodeTracingOf(
  init: Pick<NodeInit, 'tracing' | 'spanExporter'>,
  nodeId: string,
): NodeTracing | undefined {
  const config = init.tracing;
  const on =
    init.spanExporter !== undefined ||
    config?.enabled === true ||
    (config?.endpoint !== undefined && config.enabled !== false);
  if (!on) return undefined;
  return nodeTracing({
    exporter:
      init.spanExporter ??
      otlpExporter(
        otlpEndpoint(config?.endpoint),
        config?.protocol === 'http/json' ? 'http/json' : undefined,
      ),
    instanceId: nodeId,
    // an exporter given in code (tests) gets each span as it ends; OTLP gets batches
    ...(init.spanExporter === undefined ? {} : { batch: false }),
    ...(config?.serviceName === undefined ? {} : { serviceName: config.serviceName }),
    ...(config?.sampling === undefined ? {} : { sampling: config.sampling }),
  });
}
