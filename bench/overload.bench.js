// Overload (issue 11 item 8): a normal request's latency while a node holds 2,000 idle
// WebSocket connections and a 400-request burst, beside the same run's baseline (the same
// normal requests on the same node with no idle connection and no burst).
//
// A real node process (`plexus start`, built dist/) on 127.0.0.1 with its default limits
// (maxInFlight 256, maxInFlightPerConnection 32). The normal request is a sync ESRP
// `echo.echo` on its own keep-alive connection, sent one after another. The burst is 400
// sync ESRP `demo.slow` calls of ~3 s fired at once on 400 connections, in waves while the
// normal requests are measured; beyond the node's limit they are shed (429), and so are
// normal requests that find the node full — their answer still counts in the latency.
// Bounded: ~30-45 s on a quiet machine, loopback only. Run: `npm run bench -- overload`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'bin', 'plexus.js');
const IDLE_CONNECTIONS = 2_000;
const BURST = 400;
const WAVES = 1;
/** How long each burst call holds its slot, s: longer than the burst takes to arrive. */
const HOLD_SECONDS = 3;
const BASELINE_REQUESTS = 400;
const OPEN_BATCH = 100;

/** @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string, dir: string }>} */
async function startNode() {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-bench-overload-'));
  const child = spawn(
    process.execPath,
    [BIN, 'start', '--port', '0', '--dev', '--demo', '--data', join(dir, 'data')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the node did not start: ${out}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the node exited (${code}): ${out}`)));
  });
  child.stderr.resume();
  return { child, url: /** @type {string} */ (url), dir };
}

/** @param {string} verb @param {unknown} data */
function esrpBody(verb, data) {
  const dot = verb.lastIndexOf('.');
  return JSON.stringify({
    esrp_version: '1.0',
    request_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'bench' },
    target: { service: verb.slice(0, dot), operation: verb.slice(dot + 1) },
    mode: { type: 'sync', timeout_ms: 30_000 },
    inputs: [
      {
        name: 'input',
        content_type: 'application/json',
        data: JSON.stringify(data),
        encoding: 'utf-8',
        metadata: null,
      },
    ],
    params: null,
  });
}

/**
 * POSTs an ESRP call; resolves with its status and latency (ms).
 * @param {string} url @param {Agent} agent @param {string} body
 * @returns {Promise<{ status: number, ms: number }>}
 */
function call(url, agent, body) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/execute`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json' },
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    req.once('response', (res) => {
      res.resume();
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }),
      );
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** @param {number[]} xs @param {number} q */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
}

/**
 * Sends normal requests one after another until `until` says stop (or `max` are sent).
 * @param {string} url @param {Agent} agent @param {() => boolean} until @param {number} max
 */
async function normals(url, agent, until, max) {
  /** @type {{ status: number, ms: number }[]} */
  const out = [];
  for (let i = 0; i < max && !until(); i++)
    out.push(await call(url, agent, esrpBody('echo.echo', { text: `normal ${i}` })));
  return out;
}

/** @param {string} url */
async function openIdle(url) {
  const wsUrl = `${url.replace(/^http/, 'ws')}/rpc`;
  /** @type {WebSocket[]} */
  const sockets = [];
  for (let i = 0; i < IDLE_CONNECTIONS; i += OPEN_BATCH) {
    const batch = Array.from({ length: Math.min(OPEN_BATCH, IDLE_CONNECTIONS - i) }, () => {
      const ws = new WebSocket(wsUrl, ['jsonrpc']);
      sockets.push(ws);
      return new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
    });
    await Promise.all(batch);
  }
  return sockets;
}

/** @param {{ status: number, ms: number }[]} xs */
function summary(xs) {
  const ms = xs.map((x) => x.ms);
  const count = (status) => xs.filter((x) => x.status === status).length;
  return {
    n: xs.length,
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    max: Math.max(...ms),
    ok: count(200),
    shed: count(429),
    other: xs.length - count(200) - count(429),
  };
}

const node = await startNode();
let sockets = [];
try {
  const normalAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  // Warm up, then the baseline: no idle connection, no burst.
  await normals(node.url, normalAgent, () => false, 50);
  const baseline = summary(await normals(node.url, normalAgent, () => false, BASELINE_REQUESTS));

  const openStart = Date.now();
  sockets = await openIdle(node.url);
  const openMs = Date.now() - openStart;

  const burstAgent = new Agent({ keepAlive: true, maxSockets: BURST });
  /** @type {{ status: number, ms: number }[]} */
  const loaded = [];
  /** @type {{ status: number, ms: number }[]} */
  const burst = [];
  for (let wave = 0; wave < WAVES; wave++) {
    let done = false;
    const calls = Array.from({ length: BURST }, (_, i) =>
      call(
        node.url,
        burstAgent, // Distinct payloads: identical ones would share one job.
        esrpBody('demo.slow', { seconds: HOLD_SECONDS + wave, steps: 1 + i }),
      ),
    );
    const held = Promise.all(calls).then((rs) => {
      done = true;
      burst.push(...rs);
    });
    loaded.push(...(await normals(node.url, normalAgent, () => done, 10_000)));
    await held;
  }
  const idleOpen = sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length;
  const b = summary(burst);
  const l = summary(loaded);
  const f = (x) => x.toFixed(1);
  console.log('\n## Overload: a normal request beside 2,000 idle WebSockets and a 400-request burst\n');
  console.log(
    `node limits: defaults (maxInFlight 256, maxInFlightPerConnection 32); ${WAVES} wave(s) of ${BURST} demo.slow (${HOLD_SECONDS} s) at once`,
  );
  console.log(
    `idle WebSocket connections: ${IDLE_CONNECTIONS} opened in ${openMs} ms, ${idleOpen} still open at the end`,
  );
  console.log(`burst: ${b.n} calls, ${b.ok} served, ${b.shed} shed (429), ${b.other} other\n`);
  console.log('| normal request (sync ESRP echo.echo) | n | p50 ms | p99 ms | max ms | 200 | 429 | other |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| baseline: no idle connections, no burst | ${baseline.n} | ${f(baseline.p50)} | ${f(baseline.p99)} | ${f(baseline.max)} | ${baseline.ok} | ${baseline.shed} | ${baseline.other} |`,
  );
  console.log(
    `| with 2,000 idle WS + 400-request burst | ${l.n} | ${f(l.p50)} | ${f(l.p99)} | ${f(l.max)} | ${l.ok} | ${l.shed} | ${l.other} |`,
  );
  console.log(`\np99 under load / baseline p99: ${(l.p99 / baseline.p99).toFixed(1)}×`);
  normalAgent.destroy();
  burstAgent.destroy();
} finally {
  for (const ws of sockets) ws.terminate();
  node.child.kill('SIGTERM');
  await new Promise((resolve) => {
    const timer = setTimeout(() => {
      node.child.kill('SIGKILL');
      resolve(undefined);
    }, 15_000);
    node.child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  rmSync(node.dir, { recursive: true, force: true });
}
