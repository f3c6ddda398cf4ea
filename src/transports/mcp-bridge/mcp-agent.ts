/**
 * A bridged MCP server as a Plexus agent (issue 13 item 8, docs/decisions/mcp.md MCP-30…):
 * the agent's id is the entry's name, each tool is a verb `mcp.<name>.<tool>` (both made verb
 * segments, MCP-30) whose input and output schemas are the tool's, and a call of the verb is
 * one `tools/call` through the stock SDK client — the server's progress becomes job progress,
 * cancelling the job sends `notifications/cancelled` (the SDK does, on the request's signal),
 * a result with `isError` becomes a Plexus error (MCP-31). The server's resources and prompts
 * ride along as the agent's offerings, read through the same client.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { isPlexusErrorCode, PlexusError, type PlexusErrorCode } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { MAX_VERB_SEGMENT_LENGTH } from '../../core/verb-name.js';
import { JSON_SCHEMA_DIALECT, schemaValidator, type JsonSchema } from '../../core/schema-validator.js';
import {
  defineAgent,
  MCP_BRIDGE_EXTENSION,
  type AgentDefinition,
  type AgentPrompt,
  type AgentResource,
  type ArgumentCompleter,
  type HandlerContext,
  type OfferingCaller,
} from '../../runtime/index.js';
import { cleanTracestate } from '../../core/tracestate.js';
import type { ObserverSpan } from '../../runtime/observer.js';
import {
  messageTraceparent,
  withFirstClientSpan,
  withOutboundTrace,
  type OutboundTrace,
} from '../outbound-trace.js';
import type { McpLink, McpListing } from './mcp-link.js';

/** `text` as one verb segment (`[a-z][a-z0-9_]*`, at most 64 characters). */
export function verbSegment(text: string): string {
  const lower = text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const segment = /^[a-z]/.test(lower) ? lower : `t_${lower}`;
  return segment.slice(0, MAX_VERB_SEGMENT_LENGTH);
}

/**
 * The verb of each tool of server `name`, tool name → verb (MCP-30): `mcp.<name>.<tool>`, each
 * made a verb segment; a second tool mapping onto a taken verb gets `_2`, `_3`, … (in list order).
 */
export function toolVerbs(name: string, tools: readonly Tool[]): Map<string, string> {
  const server = verbSegment(name);
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const tool of tools) {
    const base = verbSegment(tool.name);
    let segment = base;
    for (let n = 2; used.has(segment); n++) segment = `${base.slice(0, MAX_VERB_SEGMENT_LENGTH - 4)}_${n}`;
    used.add(segment);
    out.set(tool.name, `mcp.${server}.${segment}`);
  }
  return out;
}

/**
 * A tool's schema as a verb schema (MCP-30): the SDK's servers write draft-07 (`$schema`
 * names it); the node validates with JSON Schema 2020-12, which reads the keywords tools use
 * alike, so the `$schema` of another draft is dropped. A schema 2020-12 still cannot compile
 * becomes `true`: the node lets every value through and the server checks its own input.
 */
export function verbSchema(schema: unknown): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  if (!isJsonObject(schema ?? null)) return true;
  const { $schema, ...rest } = schema as JsonObject;
  const kept: JsonObject = $schema === JSON_SCHEMA_DIALECT ? { $schema, ...rest } : rest;
  try {
    schemaValidator().compile(kept);
    return kept;
  } catch {
    return true;
  }
}

/** Who an instance reports its server's death to (the face keeps one per server). */
export interface InstanceOwner {
  /** The current instance's crash report, replaced by each new instance. */
  crashed?: (reason: unknown) => void;
}

function textOf(result: CallToolResult): string {
  return result.content
    .flatMap((c) => (c.type === 'text' ? [c.text] : []))
    .join('\n')
    .slice(0, 2000);
}

/** The verb output of a successful result (MCP-31). */
export function outputOf(result: CallToolResult, structured: boolean): JsonValue {
  if (structured && result.structuredContent !== undefined) return result.structuredContent as JsonObject;
  const [only] = result.content;
  if (result.content.length === 1 && only?.type === 'text') return only.text;
  return { content: result.content as unknown as JsonValue[] };
}

/** The Plexus error of a result with `isError` (MCP-31). */
export function toolError(result: CallToolResult, server: string, tool: string): PlexusError {
  const meta = result._meta ?? {};
  const code = meta['plexus/code'];
  const text = textOf(result) || 'no message';
  // A Plexus node's /mcp names its code: kept, so an error crosses the bridge unchanged.
  const known: PlexusErrorCode | undefined = isPlexusErrorCode(code) ? code : undefined;
  return new PlexusError(known ?? 'UNAVAILABLE', `MCP server ${server}: tool ${tool} failed: ${text}`, {
    ...(known === undefined ? { retryable: false } : {}),
    details: { server, tool },
  });
}

