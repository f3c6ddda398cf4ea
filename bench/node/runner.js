// Runs a list of subjects one after another — for each, the server in its own process and the
// load generator in another — and prints the table and the target ratios.
import os from 'node:os';
import { median } from '../lib.js';
import { forkLoad } from './load.js';
import { budgetLines, capacityLines, ratioLines, table } from './report.js';

/**
 * @typedef {object} BenchInit
 * @property {string} module URL of the module exporting `subjects` (the load process imports it)
 * @property {import('./load.js').Subject[]} subjects
 * @property {import('./report.js').Target[]} targets
 * @property {number} seconds measured seconds per subject and round
 * @property {number} clients concurrent clients
 * @property {number} warmupSeconds unmeasured seconds before each measurement
 * @property {number} rounds rounds over all subjects (alternating order); each column is the median
 * @property {string[]} only run only subjects whose name contains one of these (case-insensitive); all when empty
 * @property {() => Promise<{ usPerCall: number, eventsPerCall: number, mergedUsPerCall?: number }>} [logFloor] measures the event
 *   log's own CPU per call after the subjects, for the floor in the budget lines
 */

/**
 * Reads the run's settings from the environment: BENCH_SECONDS (default 4), BENCH_CLIENTS (50),
 * BENCH_WARMUP (seconds, default 0), BENCH_ROUNDS (1), BENCH_ONLY (comma-separated name parts).
 * Throws on a value that is not a positive number.
 * @param {NodeJS.ProcessEnv} env
 */
export function settingsFromEnv(env) {
  const num = (/** @type {string} */ key, /** @type {number} */ fallback, min = 0) => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`${key}=${raw}: expected a number >= ${min}`);
    return n;
  };
  return {
    seconds: num('BENCH_SECONDS', 4, 0.1),
    clients: Math.floor(num('BENCH_CLIENTS', 50, 1)),
    warmupSeconds: num('BENCH_WARMUP', 0),
    rounds: Math.floor(num('BENCH_ROUNDS', 1, 1)),
    only: (env.BENCH_ONLY ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ''),
  };
}

/**
 * Runs every selected subject `rounds` times and prints the results as markdown to stdout.
 * A subject whose server or load fails is reported as failed; the others still run.
 * @param {BenchInit} init
 * @returns {Promise<{ rows: import('./report.js').Row[], failures: Map<string, string> }>}
 */
export async function runBench(init) {
  const selected = init.subjects.filter(
    (s) => init.only.length === 0 || init.only.some((w) => s.name.toLowerCase().includes(w)),
  );
  console.log(
    `\n## Node faces: ${init.clients} clients, ${init.seconds} s per subject` +
      `${init.warmupSeconds > 0 ? ` after ${init.warmupSeconds} s warm-up` : ''}, ${init.rounds} round(s)\n`,
  );
  console.log(
    `Machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ` +
      `load average ${os.loadavg()[0].toFixed(2)} at start. Server and load generator are separate processes.\n`,
  );
  /** @type {Map<string, import('./load.js').LoadResult[]>} */
  const results = new Map();
  /** @type {Map<string, string>} */
  const failures = new Map();
  for (let round = 0; round < init.rounds; round++) {
    const order = round % 2 === 0 ? selected : [...selected].reverse();
    for (const subject of order) {
      if (failures.has(subject.name)) continue;
      let server;
      try {
        server = await subject.start();
        const result = await forkLoad({
          module: init.module,
          subject: subject.name,
          url: server.url,
          clients: init.clients,
          seconds: init.seconds,
          warmupSeconds: init.warmupSeconds,
          serverPid: server.pid,
        });
        results.set(subject.name, [...(results.get(subject.name) ?? []), result]);
        if (result.firstError !== undefined)
          console.error(`${subject.name}: ${result.errors} errors, first: ${result.firstError}`);
      } catch (err) {
        failures.set(subject.name, err instanceof Error ? err.message : String(err));
      } finally {
        await server?.stop();
      }
    }
  }
  /** @type {import('./report.js').Row[]} */
  const rows = selected.flatMap((s) => {
    const runs = results.get(s.name);
    if (runs === undefined || failures.has(s.name)) return [];
    const mid = (/** @type {(r: import('./load.js').LoadResult) => number | undefined} */ f) => {
      const xs = runs.map(f).filter((x) => x !== undefined);
      return xs.length === 0 ? undefined : median(xs);
    };
    const first = /** @type {import('./load.js').LoadResult} */ (runs[0]);
    return [
      {
        ...first,
        rounds: runs.length,
        rps: mid((r) => r.rps) ?? 0,
        rpsMin: Math.min(...runs.map((r) => r.rps)),
        rpsMax: Math.max(...runs.map((r) => r.rps)),
        p50: mid((r) => r.p50) ?? NaN,
        p90: mid((r) => r.p90) ?? NaN,
        p99: mid((r) => r.p99) ?? NaN,
        errors: runs.reduce((n, r) => n + r.errors, 0),
        serverCpu: mid((r) => r.serverCpu),
        loadCpu: mid((r) => r.loadCpu),
        serverMainCpu: mid((r) => r.serverMainCpu),
        serverUsPerCall: mid((r) => r.serverUsPerCall),
      },
    ];
  });
  const cores = os.cpus().length;
  console.log(table(rows, failures, cores));
  const notes = selected.filter((s) => s.note !== undefined).map((s) => `- ${s.name}: ${s.note}`);
  if (notes.length > 0) console.log(`\n${notes.join('\n')}`);
  console.log(`\nTargets (throughput ratios, same run):\n\n${ratioLines(rows, init.targets).join('\n')}`);
  const capacity = capacityLines(rows, init.targets);
  if (capacity.length > 0) {
    console.log(
      `\nServer capacity (calls per second of server CPU, all threads; same stock client on both rows):\n\n${capacity.join('\n')}`,
    );
  }
  let log;
  if (init.logFloor !== undefined && rows.length > 0) {
    try {
      log = await init.logFloor();
      console.log(
        `\nThe event log alone (bench/node/log-floor.js): the ${log.eventsPerCall} events of a sync echo call cost ${log.usPerCall.toFixed(1)} µs CPU per call on SQLite, with no face, runtime or projection` +
          (log.mergedUsPerCall === undefined
            ? '.'
            : `; merged into one event carrying the same data, ${log.mergedUsPerCall.toFixed(1)} µs.`),
      );
    } catch (err) {
      console.error(`log floor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const budget = budgetLines(rows, init.targets, cores, log);
  if (budget.length > 0) {
    console.log(
      `\nWhat the targets ask of this machine (${cores}-core ceiling: the req/s at which the server and its load generator would keep every core busy at this run's CPU per request):\n\n${budget.join('\n')}`,
    );
  }
  return { rows, failures };
}
