// The load generator: N concurrent clients on loopback, each sending one request at a time for
// a fixed duration or a fixed total of requests, timing every request with
// process.hrtime.bigint(). It reports throughput (correct answers per second) and latency
// percentiles in milliseconds.
//
// Run it in its own process (`forkLoad`), never in the server's: on a 2-core machine the
// server and the load generator then each get a core and do not share an event loop, so the
// figure is the server's, not a tug of war inside one process. The result also reports the
// CPU share each side used; a load generator near 100% of its core means the figure is the
// client's ceiling rather than the server's.
import { fork } from 'node:child_process';
import { cpuSeconds, mainThreadCpuSeconds } from './cpu.js';

/**
 * @typedef {'http' | 'ws-jsonrpc' | 'mcp-sdk' | 'a2a-sdk'} ClientKindName
 *
 * @typedef {object} Subject one face under test
 * @property {string} name the row's name in the table
 * @property {() => Promise<{ url: string, stop: () => Promise<void>, pid?: number | undefined }>} start
 *   starts the server (in its own process) and returns its base URL
 * @property {ClientKindName} client how the load generator talks to it
 * @property {string} [path] path under the base URL (`/`, `/v1/execute`, `/mcp` ...)
 * @property {Record<string, string>} [headers] extra request headers (e.g. Authorization)
 * @property {(i: number) => any} makeRequest request number `i` of a run: the JSON body
 *   (`http`), `{ method, params }` (`ws-jsonrpc`), `{ name, arguments }` (`mcp-sdk`) or
 *   `{ message }` (`a2a-sdk`); indices never repeat within a run, so requests differ
 * @property {(request: any, answer: any, i: number) => boolean} [check] whether `answer` is
 *   the right answer to `request`; default: an echo (body, `result` = `params`, tool text =
 *   arguments, message parts = parts sent)
 * @property {boolean} [progress] `mcp-sdk` only: call with `onprogress` (a progress token)
 * @property {string} [note] one line for the report
 *
 * @typedef {object} KindInit
 * @property {string} url
 * @property {Subject} subject
 * @property {number} clients
 * @property {number} timeoutMs
 *
 * @typedef {object} LoadClient
 * @property {(i: number) => Promise<void>} call sends request `i`; rejects on a transport
 *   error, a timeout, an error answer or a wrong answer
 * @property {() => Promise<void>} close
 *
 * @typedef {object} ClientKind
 * @property {(index: number) => Promise<LoadClient>} open opens one client (connection, session)
 * @property {() => Promise<void>} close releases what the kind shares between clients
 *
 * @typedef {object} LoadInit
 * @property {Subject} subject
 * @property {string} url the server's base URL
 * @property {number} [clients] concurrent clients; default 50
 * @property {number} [seconds] measure for this long (default 4 when `requests` is not given)
 * @property {number} [requests] or until this many requests were answered
 * @property {number} [warmupSeconds] run this long first, unmeasured; default 0
 * @property {number} [timeoutMs] a request with no answer by then is an error; default 10000
 * @property {number} [maxSeconds] hard bound on a `requests` run; default 120
 * @property {number} [serverPid] the server's process id, to report its CPU share
 *
 * @typedef {object} LoadResult
 * @property {string} name
 * @property {ClientKindName} client
 * @property {number} clients
 * @property {number} sent requests started in the measured phase
 * @property {number} ok requests answered correctly
 * @property {number} errors requests that failed (sent = ok + errors)
 * @property {string | undefined} firstError the first failure's message
 * @property {number} seconds measured wall time
 * @property {number} rps correct answers per second
 * @property {number} p50 latency percentiles in ms, over correct answers (NaN if none)
 * @property {number} p90
 * @property {number} p99
 * @property {number} max
 * @property {number | undefined} serverCpu server CPU time / wall time (1 = one core busy)
 * @property {number | undefined} loadCpu load generator CPU time / wall time
 * @property {number | undefined} serverMainCpu CPU time of the server's main thread (its event loop) / wall time
 * @property {number | undefined} serverUsPerCall server CPU microseconds (all threads) per answered request
 */

/** @type {Record<ClientKindName, () => Promise<(init: KindInit) => Promise<ClientKind>>>} */
const KINDS = {
  http: async () => (await import('./clients/http.js')).createHttpKind,
  'ws-jsonrpc': async () => (await import('./clients/ws-jsonrpc.js')).createWsJsonRpcKind,
  'mcp-sdk': async () => (await import('./clients/mcp-sdk.js')).createMcpSdkKind,
  'a2a-sdk': async () => (await import('./clients/a2a-sdk.js')).createA2aSdkKind,
};

/**
 * The `p`-th percentile (0–100) of ascending `sorted`, by nearest rank; NaN when empty.
 * @param {Float64Array | number[]} sorted
 * @param {number} p
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Runs the clients until the deadline passes or `requests` were started, one request at a
 * time per client, and returns the raw counts and latencies.
 * @param {LoadClient[]} clients
 * @param {{ seconds: number, requests?: number | undefined, firstIndex: number }} bound
 */
