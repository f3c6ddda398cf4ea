/**
 * The trace of one MCP request (OBS-14, OBS-45, OBS-47): the caller's span its
 * `params._meta.traceparent` names (with `_meta.tracestate`), else the span the HTTP POST is
 * served in (with the `tracestate` header). `tools/call` (OBS-57), `resources/read`,
 * `prompts/get` and `completion/complete` run in a SERVER span of their own there (OTel MCP
 * semantic conventions); a call's invocation span, which the runtime makes, is its child.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { cleanTracestate } from '../../core/tracestate.js';
import type { Observer } from '../../runtime/observer.js';
import { JSONRPC_ERRORS, plexusCodeFromJsonRpc } from '../../wire/jsonrpc/error-table.js';
import { callerTraceparent, tracestateOfMeta, traceparentOfMeta } from '../trace-headers.js';

/** A W3C trace context: a `traceparent` and the `tracestate` that came with it. */
export interface MessageTrace {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** The most characters of a name or URI a span carries. */
const MAX_SPAN_TEXT = 256;

/**
 * The trace a request runs in: its `_meta`'s when that names a valid `traceparent`, else the
 * HTTP request's (`headers` as the session transport hands them). Malformed values are dropped.
 */
export function messageTrace(
  meta: unknown,
  headers: Readonly<Record<string, string | string[] | undefined>> | undefined,
): MessageTrace {
  const own = traceparentOfMeta(meta);
  if (own !== undefined) {
    const tracestate = tracestateOfMeta(meta);
    return { traceparent: own, ...(tracestate === undefined ? {} : { tracestate }) };
  }
  const served = callerTraceparent(headers?.['traceparent']);
  if (served === undefined) return {};
  const tracestate = cleanTracestate(headers?.['tracestate']);
  return { traceparent: served, ...(tracestate === undefined ? {} : { tracestate }) };
}

/** What one traced request is. */
export interface TracedRequest<T = unknown> {
  /** `tools/call`, `resources/read`, `prompts/get`, `completion/complete`. */
  readonly method: string;
  /** A low-cardinality name the span adds to the method (a tool's or a prompt's name). */
  readonly target?: string;
  /** More attributes (`mcp.resource.uri`, `gen_ai.prompt.name`). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The JSON-RPC id. */
  readonly id: string | number;
  readonly trace: MessageTrace;
  /**
   * The failure a result stands for, when the method answers failures as results (a
   * `tools/call` result with `isError: true`): the span ends with it. @default none
   */
  readonly failed?: (out: T) => PlexusError | undefined;
}

/** The Plexus error an MCP handler's failure stands for (an `McpError` by its JSON-RPC code). */
function failureOf(error: unknown): PlexusError {
  if (error instanceof McpError) return new PlexusError(plexusCodeFromJsonRpc(error.code), error.message);
  return toPlexusError(error);
}

/**
 * Runs `work` in the request's SERVER span (without a tracer: under the request's trace as
 * it is), handing it the trace to send on. A failure ends the span with `error.type` and
 * `rpc.jsonrpc.error_code`, and is rethrown unchanged; a result `request.failed` names a
 * failure ends it with that failure's `error.type` (it is no JSON-RPC error).
 */
export async function inRequestSpan<T>(
  tracing: Observer | undefined,
  request: TracedRequest<T>,
  work: (trace: MessageTrace) => Promise<T>,
): Promise<T> {
  if (tracing === undefined) return work(request.trace);
  const { traceparent: parent, tracestate } = request.trace;
  const target = request.target?.slice(0, MAX_SPAN_TEXT);
  const span = tracing.span(
    target === undefined || target === '' ? request.method : `${request.method} ${target}`,
    {
      'mcp.method.name': request.method,
      'rpc.system': 'jsonrpc',
      'rpc.method': request.method,
      'rpc.jsonrpc.version': '2.0',
      'rpc.jsonrpc.request_id': String(request.id),
      ...request.attributes,
    },
    {
      kind: 'server',
      ...(parent === undefined ? {} : { parent }),
      ...(parent === undefined || tracestate === undefined ? {} : { tracestate }),
    },
  );
  const own = span.traceparent ?? parent;
  try {
    const out = await work({
      ...(own === undefined ? {} : { traceparent: own }),
      ...(tracestate === undefined ? {} : { tracestate }),
    });
    span.end(request.failed?.(out));
    return out;
  } catch (error) {
    const failure = failureOf(error);
    span.set?.({
      'rpc.jsonrpc.error_code': error instanceof McpError ? error.code : JSONRPC_ERRORS[failure.code].jsonrpc,
    });
    span.end(failure);
    throw error;
  }
}

/** `text` cut to the length a span attribute keeps. */
export function spanText(text: string): string {
  return text.slice(0, MAX_SPAN_TEXT);
}
