// Memory of an A2A server that keeps every task (issue 14, "Performance"): Plexus persists each
// task as a job in its SQLite log, the A2A SDK's sample server keeps tasks in an
// InMemoryTaskStore. Each server runs in its own process (bench/node/servers/plexus-node.js and
// a2a-echo.js), started with `--expose-gc`; this process sends N `SendMessage` requests
// (JSON-RPC v1.0, 50 in flight, raw fetch: the stock client's own cost is not what is measured
// here) in four legs. At the start and after each leg (every quarter of N, nothing in flight) it
// asks the server for its memory after two full garbage collections (bench/node/servers/
// announce.js): the main thread's V8 heap still reachable, and the resident set size (VmRSS).
// Then both servers side by side (the same run), and a verdict for each (A2A-28):
//
//   retained bytes per task = (heap after GC at N − heap after GC at N/2) / (N/2)
//   bounded when that is below 64 bytes per task.
//
// Why the second half and 64: Plexus keeps bounded sets (10,000 finished jobs, P3-002; 10,000
// idempotency keys, A2A-23), full after the first 10,000 tasks, so from N/2 on a bounded node's
// reachable heap only moves by the slack of those structures (arrays compacted at half, label
// caps); one retained object per task (a job entry is ~1 KiB, a map entry with a job-id key
// ~100 bytes) shows as more than 64 bytes per task. RSS is printed too but not judged: the
// allocator keeps freed pages, so it lags and jumps (it also holds SQLite's page cache and the
// log writer's thread, which the main thread's heap does not).
// Run: `npm run build && node bench/a2a-memory.bench.js`.
//   BENCH_TASKS (default 100000); BENCH_SERVERS=plexus (or sdk) runs one server only;
//   BENCH_HEAP_SNAPSHOT_DIR=<dir> also writes a heap snapshot of the server at every checkpoint
//   (`<server script>-<tasks>.heapsnapshot`, after the measurement) to compare retainers between two.
// A benchmark measures; it never fails on a figure. Results go to docs/performance.md.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startServerProcess } from './node/server-process.js';

const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const IN_FLIGHT = 50;
const LEGS = 4;
/** The verdict's bound: retained heap per task between the half and the end, bytes. */
const BOUND_BYTES_PER_TASK = 64;
const SERVERS = (process.env.BENCH_SERVERS ?? 'sdk,plexus').split(',');
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOT_DIR;

const MiB = 1024 * 1024;

/** The JSON-RPC endpoint a server's card names. */
async function endpointOf(url) {
  const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
  const rpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  return rpc.url;
}

function body(i, plexus) {
  const part = plexus
    ? { data: { verb: 'echo.echo', input: { text: 'hello, plexus', n: i } } }
    : { text: `hello ${i}` };
  return JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [part] } },
  });
}

async function run(name, script, plexus, args = []) {
  const server = await startServerProcess(new URL(`./node/servers/${script}`, import.meta.url), args, {
    execArgv: ['--expose-gc'],
  });
  /** @type {{ tasks: number, heap: number, rss: number }[]} */
  const rows = [];
  const checkpoint = async (tasks) => {
    const m = await server.memory();
    if (!m.gc) throw new Error(`${script}: no gc() in the server (started without --expose-gc?)`);
    rows.push({ tasks, heap: m.heapUsed, rss: m.rss });
    if (SNAPSHOT_DIR !== undefined) {
      console.log(
        `snapshot: ${await server.heapSnapshot(join(SNAPSHOT_DIR, `${script}-${tasks}.heapsnapshot`))}`,
      );
    }
  };
  try {
    const endpoint = await endpointOf(server.url);
    await checkpoint(0);
    let next = 0;
    let failed = 0;
    let busy = 0;
    const leg = async (end) => {
      const worker = async () => {
        for (;;) {
          const i = next++;
          if (i >= end) return;
          const started = process.hrtime.bigint();
          const res = await fetch(endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: body(i, plexus),
          });
          const answer = await res.json();
          busy += Number(process.hrtime.bigint() - started);
          if (answer.error !== undefined) failed++;
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      next = end;
    };
    const started = process.hrtime.bigint();
    for (let l = 1; l <= LEGS; l++) {
      const end = Math.round((TASKS * l) / LEGS);
      await leg(end);
      await checkpoint(end);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `\n${name}: ${TASKS} tasks, ${failed} errors (${(busy / 1e6 / TASKS).toFixed(1)} ms a request on average; ${seconds.toFixed(0)} s with the checkpoints)`,
    );
    console.log('| tasks sent | heap after GC MiB | RSS MiB |\n|---:|---:|---:|');
    for (const r of rows)
      console.log(`| ${r.tasks} | ${(r.heap / MiB).toFixed(1)} | ${(r.rss / MiB).toFixed(1)} |`);
    const first = rows[0];
    const half = rows[LEGS / 2];
    const last = rows[LEGS];
    return {
      name,
      first,
      half,
      last,
      retainedPerTask: (last.heap - half.heap) / (last.tasks - half.tasks),
      rssPerThousand: (last.rss - first.rss) / MiB / (TASKS / 1000),
    };
  } finally {
    await server.stop();
  }
}

const results = [];
if (SERVERS.includes('sdk'))
  // `--tasks`: the SDK's executor answers each message as a completed task, kept in its store
  results.push(
    await run('A2A SDK server (a task per message, InMemoryTaskStore)', 'a2a-echo.js', false, ['--tasks']),
  );
if (SERVERS.includes('plexus'))
  results.push(await run('Plexus node (every task a job in the SQLite log)', 'plexus-node.js', true));

console.log(`\nMemory after ${TASKS} tasks (same run):`);
console.log(
  `| server | heap after GC at start MiB | at ${TASKS / 2} | at ${TASKS} | retained bytes per task, ${TASKS / 2} → ${TASKS} | RSS at start MiB | RSS after MiB | RSS growth MiB per 1,000 tasks |\n|---|---:|---:|---:|---:|---:|---:|---:|`,
);
for (const r of results) {
  console.log(
    `| ${r.name} | ${(r.first.heap / MiB).toFixed(1)} | ${(r.half.heap / MiB).toFixed(1)} | ${(r.last.heap / MiB).toFixed(1)} | ${r.retainedPerTask.toFixed(1)} | ${(r.first.rss / MiB).toFixed(1)} | ${(r.last.rss / MiB).toFixed(1)} | ${r.rssPerThousand.toFixed(2)} |`,
  );
}
for (const r of results) {
  const bounded = r.retainedPerTask < BOUND_BYTES_PER_TASK;
  console.log(
    `Verdict, ${r.name}: ${bounded ? 'bounded' : 'not bounded'} — ${r.retainedPerTask.toFixed(1)} bytes per task retained on the heap after GC from ${r.half.tasks} to ${r.last.tasks} tasks (rule: bounded below ${BOUND_BYTES_PER_TASK} bytes per task)`,
  );
}
