// The `GET /metrics` scrape with full meters (issue 16, "Performance": "/metrics scrape time with
// 1,000 verbs × 10 tenants registered ≤ 50 ms"). Two nodes, each in its own child process
// (bench/node/servers/metrics-node.js, from ../dist — run `npm run build` first):
//   subject   1,000 verbs (10 SDK agents of 100) called from 10 tenants, so every labelled meter
//             is filled up to its caps (200 verbs, 200 tenants by default; the rest is `other`)
//   baseline  10 verbs called from 1 tenant, the same way
// then N scrapes of each, interleaved (baseline, subject, subject, baseline, …), from this
// process over one keep-alive connection per node: the time from sending the request to the
// last byte of the body. It prints p50 / p99 ms of each, the server's CPU time per scrape (from
// /proc: the figure that holds on a loaded machine, where wall times wait for a core), the ratio,
// the size of each scrape (bytes, sample lines = series, distinct verb and tenant labels) and
// the 50 ms target line. Nothing is called between two scrapes, so the node reuses each series'
// text (OBS-51); a last row times the render alone, in this process, with every series changed
// before each render — the cost when every verb of every tenant was busy since the last scrape.
// Settings, from the environment:
//   BENCH_SCRAPES   measured scrapes per node (default 200)
//   BENCH_WARMUP    unmeasured scrapes per node first (default 10)
//   BENCH_VERBS     the subject's verbs (default 1000); BENCH_TENANTS its tenants (default 10)
// A benchmark measures; it never fails on a figure.
import { Agent, request } from 'node:http';
import { cpuSeconds } from './node/cpu.js';
import { startServerProcess } from './node/server-process.js';

/** @param {string | undefined} raw @param {number} fallback */
const whole = (raw, fallback) => {
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`expected a whole number >= 1, got ${raw}`);
  return n;
};
const SCRAPES = whole(process.env.BENCH_SCRAPES, 200);
const WARMUP = whole(process.env.BENCH_WARMUP, 10);
const VERBS = whole(process.env.BENCH_VERBS, 1000);
const TENANTS = whole(process.env.BENCH_TENANTS, 10);
/** A scrape that takes longer than this is an error (bounded run). */
const SCRAPE_TIMEOUT_MS = 30_000;
/** Filling 10,000 calls on a loaded 2-core machine takes a while. */
const READY = { readyTimeoutMs: 180_000 };
const TARGET_P99_MS = 50;

/**
 * @typedef {{ name: string, verbs: number, tenants: number, url: string, agent: Agent,
 *   pid: number | undefined, cpu: number, times: number[], text: string,
 *   stop: () => Promise<void> }} Subject
 */

/** @param {number} verbs @param {number} tenants */
async function start(verbs, tenants) {
  const server = await startServerProcess(
    new URL('./node/servers/metrics-node.js', import.meta.url),
    ['--verbs', String(verbs), '--tenants', String(tenants)],
    READY,
  );
  return server;
}

/**
 * One `GET /metrics`: resolves with the body and the milliseconds from request to last byte.
 * @param {Subject} s
 * @returns {Promise<{ ms: number, text: string }>}
 */
function scrape(s) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(`${s.url}/metrics`, { agent: s.agent, timeout: SCRAPE_TIMEOUT_MS }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.statusCode !== 200) reject(new Error(`GET /metrics answered ${res.statusCode}`));
        else resolve({ ms, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET /metrics took over ${SCRAPE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** @param {number[]} xs @param {number} q nearest rank */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}

/** Sample lines, and distinct `verb` / `tenant` label values, of a scrape. @param {string} text */
function shape(text) {
  const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const verbs = new Set();
  const tenants = new Set();
  for (const line of lines) {
    const verb = /[{,]verb="([^"]*)"/.exec(line);
    if (verb) verbs.add(verb[1]);
    const tenant = /[{,]tenant="([^"]*)"/.exec(line);
    if (tenant) tenants.add(tenant[1]);
  }
  return { series: lines.length, verbs: verbs.size, tenants: tenants.size, other: verbs.has('other') };
}

const ms = (/** @type {number} */ x) => x.toFixed(x < 10 ? 2 : 1);

/**
 * The worst case of the render alone, in this process: the meters of `verbs` × `tenants` (the
 * same label caps as a node), and before each timed render one more observation in every
 * verb × tenant series, so no series can reuse its text from the scrape before (OBS-51). Times
 * `render()` only — no HTTP — `SCRAPES` times; p50 / p99 ms.
 * @param {number} verbs @param {number} tenants
 */
