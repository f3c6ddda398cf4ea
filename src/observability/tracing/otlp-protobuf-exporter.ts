/**
 * The OTLP/HTTP protobuf span exporter (OBS-60): OpenTelemetry's own HTTP export delegate —
 * keep-alive agent, timeouts, retries with back-off on 429/502/503/504, the bounded queue of
 * exports in flight — with {@link encodeTraceRequest} as its serializer, posting
 * `application/x-protobuf` to `<endpoint>/v1/traces`.
 */
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeTraceRequest } from './otlp-protobuf.js';

/** The semantic-conventions component type of an OTLP/HTTP span exporter. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
  serializeRequest: (spans) => encodeTraceRequest(spans),
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/** An OTLP/HTTP protobuf exporter posting to `url` (the full `/v1/traces` URL). */
export function otlpProtobufExporter(url: string): SpanExporter {
  const delegate = createOtlpHttpExportDelegate(
    // the official exporters' own path to a configuration with the environment's and the
    // defaults merged in (retries, timeout, agent); no other is exported by the package
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    convertLegacyHttpOptions({ url }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
    serializer,
    COMPONENT_TYPE,
    TraceExporterMetricsHelper,
    undefined,
  );
  return new OTLPExporterBase<ReadableSpan[]>(delegate);
}
