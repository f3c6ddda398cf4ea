/**
 * The connection to one bridged MCP server (issue 13 item 8): a stock SDK `Client` over
 * `StdioClientTransport` (the node launches the server) or `StreamableHTTPClientTransport`
 * (with {@link perRequestSignalFetch}). The link reconnects on demand, reports the death of
 * its server (the stdio process exiting) to whoever listens, and turns the server's
 * `notifications/*_list_changed` into one callback.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Progress, Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { PlexusError } from '../../core/errors.js';
import { describeEntry, resolveReferences, type McpServerEntry } from './mcp-server-entry.js';
import type { Observer } from '../../runtime/observer.js';
import {
  outboundTrace,
  tracedFetch,
  withOutboundTrace,
  type FetchFn,
  type OutboundTrace,
} from '../outbound-trace.js';
import { perRequestSignalFetch } from './per-request-fetch.js';

/** What the server offers. */
export interface McpListing {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /** The server offers `completion/complete` (its `completions` capability, MCP-53). */
  readonly completions: boolean;
}

/** How long connecting (the initialize handshake) may take, ms. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** Most pages read of one list (each page is the server's choice of size). */
const MAX_PAGES = 100;

/** Callbacks of a link. */
export interface McpLinkHooks {
  /** The server said one of its lists changed. */
  readonly listChanged: () => void;
  /** The connection ended without {@link McpLink.close} (the stdio process exited). */
  readonly died: (reason: Error) => void;
  /** The node's tracer: each HTTP request to the server is a CLIENT span (OBS-48). @default none */
  readonly tracing?: Observer;
}

/** The connection to one server. */
export interface McpLink {
  readonly entry: McpServerEntry;
  /** The node's tracer, as the hooks gave it (a stdio call's CLIENT span, OBS-67). */
  readonly tracing?: Observer;
  /** The connected client, connecting when there is none. @throws PlexusError `UNAVAILABLE`. */
  client(): Promise<Client>;
  /** Closes the current client (and its process) and connects a new one. */
  reconnect(): Promise<Client>;
  /**
   * Reads every list the server offers (paginated, bounded), connecting when not connected.
   * With `trace`, the HTTP requests it makes that run in no trace of their own (the connect
   * handshake, the lists) are CLIENT spans of `trace` (OBS-68); later requests are not.
   */
  listing(trace?: OutboundTrace): Promise<McpListing>;
  /**
   * Sends `notifications/progress` with `token` to `listener` until the returned function is
   * called (MCP-31: the link reads them off the transport, in order with the replies).
   */
  onProgress(token: string, listener: (progress: Progress) => void): () => void;
  /** Closes the client; the link can connect again later. */
  close(): Promise<void>;
}

/**
 * Takes `notifications/progress` for a token of `listeners` off `transport` before the SDK
 * sees them. The SDK client handles notifications a microtask later than replies, so the last
 * progress a server sends before its reply is dropped when both arrive in one read (the
 * reply removes the request's progress handler first); read here, in arrival order, none is.
 */
function interceptProgress(
  transport: Transport,
  listeners: ReadonlyMap<string, (progress: Progress) => void>,
): void {
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
      const params = (message.params ?? {}) as Progress & { progressToken?: unknown };
      const listener =
        typeof params.progressToken === 'string' ? listeners.get(params.progressToken) : undefined;
      if (listener !== undefined) {
        listener({
          progress: params.progress,
          ...(params.total === undefined ? {} : { total: params.total }),
          ...(params.message === undefined ? {} : { message: params.message }),
        });
        return;
      }
    }
    inner?.(message, extra);
  };
}

function transportOf(
  entry: McpServerEntry,
  tracing: Observer | undefined,
  pinned: () => OutboundTrace | undefined,
): StdioClientTransport | StreamableHTTPClientTransport {
  if (entry.command !== undefined) {
    return new StdioClientTransport({
      command: entry.command,
      args: [...(entry.args ?? [])],
      env: { ...getDefaultEnvironment(), ...entry.env },
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
      stderr: 'ignore',
    });
  }
  // OBS-48: each request carries the calling job's trace (traceparent / tracestate headers)
  const traced = tracedFetch(fetch, tracing);
  // OBS-68: a request in no call's trace takes the pinned one (a registering call's), scoped to
  // the request itself so nothing the SDK starts from it (the GET stream's reader) inherits it
  const scoped: FetchFn = (input, init) => {
    const trace = outboundTrace() === undefined ? pinned() : undefined;
    return trace === undefined ? traced(input, init) : withOutboundTrace(trace, () => traced(input, init));
  };
  return new StreamableHTTPClientTransport(new URL(entry.url ?? ''), {
    fetch: perRequestSignalFetch(scoped),
    ...(entry.headers === undefined ? {} : { requestInit: { headers: { ...entry.headers } } }),
  });
}

