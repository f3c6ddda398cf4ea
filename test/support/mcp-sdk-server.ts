/**
 * A stock MCP SDK server on loopback for the MCP bridge's tests: a stateful Streamable HTTP
 * endpoint at `/mcp` (the SDK's `StreamableHTTPServerTransport` on node:http), one `McpServer`
 * and one transport per session. Written once for every test that bridges such a server.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link startMcpSdkServer}. */
export interface McpSdkServerInit {
  /** Makes the server of a new session (its tools, resources, prompts). */
  readonly server: () => McpServer;
  /** Told of every HTTP request before it is served, with its parsed JSON body (POST). */
  readonly onRequest?: (req: IncomingMessage, body: unknown) => void;
}

/** A running server. */
export interface McpSdkServer {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly server: Server;
  /** Closes it and every connection to it. */
  close(): Promise<void>;
}

/** The JSON body of a request (`undefined` when empty). */
export async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Starts the server on 127.0.0.1 (a free port). A request of an unknown session answers 404.
 *
 * @example
 * const mcp = await startMcpSdkServer({ server: () => fixture() });
 * createNode({ faces: [...defaultFaces(init), mcpBridgeFace({ servers: [{ name: 'sm', url: mcp.url }] })] });
 */
export async function startMcpSdkServer(init: McpSdkServerInit): Promise<McpSdkServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer((req, res) => {
    void (async () => {
      const parsed = req.method === 'POST' ? await jsonBody(req) : undefined;
      init.onRequest?.(req, parsed);
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (transport === undefined && req.method === 'POST' && isInitializeRequest(parsed)) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sid) => {
            sessions.set(sid, created);
          },
        });
        transport = created;
        await init.server().connect(created);
      }
      if (transport === undefined) {
        res.writeHead(404).end();
        return;
      }
      await transport.handleRequest(req, res, parsed);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${String(address.port)}/mcp`,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
