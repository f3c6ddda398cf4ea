// The dashboard's jobs list with many jobs in the log (issue 16 item 4: "fast with 10,000 jobs in
// the log (paged, virtualised lists)"). Two nodes, each in its own child process
// (bench/node/servers/jobs-node.js, from ../dist — run `npm run build` first), one with 10,000
// jobs in its SQLite log and the baseline with 100, filled the same way before measuring. From
// this process, over one keep-alive connection per node, it times the requests the jobs page
// makes (`GET /ui/api/jobs`, 200 rows a page):
//   first page     the newest 200 jobs
//   deep page      the oldest page the list reaches (its cursor found by walking every page
//                  first, untimed; with 100 jobs that is the first page)
//   filtered page  the first page of `state=failed`
// in the default order (by each job's latest status change, docs/decisions/job-listing.md JL-11)
// and, in the same run, the first and deep page in the submit order (`order=submitted`, the
// order before JL-11), so the two walks are compared on the same nodes.
// N times each, interleaved between the two nodes; it prints p50 / p99 ms beside the baseline
// and the ratio. Settings, from the environment:
//   BENCH_REQUESTS  timed requests per page and node (default 100)
//   BENCH_JOBS      jobs of the subject node (default 10000)
// A benchmark measures; it never fails on a figure.
import { Agent, request } from 'node:http';
import { startServerProcess } from './node/server-process.js';

/** @param {string | undefined} raw @param {number} fallback */
const whole = (raw, fallback) => {
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`expected a whole number >= 1, got ${raw}`);
  return n;
};
const REQUESTS = whole(process.env.BENCH_REQUESTS, 100);
const JOBS = whole(process.env.BENCH_JOBS, 10_000);
const BASELINE_JOBS = 100;
/** The jobs page's page size (ui/page-jobs.js PAGE). */
const PAGE = 200;
/** Pages walked at most to find the deepest one (bounded: 10,000 jobs are 50 pages). */
const MAX_PAGES = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Filling 10,000 jobs on a loaded 2-core machine takes a while. */
const READY = { readyTimeoutMs: 300_000 };

/**
 * `GET path` on `url`: the parsed JSON body and the ms from request to last byte.
 * @param {string} url @param {Agent} agent @param {string} path
 * @returns {Promise<{ ms: number, body: any }>}
 */
function getJson(url, agent, path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(`${url}${path}`, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`GET ${path} answered ${res.statusCode}: ${text}`));
        else resolve({ ms, body: JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} took over ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** @param {number[]} xs @param {number} q nearest rank */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}
const ms = (/** @type {number} */ x) => x.toFixed(x < 10 ? 2 : 1);

/**
 * @typedef {{ jobs: number, url: string, agent: Agent, stop: () => Promise<void>,
 *   paths: Record<string, string>, times: Record<string, number[]>, listed: number }} Node
 */

/** @param {number} jobs @returns {Promise<Node>} */
async function start(jobs) {
  const server = await startServerProcess(
    new URL('./node/servers/jobs-node.js', import.meta.url),
    ['--jobs', String(jobs)],
    READY,
  );
  return {
    jobs,
    url: server.url,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    stop: server.stop,
    paths: {},
    times: {},
    listed: 0,
  };
}

/**
 * Walks every page of one order (untimed): its first and deepest page, and the jobs listed.
 * @param {Node} node @param {string} query
 * @returns {Promise<{ first: string, deepest: string, listed: number }>}
 */
async function walk(node, query) {
  const first = `/ui/api/jobs?limit=${PAGE}${query}`;
  let path = first;
  let deepest = first;
  let listed = 0;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const { body } = await getJson(node.url, node.agent, path);
    listed += body.jobs.length;
    if (body.next_cursor === null) break;
    deepest = `${first}&cursor=${encodeURIComponent(body.next_cursor)}`;
    path = deepest;
  }
  return { first, deepest, listed };
}

/** Walks every page of both orders (untimed): sets the node's paths and counts the jobs listed. @param {Node} node */
async function prepare(node) {
  const status = await walk(node, '');
  const submitted = await walk(node, '&order=submitted');
  node.listed = status.listed;
  if (submitted.listed !== status.listed) {
    throw new Error(`the orders list ${status.listed} and ${submitted.listed} jobs`);
  }
  node.paths = {
    'first page': status.first,
    'deep page': status.deepest,
    'filtered page (state=failed)': `${status.first}&state=failed`,
    'first page, order=submitted': submitted.first,
    'deep page, order=submitted': submitted.deepest,
  };
  for (const name of Object.keys(node.paths)) node.times[name] = [];
}

async function main() {
  console.log(
    `GET /ui/api/jobs (${PAGE} a page): ${REQUESTS} timed requests per page and node, interleaved; ` +
      `${JOBS.toLocaleString('en-US')} jobs beside ${BASELINE_JOBS}`,
  );
  /** @type {Node[]} */
  const nodes = [];
  try {
    nodes.push(await start(BASELINE_JOBS), await start(JOBS));
    for (const node of nodes) await prepare(node);
    const names = Object.keys(nodes[0]?.paths ?? {});
    for (let i = 0; i < REQUESTS; i++) {
      const order = i % 2 === 0 ? nodes : [...nodes].reverse();
      for (const node of order) {
        for (const name of names) {
          const { ms: t } = await getJson(node.url, node.agent, /** @type {string} */ (node.paths[name]));
          node.times[name]?.push(t);
        }
      }
    }
  } finally {
    for (const node of nodes) node.agent.destroy();
    await Promise.all(nodes.map((n) => n.stop()));
  }
  const [base, subject] = nodes;
  if (base === undefined || subject === undefined) return;
  console.log(
    `\njobs listed by walking every page: ${base.listed} and ${subject.listed.toLocaleString('en-US')}`,
  );
  console.log(`\n## The jobs list's API at ${JOBS.toLocaleString('en-US')} jobs\n`);
  console.log(
    `| request | ${JOBS.toLocaleString('en-US')} jobs p50 ms | p99 ms | ${BASELINE_JOBS} jobs p50 ms | p99 ms | ratio p50 |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const name of Object.keys(subject.times)) {
    const s = subject.times[name] ?? [];
    const b = base.times[name] ?? [];
    console.log(
      `| ${name} | ${ms(quantile(s, 0.5))} | ${ms(quantile(s, 0.99))} | ${ms(quantile(b, 0.5))} | ` +
        `${ms(quantile(b, 0.99))} | ${(quantile(s, 0.5) / quantile(b, 0.5)).toFixed(2)}x |`,
    );
  }
}

await main();