async function pages<T>(
  what: string,
  read: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await read(cursor);
    out.push(...answer.items);
    if (answer.nextCursor === undefined) return out;
    cursor = answer.nextCursor;
  }
  throw new PlexusError('UNAVAILABLE', `the ${what} list has more than ${MAX_PAGES} pages`);
}

/** A link to `entry`'s server; nothing is connected until {@link McpLink.client}. */
export function createMcpLink(entry: McpServerEntry, hooks: McpLinkHooks): McpLink {
  let current: Promise<Client> | undefined;
  const progress = new Map<string, (progress: Progress) => void>();
  const closing = new WeakSet<Client>();
  const where = describeEntry(entry);
  /** The trace requests outside any call's trace take while a traced listing runs (OBS-68). */
  let pinned: OutboundTrace | undefined;

  const connect = (): Promise<Client> => {
    const made = (async () => {
      const changed = {
        autoRefresh: false,
        debounceMs: 0,
        onChanged: () => {
          hooks.listChanged();
        },
      };
      const client = new Client(
        { name: 'plexus-mcp-bridge', version: '1.0.0' },
        { listChanged: { tools: changed, resources: changed, prompts: changed } },
      );
      client.onclose = () => {
        if (closing.has(client)) return;
        if (current === made) current = undefined;
        hooks.died(new Error(`the MCP server ${entry.name} (${where}) closed its connection`));
      };
      try {
        // MCP-54: `${NAME}` in env and headers values is read from the node's environment now
        const transport = transportOf(resolveReferences(entry), hooks.tracing, () => pinned);
        await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
        interceptProgress(transport, progress);
      } catch (error) {
        closing.add(client);
        await client.close().catch(() => undefined);
        throw new PlexusError(
          'UNAVAILABLE',
          `the MCP server ${entry.name} (${where}) could not be reached: ${error instanceof Error ? error.message : String(error)}`,
          { details: { server: entry.name } },
        );
      }
      return client;
    })();
    current = made;
    made.catch(() => {
      if (current === made) current = undefined;
    });
    return made;
  };

  const closeCurrent = async (): Promise<void> => {
    const was = current;
    current = undefined;
    if (was === undefined) return;
    const client = await was.catch(() => undefined);
    if (client === undefined) return;
    closing.add(client);
    await client.close().catch(() => undefined);
  };

  const list = async (): Promise<McpListing> => {
    const client = await (current ?? connect());
    const caps = client.getServerCapabilities() ?? {};
    const [tools, resources, templates, prompts] = await Promise.all([
      caps.tools === undefined
        ? []
        : pages('tools', async (cursor) => {
            const r = await client.listTools(cursor === undefined ? {} : { cursor });
            return { items: r.tools, nextCursor: r.nextCursor };
          }),
      caps.resources === undefined
        ? []
        : pages('resources', async (cursor) => {
            const r = await client.listResources(cursor === undefined ? {} : { cursor });
            return { items: r.resources, nextCursor: r.nextCursor };
          }),
      caps.resources === undefined
        ? []
        : pages('resource templates', async (cursor) => {
            const r = await client.listResourceTemplates(cursor === undefined ? {} : { cursor });
            return { items: r.resourceTemplates, nextCursor: r.nextCursor };
          }),
      caps.prompts === undefined
        ? []
        : pages('prompts', async (cursor) => {
            const r = await client.listPrompts(cursor === undefined ? {} : { cursor });
            return { items: r.prompts, nextCursor: r.nextCursor };
          }),
    ]);
    return { tools, resources, templates, prompts, completions: caps.completions !== undefined };
  };

  return {
    entry,
    ...(hooks.tracing === undefined ? {} : { tracing: hooks.tracing }),
    client: () => current ?? connect(),
    async reconnect() {
      await closeCurrent();
      return connect();
    },
    async listing(trace) {
      if (trace?.traceparent === undefined) return list();
      pinned = trace;
      try {
        return await list();
      } finally {
        if (pinned === trace) pinned = undefined;
      }
    },
    onProgress(token, listener) {
      progress.set(token, listener);
      return () => {
        progress.delete(token);
      };
    },
    close: closeCurrent,
  };
}
