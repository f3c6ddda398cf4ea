// A Plexus node with many jobs in its log, for bench/ui.bench.js: `createNode` from the compiled
// code (../../../dist, build first) in dev mode on 127.0.0.1, port 0, the demo agents, the SQLite
// event log in a fresh temporary data directory (removed when the process stops). Argument:
// `--jobs N` (default 10000). Before it reports its port it runs N jobs through the SDK
// (`plexus.invoke`, 50 in flight): `math.evaluate` of `i + 1`, except every tenth one `1 / 0` (a
// failed job) and every fifth one `echo.echo` — so the jobs list has states and verbs to filter.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createNode } from '../../../dist/node/index.js';
import { createPlexus } from '../../../dist/sdk/index.js';
import { announce, HOST } from './announce.js';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '10000' } } });
const jobs = Number(values.jobs);
if (!Number.isSafeInteger(jobs) || jobs < 1)
  throw new RangeError(`--jobs must be a whole number >= 1, got ${values.jobs}`);
/** Calls in flight while filling the log. */
const IN_FLIGHT = 50;

const dataDir = await mkdtemp(join(tmpdir(), 'plexus-bench-jobs-'));
const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
process.on('exit', removeDataDir);

const node = createNode({ dataDir, store: 'sqlite', host: HOST, port: 0, dev: true, demo: true });
await node.start();
const plexus = createPlexus({ node });

/** The job of index `i`: its verb and input. @param {number} i */
const jobOf = (i) => {
  if (i % 10 === 3) return { verb: 'math.evaluate', input: { expression: '1 / 0' } };
  if (i % 5 === 4) return { verb: 'echo.echo', input: { n: i } };
  return { verb: 'math.evaluate', input: { expression: `${i} + 1` } };
};

let next = 0;
const worker = async () => {
  while (next < jobs) {
    const { verb, input } = jobOf(next++);
    await plexus.invoke(verb, input).catch(() => undefined); // the failures are on purpose
  }
};
await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

announce(node.port, {
  shutdown: async () => {
    await node.stop({ drainMs: 1000 });
    removeDataDir();
  },
});
