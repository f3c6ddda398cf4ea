// The event log's own cost of one sync call: the CPU time (every thread of the process, so the
// SQLite writer thread too) that appending the events of a finished sync echo job costs, with
// nothing else running — no face, no runtime, no projections. It is a floor under the cost of
// a Plexus face: a face answers a sync call only after its events are committed.
//
// The events are the real ones: one echo call through the runtime (memory log) gives the
// events its job writes; every measured call appends copies of them with a fresh job id, 50
// callers at once, to a SQLite log in a fresh temporary directory. The copies are made before
// the clock starts. Run in a child process (`measureLogFloor`), like the servers.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {object} LogFloor
 * @property {number} usPerCall CPU µs (all threads) per call's events, median over rounds
 * @property {number} eventsPerCall events a sync echo call writes
 * @property {number} callsPerSecond appended calls per second (wall time), median over rounds
 * @property {number} mergedUsPerCall the same, when the call's events are merged into one event
 *   carrying all their data (what a one-event-per-call log model would cost)
 */

const CALLS = 20_000;
const CALLERS = 50;
const ROUNDS = 3;

/** The events one sync echo call writes, read back from a runtime on a memory log. */
async function templateEvents() {
  const { memoryEventLog } = await import('../../dist/store/index.js');
  const { createRuntime, defineAgent } = await import('../../dist/runtime/index.js');
  const echo = defineAgent({
    card: {
      id: 'echo',
      name: 'Echo',
      version: '1.0.0',
      tier: 'L3',
      capabilities: [{ verb: 'echo.echo', input: { type: 'object' }, output: { type: 'object' } }],
    },
    create: () => ({ 'echo.echo': (/** @type {unknown} */ input) => input }),
  });
  const log = memoryEventLog();
  await log.start();
  const runtime = createRuntime({ log, agents: [echo] });
  await runtime.start();
  const { job } = await runtime.invoke(
    {
      id: '5b0c1cc0-2c36-4a8e-9a43-6f1f1d1c0b7e',
      kind: 'request',
      from: 'anonymous',
      to: 'capability:echo.echo',
      verb: 'echo.echo',
      data: { text: 'hello, plexus', n: 1 },
      extensions: { _x_jsonrpc_id: 1 },
    },
    { face: 'hyperspace', transport: { remoteAddress: '127.0.0.1', connection: 'c0' } },
  );
  const events = (await log.read()).filter((e) => e.causation === job.id);
  await runtime.stop();
  await log.stop();
  return { jobId: job.id, events };
}

/**
 * Appends {@link CALLS} calls' events (from `make`, all made before the clock starts) with
 * {@link CALLERS} callers, {@link ROUNDS} times, each time to a fresh SQLite log; returns the
 * medians of CPU µs per call (every thread) and of calls per second.
 * @param {(init: { dir: string }) => any} sqliteEventLog
 * @param {() => any[]} make one call's event inputs
 */
async function rounds(sqliteEventLog, make) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    const calls = Array.from({ length: CALLS }, make);
    const dir = mkdtempSync(join(tmpdir(), 'plexus-log-floor-'));
    const log = sqliteEventLog({ dir });
    await log.start();
    let next = 0;
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (next < CALLS) await log.append(calls[next++]);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    await log.stop();
    rmSync(dir, { recursive: true, force: true });
    samples.push({ us: (used.user + used.system) / CALLS, rate: CALLS / seconds });
  }
  const mid = (/** @type {number[]} */ xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  return { us: mid(samples.map((s) => s.us)), rate: mid(samples.map((s) => s.rate)) };
}

/** Measures in this process; returns the {@link LogFloor}. */
async function measureHere() {
  const { sqliteEventLog } = await import('../../dist/store/index.js');
  const { newJobId } = await import('../../dist/runtime/jobs/job-id.js');
  const { jobId, events } = await templateEvents();
  const texts = events.map((e) => ({ type: e.type, text: JSON.stringify(e.data) }));
  /** One call's events, with a fresh job id (time-ordered, as the runtime makes them). */
  const separate = () => {
    const id = newJobId();
    return texts.map((t) => ({
      type: t.type,
      data: JSON.parse(t.text.replaceAll(jobId, id)),
      causation: id,
    }));
  };
  /** The same data in one event. */
  const merged = () => {
    const calls = separate();
    return [{ type: 'job.ran', data: { events: calls.map((e) => e.data) }, causation: calls[0]?.causation }];
  };
  const apart = await rounds(sqliteEventLog, separate);
  const together = await rounds(sqliteEventLog, merged);
  return {
    usPerCall: apart.us,
    eventsPerCall: events.length,
    callsPerSecond: apart.rate,
    mergedUsPerCall: together.us,
  };
}

/**
 * Measures the {@link LogFloor} in a child process (so nothing else runs beside it).
 * Rejects when the child fails or runs over two minutes.
 * @returns {Promise<LogFloor>}
 */
export function measureLogFloor() {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the log floor measurement did not finish within 120 s'));
    }, 120_000);
    child.once('message', (/** @type {{ floor?: LogFloor, error?: string }} */ msg) => {
      clearTimeout(watchdog);
      if (msg.floor !== undefined) resolve(msg.floor);
      else reject(new Error(`the log floor measurement failed: ${msg.error ?? 'no result'}`));
    });
    child.once('exit', (code) => {
      clearTimeout(watchdog);
      reject(new Error(`the log floor measurement exited (code ${code})`));
    });
  });
}

if (process.argv[2] === '--child' && process.send !== undefined) {
  measureHere().then(
    (floor) => process.send?.({ floor }, () => process.exit(0)),
    (error) => process.send?.({ error: String(error?.stack ?? error) }, () => process.exit(1)),
  );
}