async function renderEverySeriesChanged(verbs, tenants) {
  const { nodeMetrics } = await import('../dist/observability/metrics/node-metrics.js');
  const { INVOCATION_SPAN } = await import('../dist/observability/span-names.js');
  const metrics = nodeMetrics();
  const touch = () => {
    for (let t = 0; t < tenants; t++)
      for (let v = 0; v < verbs; v++)
        metrics.observer
          .span(INVOCATION_SPAN, { verb: `bench.r${Math.floor(v / 100)}.v${v}`, tenant: `tenant-${t}` })
          .end();
  };
  touch();
  for (let i = 0; i < WARMUP; i++) await metrics.render();
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < SCRAPES; i++) {
    touch();
    const started = process.hrtime.bigint();
    await metrics.render();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

async function main() {
  console.log(
    `GET /metrics: ${SCRAPES} scrapes per node after ${WARMUP} unmeasured, interleaved; ` +
      `subject ${VERBS} verbs × ${TENANTS} tenants, baseline 10 verbs × 1 tenant`,
  );
  /** @type {Subject[]} */
  const subjects = [];
  try {
    for (const [name, verbs, tenants] of /** @type {const} */ ([
      ['baseline', 10, 1],
      ['subject', VERBS, TENANTS],
    ])) {
      const server = await start(verbs, tenants);
      subjects.push({
        name: `${name}: ${verbs.toLocaleString('en-US')} verbs × ${tenants} tenant${tenants === 1 ? '' : 's'}`,
        verbs,
        tenants,
        url: server.url,
        agent: new Agent({ keepAlive: true, maxSockets: 1 }),
        pid: server.pid,
        cpu: 0,
        times: [],
        text: '',
        stop: server.stop,
      });
    }
    for (let i = 0; i < WARMUP; i++) for (const s of subjects) s.text = (await scrape(s)).text;
    for (let i = 0; i < SCRAPES; i++) {
      const order = i % 2 === 0 ? subjects : [...subjects].reverse();
      for (const s of order) {
        const before = cpuSeconds(s.pid) ?? NaN;
        const r = await scrape(s);
        s.cpu += (cpuSeconds(s.pid) ?? NaN) - before;
        s.times.push(r.ms);
        s.text = r.text;
      }
    }
  } finally {
    for (const s of subjects) s.agent.destroy();
    await Promise.all(subjects.map((s) => s.stop()));
  }

  console.log('\n## GET /metrics scrape time\n');
  console.log(
    '| node | p50 ms | p99 ms | server CPU ms / scrape | bytes | series (sample lines) | verb labels | tenant labels |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of subjects) {
    const sh = shape(s.text);
    console.log(
      `| ${s.name} | ${ms(quantile(s.times, 0.5))} | ${ms(quantile(s.times, 0.99))} | ` +
        `${Number.isFinite(s.cpu) ? ms((s.cpu * 1000) / s.times.length) : '—'} | ` +
        `${Buffer.byteLength(s.text).toLocaleString('en-US')} | ${sh.series.toLocaleString('en-US')} | ` +
        `${sh.verbs}${sh.other ? ' (incl. other)' : ''} | ${sh.tenants} |`,
    );
  }
  const changed = await renderEverySeriesChanged(VERBS, TENANTS);
  console.log(
    `| render only, in process, every series changed since the last scrape: ${VERBS.toLocaleString('en-US')} verbs × ${TENANTS} tenants ` +
      `| ${ms(quantile(changed, 0.5))} | ${ms(quantile(changed, 0.99))} | — | — | — | — | — |`,
  );
  const [base, subject] = subjects;
  if (base === undefined || subject === undefined) return;
  const p99 = quantile(subject.times, 0.99);
  console.log(
    `\nratio p50 subject / baseline = ${(quantile(subject.times, 0.5) / quantile(base.times, 0.5)).toFixed(2)}x, ` +
      `p99 = ${(p99 / quantile(base.times, 0.99)).toFixed(2)}x`,
  );
  console.log(
    `target: p99 of the ${subject.verbs.toLocaleString('en-US')} verbs × ${subject.tenants} tenants scrape ` +
      `<= ${TARGET_P99_MS} ms: ${ms(p99)} ms, ${p99 <= TARGET_P99_MS ? 'MET' : 'NOT MET'}`,
  );
}

await main();
