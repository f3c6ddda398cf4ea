// Memory of an A2A server that keeps every task (issue 14, "Performance"): Plexus persists each
// task as a job in its SQLite log, the A2A SDK's sample server keeps tasks in an
// InMemoryTaskStore. Each server runs in its own process (bench/node/servers/plexus-node.js and
// a2a-echo.js); this process sends N `SendMessage` requests (JSON-RPC v1.0, 50 in flight, raw
// fetch: the stock client's own cost is not what is measured here) and prints each server's
// resident set size (VmRSS from /proc) before, at every quarter and after a forced pause, then
// each server's growth per 1,000 tasks side by side (the same run). Plexus keeps a bounded set of
// idempotency keys in memory (10,000; older ones through the log's index, A2A-23) and a bounded
// set of finished jobs (10,000), so its RSS should level off past them; the SDK server's grows with
// every task.
// Run: `npm run build && node bench/a2a-memory.bench.js` (BENCH_TASKS, default 100000).
// A benchmark measures; it never fails on a figure. Results go to docs/performance.md.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startServerProcess } from './node/server-process.js';

const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const IN_FLIGHT = 50;

/** Resident set size of process `pid`, MiB. */
function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line === undefined ? NaN : Number(line.replace(/\D+/g, '')) / 1024;
}

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

async function run(name, script, plexus) {
  const server = await startServerProcess(new URL(`./node/servers/${script}`, import.meta.url));
  const rows = [];
  try {
    const endpoint = await endpointOf(server.url);
    rows.push([0, rssMiB(server.pid)]);
    let next = 0;
    let failed = 0;
    let answered = 0;
    const started = process.hrtime.bigint();
    const quarter = Math.max(1, Math.floor(TASKS / 4));
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= TASKS) return;
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: body(i, plexus),
        });
        const answer = await res.json();
        if (answer.error !== undefined) failed++;
        answered++; // counted on answer, so the quarter rows come in order (answers overtake)
        if (answered % quarter === 0) rows.push([answered, rssMiB(server.pid)]);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await new Promise((r) => setTimeout(r, 2000)); // let the server settle (GC, commits)
    rows.push(['after 2 s idle', rssMiB(server.pid)]);
    console.log(
      `\n${name}: ${TASKS} tasks in ${seconds.toFixed(1)} s (${(TASKS / seconds).toFixed(0)} req/s), ${failed} errors`,
    );
    console.log('| tasks sent | RSS MiB |\n|---:|---:|');
    for (const [n, rss] of rows) console.log(`| ${n} | ${rss.toFixed(1)} |`);
    const grown = (rows.at(-1)[1] - rows[0][1]) / (TASKS / 1000);
    return { name, start: rows[0][1], end: rows.at(-1)[1], perThousand: grown };
  } finally {
    await server.stop();
  }
}

const sdk = await run('A2A SDK server (InMemoryTaskStore)', 'a2a-echo.js', false);
const plexus = await run('Plexus node (every task a job in the SQLite log)', 'plexus-node.js', true);
console.log(`\nRSS after ${TASKS} tasks (same run):`);
console.log(
  '| server | RSS at start MiB | RSS after MiB | growth MiB per 1,000 tasks |\n|---|---:|---:|---:|',
);
for (const r of [sdk, plexus]) {
  console.log(`| ${r.name} | ${r.start.toFixed(1)} | ${r.end.toFixed(1)} | ${r.perThousand.toFixed(2)} |`);
}
console.log(
  `Plexus growth / SDK server growth: ${(plexus.perThousand / sdk.perThousand).toFixed(2)} (below 1: Plexus grows less)`,
);
