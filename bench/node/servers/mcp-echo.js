// Baseline (c): the official MCP TypeScript SDK (`@modelcontextprotocol/sdk` 1.x) serving an
// `echo` tool over Streamable HTTP at `/mcp`, wired the way the SDK's own docs and examples do
// it (`createMcpExpressApp` + `McpServer` + `StreamableHTTPServerTransport`). Started as a child
// process; argv[2] picks the mode:
//
//   stateless  — the SDK server guide's minimal server and `simpleStatelessStreamableHttp`
//                example ("ideal for simple API-style servers"): a fresh McpServer and
//                transport per POST, `sessionIdGenerator: undefined`.
//   stateful   — the `simpleStreamableHttp` example's session handling: one server and
//                transport per session (`Mcp-Session-Id`), replies on an SSE stream per POST,
//                GET opens the session's notification stream, DELETE ends the session.
//   stateful-json — the `jsonResponseStreamableHttp` example: stateful, `enableJsonResponse`.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { announce, HOST } from './announce.js';

const mode = process.argv[2] ?? 'stateful';
if (!['stateless', 'stateful', 'stateful-json'].includes(mode))
  throw new Error(`mcp-echo: unknown mode ${mode}`);

/** One MCP server with the `echo` tool: answers with its arguments as JSON text. */
function echoServer() {
  const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its arguments unchanged, as JSON text',
      inputSchema: { text: z.string(), n: z.number() },
    },
    (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );
  return server;
}

/** @param {import('express').Response} res @param {number} status @param {string} message */
function rpcError(res, status, message) {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

const app = createMcpExpressApp({ host: HOST });

if (mode === 'stateless') {
  app.post('/mcp', async (req, res) => {
    const server = echoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', (_req, res) => rpcError(res, 405, 'Method not allowed.'));
  app.delete('/mcp', (_req, res) => rpcError(res, 405, 'Method not allowed.'));
} else {
  /** @type {Map<string, StreamableHTTPServerTransport>} */
  const sessions = new Map();
  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (known) {
      await known.handleRequest(req, res, req.body);
      return;
    }
    if (sessionId !== undefined || !isInitializeRequest(req.body)) {
      rpcError(res, sessionId === undefined ? 400 : 404, 'No valid session');
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: mode === 'stateful-json',
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await echoServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  /** @type {import('express').RequestHandler} */
  const sessionRequest = async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!known) {
      rpcError(res, 400, 'Invalid or missing session ID');
      return;
    }
    await known.handleRequest(req, res);
  };
  app.get('/mcp', sessionRequest);
  app.delete('/mcp', sessionRequest);
}

const server = app.listen(0, HOST, () => announce(server));
server.keepAliveTimeout = 60_000;
