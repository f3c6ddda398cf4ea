/**
 * The node's tracer from its configuration (docs/observability.md "Traces"): none unless
 * `tracing.enabled`, a `tracing.endpoint` or a `spanExporter` asks for it (OBS-7). The
 * endpoint is `tracing.endpoint`, else `OTEL_EXPORTER_OTLP_ENDPOINT`, else the collector's
 * default `http://localhost:4318`; spans go to `<endpoint>/v1/traces` as OTLP/HTTP protobuf
 * unless `tracing.protocol` (else `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`) says `http/json` (OBS-60).
 */
import {
  DEFAULT_OTLP_ENDPOINT,
  nodeTracing,
  OTLP_PROTOCOLS,
  otlpExporter,
  type NodeTracing,
  type OtlpProtocol,
} from '../observability/tracing/node-tracing.js';
import { PlexusError } from '../core/errors.js';
import type { NodeInit } from './node-init.js';

/** The environment variable naming the collector (the OpenTelemetry SDKs' own). */
export const OTLP_ENDPOINT_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/** The endpoint spans are sent to: the configured one, the environment's, or the default. */
export function otlpEndpoint(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[OTLP_ENDPOINT_ENV]?.trim();
  return configured ?? (fromEnv === undefined || fromEnv === '' ? DEFAULT_OTLP_ENDPOINT : fromEnv);
}

/** The environment variables naming the OTLP protocol, the more specific first (OpenTelemetry's own). */
export const OTLP_PROTOCOL_ENV = [
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
] as const;

/**
 * The protocol spans are sent with: the configured one, else the environment's, else
 * `http/protobuf`.
 *
 * @throws PlexusError `INVALID_PARAMS` when the environment names a protocol Plexus does not
 * export with (`grpc`, a typo): refusing at start beats sending nothing.
 */
export function otlpProtocol(
  configured: OtlpProtocol | undefined,
  env: NodeJS.ProcessEnv = process.env,
): OtlpProtocol {
  if (configured !== undefined) return configured;
  for (const name of OTLP_PROTOCOL_ENV) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
    throw new PlexusError(
      'INVALID_PARAMS',
      `${name}=${JSON.stringify(value)} is not a protocol Plexus exports with; use ${OTLP_PROTOCOLS.join(' or ')}, or set tracing.protocol in plexus.yaml`,
    );
  }
  return 'http/protobuf';
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
      init.spanExporter ?? otlpExporter(otlpEndpoint(config?.endpoint), otlpProtocol(config?.protocol)),
    instanceId: nodeId,
    // an exporter given in code (tests) gets each span as it ends; OTLP gets batches
    ...(init.spanExporter === undefined ? {} : { batch: false }),
    ...(config?.serviceName === undefined ? {} : { serviceName: config.serviceName }),
    ...(config?.sampling === undefined ? {} : { sampling: config.sampling }),
  });
}
