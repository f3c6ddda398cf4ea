/**
 * The upstream of `plexus mcp`: an MCP SDK `Client` connected to a node's Streamable HTTP
 * face (`URL/mcp`) with the bearer token when there is one. A node that cannot be reached,
 * refuses the credential or does not answer within a bound is a `PlexusError` naming the
 * URL, never a hang.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PlexusError } from '../core/errors.js';
import { authHeaders, type NodeTarget } from './node-client.js';

/** How long connecting (the `initialize` round trip) may take, ms. */
export const MCP_CONNECT_TIMEOUT_MS = 15_000;

/** A connected upstream. */
export interface McpUpstream {
  readonly client: Client;
  /** The face's URL (`http://127.0.0.1:3100/mcp`). */
  readonly url: string;
  close(): Promise<void>;
}

/** The MCP endpoint of a node: `URL/mcp`, or `URL` itself when it already ends in `/mcp`. */
export function mcpEndpoint(target: NodeTarget): string {
  return /\/mcp$/.test(target.url) ? target.url : `${target.url}/mcp`;
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const code = (cause as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string') return `${message} (${code})`;
  return message;
}

function connectFailure(url: string, error: unknown): PlexusError {
  const reason = reasonOf(error);
  const hint = /\b401\b|unauthori[sz]ed/i.test(reason)
    ? '; pass a token with --token or $PLEXUS_TOKEN (plexus token issue)'
    : /ECONNREFUSED|fetch failed|timed out/i.test(reason)
      ? '; is the node running (plexus start)?'
      : '';
  return new PlexusError(
    'UNAVAILABLE',
    `cannot reach the Plexus node's MCP face at ${url}: ${reason}${hint}`,
    {
      details: { url },
      cause: error,
    },
  );
}

/**
 * Connects an SDK client to `target`'s MCP face.
 *
 * @throws PlexusError `UNAVAILABLE` naming the URL when the node cannot be reached, refuses
 *   the credential, or does not finish `initialize` within `timeoutMs`.
 */
export async function connectMcpUpstream(
  target: NodeTarget,
  clientInfo: { name: string; version: string },
  timeoutMs = MCP_CONNECT_TIMEOUT_MS,
): Promise<McpUpstream> {
  const url = mcpEndpoint(target);
  const client = new Client(clientInfo, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: authHeaders(target) },
  });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw connectFailure(url, error);
  }
  return {
    client,
    url,
    close: () => client.close(),
  };
}
