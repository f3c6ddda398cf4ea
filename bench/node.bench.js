// The node's faces under load (issue 3, "Performance"): sync invocations per second and p50 / p99
// latency of an echo, 50 concurrent clients on loopback, beside the baselines measured in the
// same run — a bare `node:http` echo, a bare `ws` JSON-RPC echo, the official MCP SDK answering
// a tool call over Streamable HTTP, and the A2A JS SDK answering SendMessage.
//
// Each subject runs alone: its server in one child process, the load generator (bench/node/
// load.js) in another, so on a 2-core machine each gets a core and they never share an event
// loop. Keep-alive connections throughout: the figures are request throughput, not connection
// setup. Run: `node bench/node.bench.js` (~30 s). Settings, from the environment:
//   BENCH_SECONDS  measured seconds per subject (default 4)
//   BENCH_CLIENTS  concurrent clients (default 50)
//   BENCH_WARMUP   unmeasured seconds before each measurement (default 0)
//   BENCH_ROUNDS   rounds over all subjects, alternating order; columns are medians (default 1)
//   BENCH_ONLY     comma-separated parts of subject names to run, e.g. `BENCH_ONLY=http,ws`
// A benchmark measures; it never fails on a figure. Results go to docs/performance.md.
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { MCP_NAMES, payload, subjects as baselines } from './node/baselines.js';
import {
  a2aEchoCheck,
  a2aEchoRequest,
  esrpEchoCheck,
  esrpEchoRequest,
  wsEchoRequest,
} from './node/plexus.js';
import { runBench, settingsFromEnv } from './node/runner.js';
import { measureLogFloor } from './node/log-floor.js';
import { startServerProcess } from './node/server-process.js';

/** Row names of the Plexus faces, used by the targets below. */
export const PLEXUS_HTTP = 'Plexus HTTP POST /v1/execute';
export const PLEXUS_WS = 'Plexus WS JSON-RPC';
export const PLEXUS_A2A = 'Plexus A2A JSON-RPC SendMessage';
export const PLEXUS_HTTP_TRACED = 'Plexus HTTP POST /v1/execute, traced (OTLP, 100%)';
export const PLEXUS_HTTP_TRACED_JSON = 'Plexus HTTP POST /v1/execute, traced (OTLP/JSON, 100%)';
export const PLEXUS_HTTP_BARE = 'Plexus HTTP POST /v1/execute, no metrics, no tracing';
export const PLEXUS_MCP_JSON = 'Plexus MCP, stateful, JSON replies';
export const PLEXUS_MCP_SSE = 'Plexus MCP, stateful, SSE replies';
/** The demo echo agent's tool on the MCP face (`agentName.verb`); its input is wrapped in `input`. */
const MCP_ECHO_TOOL = 'Echo.echo.echo';
/** The SDK server answering each message as a task it keeps, as Plexus keeps a job (the target's baseline). */
const A2A_SDK = 'A2A SDK, JSON-RPC SendMessage, a task per message';

/** Starts a Plexus node in its own process (see bench/node/servers/plexus-node.js). */
/** A loaded 2-core machine can take more than the default 15 s to import and start a node. */
const NODE_READY = { readyTimeoutMs: 60_000 };
const plexusNode = () =>
  startServerProcess(new URL('./node/servers/plexus-node.js', import.meta.url), [], NODE_READY);
/** The same node with no instrumentation at all: no meters, no tracer (OBS-50). */
const barePlexusNode = () =>
  startServerProcess(new URL('./node/servers/plexus-node.js', import.meta.url), ['--bare'], NODE_READY);
/** The same node with tracing exported at 100% sampling to a local OTLP receiver. */
const tracedPlexusNode = () =>
  startServerProcess(new URL('./node/servers/plexus-node.js', import.meta.url), ['--traced'], NODE_READY);
/** The same, exporting OTLP/JSON (OpenTelemetry's JSON exporter) instead of protobuf. */
const tracedJsonPlexusNode = () =>
  startServerProcess(
    new URL('./node/servers/plexus-node.js', import.meta.url),
    ['--traced-json'],
    NODE_READY,
  );

/**
 * Every subject of the run, in table order. The load process imports this module and looks
 * its subject up by name, so every field must be computable here (no closures over state
 * created in `main`).
 * @type {import('./node/load.js').Subject[]}
 */
