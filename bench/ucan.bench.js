// UCAN capability checks (issue 4, item 4 "Capabilities", D7): what a request pays for its token.
//
// 1. Cached chain checks per second: `verifier.verify(container)` served from the verified-chain
//    cache (leaf digest, LRU lookup, time bounds, revocations) plus the scope/effect coverage
//    check, cycling 1,000 distinct two-link chains (root → agent → node), beside an uncached
//    full verification of the same chains (decode, two Ed25519 signature checks, attenuation).
// 2. The invoker's added cost per call: `runtime.invoke` of a query verb that declares a scope
//    and an effect, with the capability authorizer on against off, 50 concurrent callers, each
//    with its own chain, on the memory log (the worst case: the least other work per call) and
//    the SQLite log. Target: checks cost at most 15% of throughput once chains are cached
//    (on / off >= 0.85). The last lines show a mutation verb, whose capability decision is also
//    written to the log as an `audit.capability` event: appended on its own (one more commit
//    per call), or batched with `job.submitted` through the authorizer's pre-effect.
//
// Run after `npm run build`: `node bench/ucan.bench.js`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { compare, median, report } from './lib.js';
import { keyPairFromSeed, identityFromPublicKey } from '../dist/security/index.js';
import {
  assertCovers,
  capabilitiesOf,
  encodeCapabilityContainer,
  signUcan,
  ucanVerifier,
  verbRequirements,
} from '../dist/security/ucan/index.js';
import { capabilityAuthorizer } from '../dist/runtime/pipeline/capability-authorizer.js';
import { memoryEventLog, sqliteEventLog } from '../dist/store/index.js';
import { auditPreEffect } from '../dist/runtime/pipeline/effects.js';
import { createRuntime, defineAgent } from '../dist/runtime/index.js';

const CHAINS = 1000;
const N = 6_000;
const ROUNDS = 5;
const CALLERS = 50;

const party = (byte) => {
  const key = keyPairFromSeed(byte.repeat(32));
  return { key, did: identityFromPublicKey(key.publicKey).did };
};
const root = party('0a');
const node = party('0b');
const agents = Array.from({ length: 8 }, (_, i) => party((0x10 + i).toString(16)));

const GRANT = capabilitiesOf({ scopes: ['demo:read', 'demo:write'], effects: ['reads:echo', 'writes:echo'] });

/** A two-link chain root → agent → node. */
function chainFor(i) {
  const agent = agents[i % agents.length];
  const parent = signUcan({ key: root.key, audience: agent.did, capabilities: GRANT, ttl: '1h' });
  const leaf = signUcan({
    key: agent.key,
    audience: node.did,
    capabilities: GRANT,
    ttl: '30m',
    proofs: [parent.cid],
  });
  return encodeCapabilityContainer(leaf, [parent]);
}

const spec = (name, category) => ({
  name,
  version: 1,
  status: 'stable',
  input: true,
  output: true,
  effects: category === 'mutation' ? { writes: ['echo'] } : { reads: ['echo'] },
  capabilities: [category === 'mutation' ? 'demo:write' : 'demo:read'],
  category,
  deterministic: category !== 'mutation',
});
const QUERY = spec('demo.echo', 'query');
const MUTATION = spec('demo.store', 'mutation');

// 1. Cached checks against full verification.
const containers = Array.from({ length: CHAINS }, (_, i) => chainFor(i));
const requirements = verbRequirements(QUERY);
const cached = ucanVerifier({ roots: [root.did], audience: node.did, cacheSize: 4 * CHAINS });
for (const c of containers) cached.verify(c);
const uncached = ucanVerifier({ roots: [root.did], audience: node.did });
let i = 0;
let j = 0;
const micro = compare(
  {
    'cached chain check (verify from cache + coverage)': () => {
      const chain = cached.verify(containers[i++ % CHAINS]);
      assertCovers(chain.capabilities, requirements, {}, QUERY.name);
    },
    'full chain verification (2 links, 2 signatures)': () => {
      const chain = uncached.verifyUncached(containers[j++ % CHAINS]);
      assertCovers(chain.capabilities, requirements, {}, QUERY.name);
    },
  },
  { rounds: 5, ms: 300 },
);
report(`UCAN chain checks, ${CHAINS} distinct two-link chains`, micro, {
  subject: 'cached chain check (verify from cache + coverage)',
  baseline: 'full chain verification (2 links, 2 signatures)',
  target: '>= 10x',
  pass: (ratio) => ratio >= 10,
});

// 2. The invoker with capability checks on and off.
const dirs = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'plexus-bench-ucan-'));
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
      { verb: 'demo.echo', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'demo.store', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  verbs: [QUERY, MUTATION],
  create: () => ({ 'demo.echo': (input) => input, 'demo.store': (input) => input }),
});

const callerChains = Array.from({ length: CALLERS }, (_, k) => chainFor(k));

/** CPU time (user + system) per call of the last run, µs: steadier than ops/s on a shared machine. */
let lastCpuPerCall = 0;