/** The trace a job's calls continue: its handler's span and the request's tracestate (OBS-45). */
function traceOfJob(ctx: HandlerContext): OutboundTrace {
  if (ctx.traceparent === undefined) return {};
  const tracestate = cleanTracestate(ctx.envelope.tracestate);
  return { traceparent: ctx.traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

/** The trace a resource read or prompt render continues (OBS-47). */
function traceOfCaller(caller: OfferingCaller): { traceparent?: string; tracestate?: string } {
  if (caller.traceparent === undefined) return {};
  const tracestate = cleanTracestate(caller.tracestate);
  return { traceparent: caller.traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

/** A failure of the call itself (not of the tool) as a Plexus error. */
function callError(error: unknown, server: string, tool: string, signal: AbortSignal): PlexusError {
  if (error instanceof PlexusError) return error;
  if (signal.aborted)
    return new PlexusError('CANCELLED', `the call of tool ${tool} of MCP server ${server} was cancelled`);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
    return new PlexusError('TIMEOUT', `MCP server ${server}: tool ${tool} did not answer in time`, {
      details: { server, tool },
    });
  if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number))
    return new PlexusError('INVALID_PARAMS', `MCP server ${server}: tool ${tool}: ${message}`, {
      details: { server, tool },
    });
  return new PlexusError(
    'UNAVAILABLE',
    `MCP server ${server}: tool ${tool} could not be called: ${message}`,
    {
      retryable: true,
      details: { server, tool },
    },
  );
}

async function callTool(
  link: McpLink,
  tool: Tool,
  input: JsonValue,
  ctx: HandlerContext,
): Promise<JsonValue> {
  const server = link.entry.name;
  if (input !== null && !isJsonObject(input))
    throw new PlexusError('INVALID_PARAMS', `MCP tool ${tool.name} takes an object of arguments`, {
      details: { pointer: '' },
    });
  const token = randomUUID();
  const off = link.onProgress(token, (p) => {
    ctx.progress({
      progress: p.progress,
      ...(p.total === undefined ? {} : { total: p.total }),
      ...(p.message === undefined ? {} : { message: p.message }),
    });
  });
  let span: ObserverSpan | undefined;
  let failure: PlexusError | undefined;
  try {
    const client = await link.client();
    const job = traceOfJob(ctx);
    // OBS-67: over HTTP the first request's CLIENT span id is decided now (OBS-58); over stdio
    // the call itself is the CLIENT span. Either way `_meta` names the CLIENT span.
    span = link.entry.url === undefined ? stdioClientSpan(link, tool.name, job) : undefined;
    const trace =
      span?.traceparent === undefined
        ? withFirstClientSpan(job, link.tracing)
        : { ...job, traceparent: span.traceparent };
    const traceparent = messageTraceparent(trace);
    const meta = {
      progressToken: token,
      // OBS-15, OBS-45: the server continues this job's trace (W3C trace context in `_meta`)
      ...(traceparent === undefined ? {} : { traceparent }),
      ...(traceparent === undefined || trace.tracestate === undefined
        ? {}
        : { tracestate: trace.tracestate }),
    };
    // OBS-48: its HTTP requests carry the trace too (headers, and a CLIENT span each)
    const result = (await withOutboundTrace(trace, () =>
      client.callTool({ name: tool.name, arguments: input ?? {}, _meta: meta }, undefined, {
        signal: ctx.signal,
        timeout: Math.max(1, ctx.deadline - Date.now()),
      }),
    )) as CallToolResult;
    if (result.isError === true) throw toolError(result, server, tool.name);
    return outputOf(result, tool.outputSchema !== undefined);
  } catch (error) {
    failure = callError(error, server, tool.name, ctx.signal);
    throw failure;
  } finally {
    span?.end(failure);
    off();
  }
}

/**
 * The CLIENT span of a `tools/call` to a stdio server (OBS-67; the OpenTelemetry MCP
 * conventions' client span), under the job's span, when the node traces and the job is in a
 * trace; the request carries no HTTP CLIENT span to name.
 */
function stdioClientSpan(link: McpLink, tool: string, job: OutboundTrace): ObserverSpan | undefined {
  if (link.tracing === undefined || job.traceparent === undefined) return undefined;
  return link.tracing.span(
    `tools/call ${tool}`,
    {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
      'rpc.system': 'jsonrpc',
      'rpc.method': 'tools/call',
      'network.transport': 'pipe',
    },
    {
      kind: 'client',
      parent: job.traceparent,
      ...(job.tracestate === undefined ? {} : { tracestate: job.tracestate }),
    },
  );
}

/** The variable names of an RFC 6570 URI template (`{a}`, `{+a}`, `{?a,b*}`, `{a:3}`, …). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(/\{[+#./;?&]?([^}]*)\}/g))
    for (const part of (match[1] ?? '').split(',')) {
      const name = part.replace(/\*$|:\d+$/, '');
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  return names;
}

/**
 * A completer asking the bridged server (MCP-53): `completion/complete` for `ref`'s argument,
 * with the other arguments the client chose, on the caller's signal.
 */
function remoteCompleter(
  link: McpLink,
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
  argument: string,
): ArgumentCompleter {
  return async (value, caller, context) => {
    const client = await link.client();
    const { completion } = await client.complete(
      {
        ref,
        argument: { name: argument, value },
        ...(context === undefined || Object.keys(context).length === 0
          ? {}
          : { context: { arguments: { ...context } } }),
      },
      { signal: caller.signal },
    );
    return completion.values;
  };
}

function resourcesOf(link: McpLink, listing: McpListing): AgentResource[] {
  const load = async (uri: string, caller: OfferingCaller): Promise<string | Uint8Array> => {
    const client = await link.client();
    const trace = traceOfCaller(caller);
    const { contents } = await withOutboundTrace(trace, () =>
      client.readResource(
        { uri, ...(trace.traceparent === undefined ? {} : { _meta: trace }) },
        { signal: caller.signal },
      ),
    );
    const item = contents.find((c) => c.uri === uri) ?? contents[0];
    if (item === undefined)
      throw new PlexusError('NOT_FOUND', `MCP server ${link.entry.name} has nothing at ${uri}`);
    return 'text' in item && typeof item.text === 'string'
      ? item.text
      : new Uint8Array(Buffer.from((item as { blob?: string }).blob ?? '', 'base64'));
  };
  return [
    ...listing.resources.map((r): AgentResource => ({
      uri: r.uri,
      name: r.name,
      ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
      ...(r.description === undefined ? {} : { description: r.description }),
      load: (uri, _params, caller) => load(uri, caller),
    })),
    ...listing.templates.map((t): AgentResource => ({
      template: t.uriTemplate,
      name: t.name,
      ...(t.mimeType === undefined ? {} : { mimeType: t.mimeType }),
      ...(t.description === undefined ? {} : { description: t.description }),
      ...(listing.completions
        ? {
            complete: Object.fromEntries(
              templateVariables(t.uriTemplate).map((v) => [
                v,
                remoteCompleter(link, { type: 'ref/resource', uri: t.uriTemplate }, v),
              ]),
            ),
          }
        : {}),
      load: (uri, _params, caller) => load(uri, caller),
    })),
  ];
}

function promptsOf(link: McpLink, listing: McpListing): AgentPrompt[] {
  return listing.prompts.map((p) => ({
    name: p.name,
    ...(p.description === undefined ? {} : { description: p.description }),
    arguments: (p.arguments ?? []).map((a) => ({
      name: a.name,
      ...(a.description === undefined ? {} : { description: a.description }),
      ...(a.required === undefined ? {} : { required: a.required }),
      ...(listing.completions
        ? { complete: remoteCompleter(link, { type: 'ref/prompt', name: p.name }, a.name) }
        : {}),
    })),
    // The seam renders a prompt as text (MCP-32): the messages' text parts, one per paragraph.
    async render(args, caller) {
      const client = await link.client();
      const trace = traceOfCaller(caller);
      const { messages } = await withOutboundTrace(trace, () =>
        client.getPrompt(
          {
            name: p.name,
            arguments: { ...args },
            ...(trace.traceparent === undefined ? {} : { _meta: trace }),
          },
          { signal: caller.signal },
        ),
      );
      return messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : [])).join('\n\n');
    },
  }));
}