export const subjects = [
  ...baselines,
  // The Plexus faces: one node per start (servers/plexus-node.js, from ../dist — run
  // `npm run build` first), dev mode on 127.0.0.1, the demo agents, the SQLite event log in a
  // fresh temporary data directory. Both reach the same verb, echo.echo.
  {
    name: PLEXUS_HTTP,
    start: plexusNode,
    client: 'http',
    path: '/v1/execute',
    makeRequest: esrpEchoRequest,
    check: esrpEchoCheck,
    note: 'sync ESRP request for echo.echo (payload as the JSON input `input`); checked: status succeeded, same request_id, output `result` = the payload',
  },
  {
    name: PLEXUS_HTTP_BARE,
    start: barePlexusNode,
    client: 'http',
    path: '/v1/execute',
    makeRequest: esrpEchoRequest,
    check: esrpEchoCheck,
    note: 'as the first Plexus row, with observability compiled in but switched off: metrics.enabled false, no tracing (the no-op observer); the baseline of the cost of metrics and of tracing with the exporter off',
  },
  {
    name: PLEXUS_HTTP_TRACED,
    start: tracedPlexusNode,
    client: 'http',
    path: '/v1/execute',
    makeRequest: esrpEchoRequest,
    check: esrpEchoCheck,
    note: 'as the row above, with tracing on: every span of every call exported (OTLP/HTTP protobuf, batched) to a receiver in the node process; compare with the untraced row of the same run',
  },
  {
    name: PLEXUS_HTTP_TRACED_JSON,
    start: tracedJsonPlexusNode,
    client: 'http',
    path: '/v1/execute',
    makeRequest: esrpEchoRequest,
    check: esrpEchoCheck,
    note: 'as the row above, exporting OTLP/HTTP JSON (tracing.protocol http/json, the OpenTelemetry JSON exporter) instead of protobuf',
  },
  {
    name: PLEXUS_WS,
    start: plexusNode,
    client: 'ws-jsonrpc',
    path: '/rpc',
    makeRequest: wsEchoRequest,
    note: "JSON-RPC 2.0 `echo.echo` on the node's WebSocket face; checked: result = params",
  },
  {
    name: PLEXUS_A2A,
    start: plexusNode,
    client: 'a2a-sdk',
    path: '/',
    makeRequest: a2aEchoRequest,
    check: a2aEchoCheck,
    note: 'stock A2A ClientFactory client, SendMessage (blocking) naming echo.echo in a data part; each task a job in the SQLite log; checked: COMPLETED, artifact = the payload',
  },
  // The MCP face, driven by the same stock SDK Client as the SDK's own server rows. Plexus
  // answers JSON when the client accepts both and asked for no progress, SSE when it did: the
  // SSE row passes `onprogress` (a progress token), so each call is a submitted job watched
  // for progress. Every call leaves an `mcp.invocation` record in the SQLite log.
  ...[
    [
      PLEXUS_MCP_JSON,
      false,
      'session per client; tools/call answered as JSON; each call a job and an invocation record in the SQLite log',
    ],
    [
      PLEXUS_MCP_SSE,
      true,
      'session per client; tools/call with a progress token, answered on an SSE stream; each call a job and an invocation record in the SQLite log',
    ],
  ].map(([name, progress, note]) => ({
    name: /** @type {string} */ (name),
    start: plexusNode,
    client: /** @type {const} */ ('mcp-sdk'),
    path: '/mcp',
    progress: /** @type {boolean} */ (progress),
    makeRequest: (/** @type {number} */ i) => ({ name: MCP_ECHO_TOOL, arguments: { input: payload(i) } }),
    check: (/** @type {any} */ req, /** @type {any} */ result) =>
      result?.content?.[0]?.type === 'text' &&
      isDeepStrictEqual(JSON.parse(result.content[0].text), req.arguments.input),
    note: /** @type {string} */ (note),
  })),
];

/**
 * The ratios the issue sets, printed after the table. A line whose subject is not in the run
 * says so. The MCP SDK is measured in three server modes (see bench/node/baselines.js); the
 * 20x line shows the ratio against each and says which it meets. The SDK's server guide
 * recommends the stateless mode for simple API-style servers such as this echo tool; the
 * stateful modes are the faster, stricter bar.
 * @type {import('./node/report.js').Target[]}
 */
/** The bare server over the same transport and load client as each Plexus face. */
const TRANSPORT = { [PLEXUS_HTTP]: 'node:http echo', [PLEXUS_WS]: 'ws JSON-RPC echo' };

export const targets = [
  {
    subject: PLEXUS_HTTP,
    baseline: 'node:http echo',
    min: 0.3,
    label: '>= 30% of bare node:http',
    transport: TRANSPORT[PLEXUS_HTTP],
  },
  {
    subject: PLEXUS_WS,
    baseline: 'ws JSON-RPC echo',
    min: 0.3,
    label: '>= 30% of bare ws',
    transport: TRANSPORT[PLEXUS_WS],
  },
  ...[PLEXUS_HTTP, PLEXUS_WS].map((subject) => ({
    subject,
    baseline: MCP_NAMES,
    min: 20,
    label: '>= 20x the MCP SDK over Streamable HTTP',
    transport: TRANSPORT[subject],
  })),
  {
    subject: PLEXUS_HTTP,
    baseline: PLEXUS_HTTP_BARE,
    min: 0.98,
    label:
      'with the exporter off (the default: meters on, no tracer) observability costs <= 2% of throughput',
  },
  {
    subject: PLEXUS_HTTP_TRACED,
    baseline: PLEXUS_HTTP_BARE,
    min: 0.9,
    label: 'tracing exported at 100% and metrics on cost <= 10% of throughput against both off',
  },
  {
    subject: PLEXUS_HTTP_TRACED,
    baseline: PLEXUS_HTTP,
    min: 0.9,
    label: 'tracing exported at 100% costs <= 10% of throughput',
  },
  {
    subject: PLEXUS_A2A,
    baseline: A2A_SDK,
    min: 2,
    label: '>= 2x the A2A SDK server (InMemoryTaskStore), persisting every task',
    capacity: true,
  },
  {
    subject: PLEXUS_MCP_JSON,
    baseline: 'MCP SDK, stateful, JSON replies',
    min: 3,
    label: '>= 3x the MCP SDK server, stateful JSON replies, recording every call',
    capacity: true,
  },
  {
    subject: PLEXUS_MCP_SSE,
    baseline: 'MCP SDK, stateful, SSE replies',
    min: 3,
    label: '>= 3x the MCP SDK server, stateful SSE replies, recording every call',
    capacity: true,
  },
  // For scale: how far the bare transports themselves clear the 20x bar in this harness (the
  // ceiling a Plexus face over the same transport and client can approach, never pass).
  ...['node:http echo', 'ws JSON-RPC echo'].map((subject) => ({
    subject,
    baseline: MCP_NAMES,
    min: 20,
    label: '(for scale, the bare transport) >= 20x the MCP SDK',
  })),
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runBench({
    module: import.meta.url,
    subjects,
    targets,
    logFloor: measureLogFloor,
    ...settingsFromEnv(process.env),
  });
}