async function drive(clients, bound) {
  /** @type {number[]} */
  const latencies = [];
  let next = bound.firstIndex;
  let sent = 0;
  let ok = 0;
  let errors = 0;
  /** @type {string | undefined} */
  let firstError;
  let stop = false;
  const timer = setTimeout(() => (stop = true), bound.seconds * 1000);
  const start = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (client) => {
      while (!stop && (bound.requests === undefined || sent < bound.requests)) {
        const i = next++;
        sent++;
        const t0 = process.hrtime.bigint();
        try {
          await client.call(i);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          ok++;
        } catch (err) {
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  clearTimeout(timer);
  return { latencies, sent, ok, errors, firstError, seconds, nextIndex: next };
}

/**
 * Runs load against `init.url` in this process and summarises it. Use `forkLoad` to run it in
 * a separate process, as a benchmark should. Opening the clients (connections, sessions,
 * handshakes) is not measured.
 * Throws if the subject's client kind is unknown or a client cannot be opened.
 * @param {LoadInit} init
 * @returns {Promise<LoadResult>}
 */
export async function runLoad(init) {
  const { subject, url } = init;
  const clients = init.clients ?? 50;
  const timeoutMs = init.timeoutMs ?? 10_000;
  const makeKind = KINDS[subject.client];
  if (makeKind === undefined) throw new Error(`unknown client kind "${subject.client}" for ${subject.name}`);
  const kind = await (await makeKind())({ url, subject, clients, timeoutMs });
  /** @type {LoadClient[]} */
  const opened = [];
  try {
    for (let c = 0; c < clients; c += 10) {
      const batch = Array.from({ length: Math.min(10, clients - c) }, (_, k) => kind.open(c + k));
      opened.push(...(await Promise.all(batch)));
    }
    let firstIndex = 0;
    if ((init.warmupSeconds ?? 0) > 0) {
      firstIndex = (await drive(opened, { seconds: init.warmupSeconds ?? 0, firstIndex })).nextIndex;
    }
    const cpu0 = {
      server: cpuSeconds(init.serverPid),
      main: mainThreadCpuSeconds(init.serverPid),
      load: cpuSeconds(process.pid),
    };
    const run = await drive(opened, {
      seconds: init.requests === undefined ? (init.seconds ?? 4) : (init.maxSeconds ?? 120),
      requests: init.requests,
      firstIndex,
    });
    const cpu1 = {
      server: cpuSeconds(init.serverPid),
      main: mainThreadCpuSeconds(init.serverPid),
      load: cpuSeconds(process.pid),
    };
    const share = (/** @type {number | undefined} */ a, /** @type {number | undefined} */ b) =>
      a === undefined || b === undefined ? undefined : (b - a) / run.seconds;
    const sorted = Float64Array.from(run.latencies).sort();
    return {
      name: subject.name,
      client: subject.client,
      clients,
      sent: run.sent,
      ok: run.ok,
      errors: run.errors,
      firstError: run.firstError,
      seconds: run.seconds,
      rps: run.ok / run.seconds,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length > 0 ? /** @type {number} */ (sorted[sorted.length - 1]) : NaN,
      serverCpu: share(cpu0.server, cpu1.server),
      loadCpu: share(cpu0.load, cpu1.load),
      serverMainCpu: share(cpu0.main, cpu1.main),
      serverUsPerCall:
        cpu0.server === undefined || cpu1.server === undefined || run.ok === 0
          ? undefined
          : ((cpu1.server - cpu0.server) * 1e6) / run.ok,
    };
  } finally {
    await Promise.allSettled(opened.map((c) => c.close()));
    await kind.close();
  }
}

/**
 * @typedef {Omit<LoadInit, 'subject'> & { module: string, subject: string }} ForkLoadInit
 *   `module`: URL of an ES module exporting `subjects` (an array of Subject); `subject`: the
 *   name of the one to load, looked up in that module inside the load process
 */

/**
 * Runs `runLoad` in a separate Node process (child_process.fork) and resolves with its result.
 * The subject is named, not passed, because functions cannot cross IPC: the child imports
 * `init.module` and finds it there. Rejects with the child's error if the run fails, and
 * kills the child if it outlives the run's bound by a minute.
 * @param {ForkLoadInit} init
 * @returns {Promise<LoadResult>}
 */
export function forkLoad(init) {
  const child = fork(new URL('./load-process.js', import.meta.url), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced', // structured clone: NaN and undefined survive the trip
  });
  const bound =
    (init.warmupSeconds ?? 0) +
    (init.requests === undefined ? (init.seconds ?? 4) : (init.maxSeconds ?? 120)) +
    60;
  return new Promise((resolve, reject) => {
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load process for ${init.subject} did not finish within ${bound} s`));
    }, bound * 1000);
    child.on('message', (/** @type {{ type: string, result?: LoadResult, message?: string }} */ msg) => {
      clearTimeout(watchdog);
      if (msg.type === 'result' && msg.result) resolve(msg.result);
      else reject(new Error(`load process for ${init.subject} failed: ${msg.message ?? 'no result'}`));
    });
    child.once('error', (err) => {
      clearTimeout(watchdog);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(watchdog);
      reject(new Error(`load process for ${init.subject} exited (code ${code}, signal ${signal})`));
    });
    child.send(init);
  });
}
