// A Plexus node whose meters are full, for bench/metrics.bench.js: `createNode` from the
// compiled code (../../../dist, build first) in dev mode on 127.0.0.1, port 0, no demo agents,
// the SQLite event log in a fresh temporary data directory (removed when the process stops).
// Arguments: `--verbs N --tenants T` (defaults 1000 and 10). It hosts N verbs on agents built
// with the SDK (`agent` + `verb`, 100 verbs an agent), then calls every verb once from each of
// the T tenants (`plexus.invoke(…, {tenantId})`, 50 calls in flight), so every meter with a
// `verb` or `tenant` label has those labels filled — up to the caps (metrics.maxVerbs and
// metrics.maxTenants, 200 each by default; the rest count as `other`) — and only then reports
// its port. Every tenth call of a verb fails on purpose, so the `status` label has two values.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createNode } from '../../../dist/node/index.js';
import { agent, createPlexus, verb } from '../../../dist/sdk/index.js';
import { announce, HOST } from './announce.js';

const { values } = parseArgs({
  options: { verbs: { type: 'string', default: '1000' }, tenants: { type: 'string', default: '10' } },
});
const verbCount = Number(values.verbs);
const tenantCount = Number(values.tenants);
if (!(
  Number.isSafeInteger(verbCount) &&
  verbCount >= 1 &&
  Number.isSafeInteger(tenantCount) &&
  tenantCount >= 1
)) {
  throw new RangeError(
    `--verbs and --tenants must be whole numbers >= 1, got ${values.verbs}, ${values.tenants}`,
  );
}
/** Verbs per agent. */
const PER_AGENT = 100;
/** Calls in flight while filling the meters. */
const IN_FLIGHT = 50;

const dataDir = await mkdtemp(join(tmpdir(), 'plexus-bench-metrics-'));
const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
process.on('exit', removeDataDir);

const node = createNode({ dataDir, store: 'sqlite', host: HOST, port: 0, dev: true, demo: false });
await node.start();
const plexus = createPlexus({ node });

const schema = { type: 'object', properties: { n: { type: 'integer' } } };
/** @type {string[]} */
const names = [];
for (let a = 0; a * PER_AGENT < verbCount; a++) {
  const verbs = [];
  for (let i = a * PER_AGENT; i < Math.min(verbCount, (a + 1) * PER_AGENT); i++) {
    const name = `bench.r${a}.v${i}`;
    names.push(name);
    verbs.push(
      verb(name, { input: schema, output: schema }, (/** @type {{ n?: number }} */ input) => {
        if (input.n !== undefined && input.n % 10 === 9) throw new Error('the tenth call fails');
        return { n: input.n ?? 0 };
      }),
    );
  }
  await plexus.register(agent(`bench_${a}`, verbs));
}

// every verb from every tenant; bounded: verbCount × tenantCount calls, IN_FLIGHT at a time
const calls = [];
for (let t = 0; t < tenantCount; t++) for (const name of names) calls.push({ name, tenantId: `tenant-${t}` });
let next = 0;
let failed = 0;
const worker = async () => {
  while (next < calls.length) {
    const i = next++;
    const { name, tenantId } = calls[i];
    try {
      await plexus.invoke(name, { n: i }, { tenantId });
    } catch {
      failed++;
    }
  }
};
await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
if (failed === 0 || failed === calls.length) {
  throw new Error(
    `expected some calls to fail on purpose and most to succeed, ${failed} of ${calls.length} failed`,
  );
}

announce(node.port, {
  shutdown: async () => {
    await node.stop({ drainMs: 1000 });
    removeDataDir();
  },
});
