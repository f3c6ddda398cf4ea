// The baseline subjects of bench/node.bench.js: each server runs in its own child process on
// 127.0.0.1, port 0, and every face echoes the same small JSON payload, so the rows differ
// only in the stack that carries it.
import { Role } from '@a2a-js/sdk';
import { isDeepStrictEqual } from 'node:util';
import { startServerProcess } from './server-process.js';

const server = (/** @type {string} */ file) => new URL(`./servers/${file}`, import.meta.url);

/**
 * The payload every face echoes: ~30 bytes of JSON, different for every request index so that
 * no layer can answer from a cache (Plexus deduplicates identical ESRP requests, D5).
 * @param {number} i
 */
export const payload = (i) => ({ text: 'hello, plexus', n: i });

/**
 * `SendMessage` params as the SDK client takes them: one user message with one part of
 * `content` (a part's `content` oneof, e.g. `{ $case: 'text', value }`).
 * @param {string} messageId @param {unknown} content
 */
export const a2aSendMessage = (messageId, content) => ({
  tenant: '',
  message: {
    messageId,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

/** `SendMessage` params for request `i`: the payload as one text part. */
const a2aSendParams = (/** @type {number} */ i) =>
  a2aSendMessage(`bench-${i}`, { $case: 'text', value: JSON.stringify(payload(i)) });

/** The MCP server modes measured (see servers/mcp-echo.js): [argv mode, row name, note]. */
const MCP_MODES = [
  [
    'stateful',
    'MCP SDK, stateful, SSE replies',
    'session per client (initialize once); each tools/call answered on an SSE stream (simpleStreamableHttp example)',
  ],
  [
    'stateful-json',
    'MCP SDK, stateful, JSON replies',
    'session per client; `enableJsonResponse: true` (jsonResponseStreamableHttp example)',
  ],
  [
    'stateless',
    'MCP SDK, stateless',
    "a fresh McpServer + transport per POST (the SDK server guide's minimal server)",
  ],
];

/** Row names of the MCP SDK subjects: the 20x target compares against the fastest of them. */
export const MCP_NAMES = MCP_MODES.map(([, name]) => name);

/** @type {import('./load.js').Subject[]} */
export const subjects = [
  {
    name: 'node:http echo',
    start: () => startServerProcess(server('http-echo.js')),
    client: 'http',
    path: '/',
    makeRequest: payload,
  },
  {
    name: 'ws JSON-RPC echo',
    start: () => startServerProcess(server('ws-echo.js')),
    client: 'ws-jsonrpc',
    path: '/',
    makeRequest: (i) => ({ method: 'echo', params: payload(i) }),
  },
  ...MCP_MODES.map(([mode, name, note]) => ({
    name,
    start: () => startServerProcess(server('mcp-echo.js'), [mode]),
    client: /** @type {const} */ ('mcp-sdk'),
    path: '/mcp',
    makeRequest: (/** @type {number} */ i) => ({ name: 'echo', arguments: payload(i) }),
    note,
  })),
  {
    name: 'A2A SDK, JSON-RPC SendMessage',
    start: () => startServerProcess(server('a2a-echo.js')),
    client: 'a2a-sdk',
    path: '/',
    makeRequest: a2aSendParams,
    note: 'echo AgentExecutor publishing one Message; stock ClientFactory client',
  },
  {
    name: 'A2A SDK, JSON-RPC SendMessage, a task per message',
    start: () => startServerProcess(server('a2a-echo.js'), ['--tasks']),
    client: 'a2a-sdk',
    path: '/',
    makeRequest: a2aSendParams,
    /** A completed task (state 3) whose artifact carries the parts sent. */
    check: (/** @type {any} */ req, /** @type {any} */ result) =>
      result?.status?.state === 3 && isDeepStrictEqual(result?.artifacts?.[0]?.parts, req.message.parts),
    note: 'echo AgentExecutor answering as a task (Task, artifact, completed), kept in the InMemoryTaskStore; stock ClientFactory client; checked: COMPLETED, artifact = the parts sent',
  },
];
