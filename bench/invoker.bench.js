// The invoker pipeline: synchronous invocations per second of an echo verb through the
// whole runtime (validate envelope and input, idempotency, audit, job events, projections,
// supervision, deadline) with 50 concurrent callers, on the SQLite and the memory log —
// against, in the same run, the bare log work those invocations imply: the same number of
// concurrent callers each appending the four events a sync job writes (submitted, audit,
// started, completed — one atomic batch, RT-022) to a SQLite log. The face targets of issue 3 (>= 30% of a bare HTTP server,
// ~11k req/s here) need the runtime well above that.
// Run after `npm run build`: `node bench/invoker.bench.js`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { median, report } from './lib.js';
import { memoryEventLog, sqliteEventLog } from '../dist/store/index.js';
import { createRuntime, defineAgent } from '../dist/runtime/index.js';

const N = 6_000;
const ROUNDS = 3;
const CALLERS = 50;

const dirs = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'plexus-bench-'));
  dirs.push(d);
  return d;
};

const echo = defineAgent({
  card: {
    id: 'echo',
    name: 'Echo',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      {
        verb: 'demo.echo',
        input: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
        output: { type: 'object' },
      },
    ],
  },
  create: () => ({ 'demo.echo': (input) => input }),
});

const requestOf = (i) => ({
  id: randomUUID(),
  kind: 'request',
  from: 'did:example:bench',
  to: 'capability:demo.echo',
  verb: 'demo.echo',
  data: { text: `hello ${i}` },
});

/** CPU time (user + system, all threads) per call of the last {@link drive}, in µs. */
let lastCpuPerCall = 0;

/** Runs `call(i)` N times from CALLERS concurrent callers; returns ops/s. */
async function drive(call) {
  let next = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < N) await call(next++);
    }),
  );
  const ops = (N * 1e9) / Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  lastCpuPerCall = (used.user + used.system) / N;
  return ops;
}

async function runtimeOn(makeLog) {
  const log = makeLog();
  await log.start();
  const runtime = createRuntime({ log, agents: [echo] });
  await runtime.start();
  const ops = await drive(async (i) => {
    const { envelope } = await runtime.invoke(requestOf(i), { face: 'bench' });
    if (envelope.kind !== 'response') throw new Error(JSON.stringify(envelope.data));
  });
  await runtime.stop();
  await log.stop();
  return ops;
}

async function bareAppends() {
  const log = sqliteEventLog({ dir: tempDir() });
  await log.start();
  const ops = await drive(async (i) => {
    const request = requestOf(i);
    const id = randomUUID();
    const at = new Date().toISOString();
    await log.append([
      { type: 'job.submitted', data: { id, at, request, mode: 'sync', verb: request.verb }, causation: id },
      { type: 'audit.invoked', data: { job: id, verb: request.verb, from: request.from }, causation: id },
      { type: 'job.started', data: { id, at, attempt: 1, route: 'local', agents: ['echo'] }, causation: id },
      { type: 'job.completed', data: { id, outputs: request.data }, causation: id },
    ]);
  });
  await log.stop();
  return ops;
}

const subjects = {
  'runtime.invoke, SQLite log': () => runtimeOn(() => sqliteEventLog({ dir: tempDir() })),
  'runtime.invoke, memory log': () => runtimeOn(() => memoryEventLog()),
  'bare: the 4 events of a job in one append per call, SQLite log': bareAppends,
};

const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
const cpuSamples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
await subjects['runtime.invoke, memory log'](); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  const names = r % 2 === 0 ? Object.keys(subjects) : Object.keys(subjects).reverse();
  for (const name of names) {
    samples[name].push(await subjects[name]());
    cpuSamples[name].push(lastCpuPerCall);
  }
}
const results = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
report(`invoker pipeline, ${CALLERS} concurrent callers, ${N} sync invocations per round`, results, {
  subject: 'runtime.invoke, SQLite log',
  baseline: 'bare: the 4 events of a job in one append per call, SQLite log',
  target: '>= 0.30x',
  pass: (ratio) => ratio >= 0.3,
});
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
// CPU per call is steadier than ops/s on a shared machine (other processes take the cores).
for (const [name, xs] of Object.entries(cpuSamples)) {
  console.log(`cpu per call, ${name}: ${median(xs).toFixed(1)} µs (median of ${ROUNDS})`);
}