/**
 * The agent of a bridged server with `listing`. Its instances share the link: the first
 * instance uses the connected client, each re-created one (after a crash) reconnects — a new
 * process for a stdio server — and reports the server's death through `owner` to its
 * supervisor (MCP-33).
 */
export function mcpBridgeAgent(
  link: McpLink,
  listing: McpListing,
  owner: InstanceOwner,
  reconnected: () => void,
): AgentDefinition {
  const { entry } = link;
  const verbs = toolVerbs(entry.name, listing.tools);
  const tools = listing.tools.map((tool) => ({ tool, verb: verbs.get(tool.name) ?? '' }));
  return defineAgent({
    card: {
      id: entry.name,
      name: entry.name,
      version: '1.0.0',
      tier: 'L3',
      description: `MCP server ${entry.name} (${entry.url === undefined ? 'stdio' : 'Streamable HTTP'})`,
      capabilities: tools.map(({ tool, verb }) => ({
        verb,
        description: tool.description ?? tool.title ?? tool.name,
        input: verbSchema(tool.inputSchema),
        output: tool.outputSchema === undefined ? true : verbSchema(tool.outputSchema),
      })),
      extensions: {
        [MCP_BRIDGE_EXTENSION]: { server: entry.name, tools: Object.fromEntries(verbs) },
      },
    },
    async create({ incarnation, crashed }) {
      if (crashed === undefined) delete owner.crashed;
      else owner.crashed = crashed;
      if (incarnation > 0) {
        await link.reconnect();
        reconnected();
      } else await link.client();
      return Object.fromEntries(
        tools.map(({ tool, verb }) => [
          verb,
          (input: JsonValue, ctx: HandlerContext) => callTool(link, tool, input, ctx),
        ]),
      );
    },
    resources: resourcesOf(link, listing),
    prompts: promptsOf(link, listing),
  });
}
