/**
 * A stock MCP SDK `Client` connected to a node's `/mcp` face over Streamable HTTP: the client
 * the MCP face tests drive the node with (written once; the caller closes it).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link connectMcpClient}. */
export interface McpClientOptions {
  /** What the client declares it can do (elicitation, sampling). @default none */
  readonly capabilities?: ClientCapabilities;
  /** The client's name in `initialize`. @default 'test' */
  readonly name?: string;
  /** Headers sent with every request (an `authorization`). @default none */
  readonly headers?: Readonly<Record<string, string>>;
  /** Runs before the client connects (notification handlers that must not miss one). */
  readonly prepare?: (client: Client) => void;
}

/**
 * A client connected to `${nodeUrl}/mcp` (initialized).
 *
 * @example
 * const client = await connectMcpClient(node.url, { capabilities: { elicitation: {} } });
 * try { await client.listTools(); } finally { await client.close(); }
 */
export async function connectMcpClient(nodeUrl: string, options: McpClientOptions = {}): Promise<Client> {
  const client = new Client(
    { name: options.name ?? 'test', version: '1.0.0' },
    options.capabilities === undefined ? {} : { capabilities: options.capabilities },
  );
  options.prepare?.(client);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${nodeUrl}/mcp`),
      options.headers === undefined ? {} : { requestInit: { headers: { ...options.headers } } },
    ),
  );
  return client;
}

/** The `Mcp-Session-Id` a client connected by {@link connectMcpClient} holds (empty without one). */
export function mcpSessionOf(client: Client): string {
  const transport = client.transport;
  return transport instanceof StreamableHTTPClientTransport ? (transport.sessionId ?? '') : '';
}