async function runtimeRun(makeLog, verb, withChecks, auditMode = 'append') {
  const log = makeLog();
  await log.start();
  const verifier = ucanVerifier({ roots: [root.did], audience: node.did });
  const authorizer = withChecks ? capabilityAuthorizer({ verifier, log, auditMode }) : undefined;
  const runtime = createRuntime({
    log,
    agents: [echo],
    authorizers: authorizer === undefined ? [] : [authorizer],
    ...(auditMode === 'batch' ? { preEffects: [auditPreEffect, authorizer.auditEffect] } : {}),
  });
  await runtime.start();
  let next = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      while (next < N) {
        const n = next++;
        const request = {
          id: randomUUID(),
          kind: 'request',
          from: 'did:example:bench',
          to: `capability:${verb}`,
          verb,
          data: { text: `hello ${n}` },
          capability: callerChains[caller],
        };
        const { envelope } = await runtime.invoke(request, { face: 'bench' });
        if (envelope.kind !== 'response') throw new Error(JSON.stringify(envelope.data));
      }
    }),
  );
  const ops = (N * 1e9) / Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  lastCpuPerCall = (used.user + used.system) / N;
  await runtime.stop();
  await log.stop();
  return ops;
}

const subjects = {
  'query, memory log, checks on': () => runtimeRun(() => memoryEventLog(), 'demo.echo', true),
  'query, memory log, checks off': () => runtimeRun(() => memoryEventLog(), 'demo.echo', false),
  'query, SQLite log, checks on': () =>
    runtimeRun(() => sqliteEventLog({ dir: tempDir() }), 'demo.echo', true),
  'query, SQLite log, checks off': () =>
    runtimeRun(() => sqliteEventLog({ dir: tempDir() }), 'demo.echo', false),
  'mutation + audit event appended, SQLite log, checks on': () =>
    runtimeRun(() => sqliteEventLog({ dir: tempDir() }), 'demo.store', true),
  'mutation + audit event batched, SQLite log, checks on': () =>
    runtimeRun(() => sqliteEventLog({ dir: tempDir() }), 'demo.store', true, 'batch'),
  'mutation, SQLite log, checks off': () =>
    runtimeRun(() => sqliteEventLog({ dir: tempDir() }), 'demo.store', false),
};
const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
const cpuSamples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
await subjects['query, memory log, checks on'](); // warm-up
await subjects['query, memory log, checks off']();
for (let r = 0; r < ROUNDS; r++) {
  const names = r % 2 === 0 ? Object.keys(subjects) : Object.keys(subjects).reverse();
  for (const name of names) {
    samples[name].push(await subjects[name]());
    cpuSamples[name].push(lastCpuPerCall);
  }
}
const cpu = Object.fromEntries(Object.entries(cpuSamples).map(([name, xs]) => [name, median(xs)]));
const results = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
const title = `invoker with UCAN checks on vs off, ${CALLERS} concurrent callers, ${N} sync invocations per round`;
report(title, results, {
  subject: 'query, memory log, checks on',
  baseline: 'query, memory log, checks off',
  target: '>= 0.85x (checks cost <= 15%)',
  pass: (ratio) => ratio >= 0.85,
});
const sqlite = results['query, SQLite log, checks on'] / results['query, SQLite log, checks off'];
console.log(
  `ratio on / off, query, SQLite log = ${sqlite.toFixed(2)}x (target >= 0.85x): ${sqlite >= 0.85 ? 'MET' : 'NOT MET'}`,
);
const off = results['mutation, SQLite log, checks off'];
const appended = results['mutation + audit event appended, SQLite log, checks on'] / off;
const batched = results['mutation + audit event batched, SQLite log, checks on'] / off;
console.log(
  `ratio on / off, mutation with its audit event appended, SQLite log = ${appended.toFixed(2)}x (information)`,
);
console.log(
  `ratio on / off, mutation with its audit event batched, SQLite log = ${batched.toFixed(2)}x (information)`,
);
// CPU per call is steadier than ops/s on a shared machine (other processes take the cores):
// the throughput a CPU-bound runtime can reach is 1 / (CPU per call), so this is the verdict
// to trust when the ops/s lines disagree between runs.
console.log('\n| subject | cpu per call, µs (median) |\n|---|---:|');
for (const [name, us] of Object.entries(cpu)) console.log(`| ${name} | ${us.toFixed(1)} |`);
for (const [label, on, offName] of [
  ['query, memory log', 'query, memory log, checks on', 'query, memory log, checks off'],
  ['query, SQLite log', 'query, SQLite log, checks on', 'query, SQLite log, checks off'],
]) {
  const ratio = cpu[offName] / cpu[on];
  console.log(
    `throughput on / off by cpu per call, ${label} = ${ratio.toFixed(2)}x (target >= 0.85x): ${ratio >= 0.85 ? 'MET' : 'NOT MET'}`,
  );
}
const audited =
  cpu['mutation, SQLite log, checks off'] / cpu['mutation + audit event batched, SQLite log, checks on'];
console.log(
  `throughput on / off by cpu per call, mutation with its audit entry batched, SQLite log = ${audited.toFixed(2)}x (information: checks plus one more event per call)`,
);
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
