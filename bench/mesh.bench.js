// The mesh (issue 15, "Performance"), each figure beside a baseline measured in the same run:
// 1. gossip: delivery p50 / p99 of 1 KB messages at 20 msg/s through Plexus gossip (D3 signed
//    envelope, the mesh's topic validator and score parameters, gossipsub StrictNoSign) beside
//    raw gossipsub (no envelope, no validator, gossipsub's own StrictSign), on two sets of 20
//    in-process peers in the same topology (the signature policy is per gossipsub instance,
//    MESH-48) — target Plexus p99 <= 1.3x raw (bench/mesh/gossip.js);
// 2. DHT: findProviders p50 / p99 over the same peers, to the first provider, beside a lookup
//    of the asking peer's own key — target p99 <= 200 ms (bench/mesh/dht.js);
// 3. rpc: calls over /plexus/rpc/1.1.0 beside HTTP peer forwarding between the same two nodes —
//    target >= 1.5x the HTTP throughput (bench/mesh/rpc.js);
// 4. RSS of an idle node with the mesh beside the same node without it (one child process
//    each, alternating; bench/mesh/idle-node.js).
// Parts 1–3 run in this process (the peers of 1 and 2 are the mesh's own libp2p stack, from
// dist/: run `npm run build` first). Settings, from the environment:
//   BENCH_ONLY          comma-separated parts: gossip,dht,rpc,rss (default all)
//   BENCH_NODES         peers of parts 1 and 2 (default 20)
//   BENCH_RATE          gossip messages a second (default 20)
//   BENCH_MESSAGES      gossip messages per phase (default 100)
//   BENCH_ROUNDS        rounds of alternating phases, gossip and rpc (default 3)
//   BENCH_LOOKUPS       DHT lookups (default 200)
//   BENCH_SECONDS       seconds per rpc phase (default 5)
//   BENCH_CONCURRENCY   rpc calls in flight (default 16)
//   BENCH_IDLE_SECONDS  how long an idle node waits before its RSS is read (default 10)
//   BENCH_SEED          seed of the topology, publishers and lookups (default 15)
//   BENCH_CPU_PROF      a directory: each part's measured phase is CPU-profiled into
//                       <dir>/mesh-<part>.cpuprofile (open in Chrome DevTools; off by default)
// The load average and the process's share of a core are printed beside the figures (the
// machine is shared). A benchmark measures; it never fails on a figure. Results go to
// docs/performance.md.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { median } from './lib.js';
import { dhtBench } from './mesh/dht.js';
import { gossipBench } from './mesh/gossip.js';
import { meshPeerSets, prng } from './mesh/peers.js';
import { rpcBench, transportCeiling } from './mesh/rpc.js';

// Background dials of the stack that time out on a loaded machine are counted, not fatal.
let backgroundErrors = 0;
process.on('unhandledRejection', () => {
  backgroundErrors += 1;
});

const env = process.env;
const parts = (env.BENCH_ONLY ?? 'gossip,dht,rpc,rss').split(',').map((s) => s.trim());
const NODES = Number(env.BENCH_NODES ?? 20);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const random = prng(Number(env.BENCH_SEED ?? 15));

const load = () => Number(loadavg()[0].toFixed(2));
/** Runs `work`, printing its result with the load average and the process's share of a core. */
async function part(name, target, work, profileAs) {
  const loadStart = load();
  const session = env.BENCH_CPU_PROF ? new Session() : undefined;
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const result = await work();
  const used = process.cpuUsage(cpu);
  if (session !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(env.BENCH_CPU_PROF, `mesh-${profileAs}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  const cpuShare = (used.user + used.system) / 1000 / (performance.now() - wall);
  console.log(
    JSON.stringify({
      bench: name,
      target,
      ...result,
      cpuShare: Number(cpuShare.toFixed(2)),
      loadAverage1m: { start: loadStart, end: load() },
      backgroundErrors,
    }),
  );
}

if (parts.includes('gossip') || parts.includes('dht')) {
  // the raw row's peers: the same topology, gossipsub signing its own messages (MESH-48)
  const { peers, raw } = await meshPeerSets(NODES, random, { twin: parts.includes('gossip') });
  try {
    if (parts.includes('gossip')) {
      await part(
        'mesh gossip delivery, 1 KB messages',
        'Plexus p99 <= 1.3x raw gossipsub p99',
        async () => {
          const r = await gossipBench(peers, raw, random, {
            rate: Number(env.BENCH_RATE ?? 20),
            messages: Number(env.BENCH_MESSAGES ?? 100),
            rounds: ROUNDS,
          });
          return {
            nodes: NODES,
            rate: Number(env.BENCH_RATE ?? 20),
            signing: {
              raw: 'gossipsub StrictSign (+ MESH-38 fast id)',
              plexus: 'gossipsub StrictNoSign + D3 envelope (MESH-48)',
            },
            ...r,
            met: r.ratioP99 !== null && r.ratioP99 <= 1.3,
          };
        },
        'gossip',
      );
      // the raw set is not needed past this part
      await Promise.all(raw.splice(0).map(({ peer }) => peer.stop()));
    }
    if (parts.includes('dht')) {
      await part(
        'mesh DHT findProviders (first provider)',
        'p99 <= 200 ms',
        async () => {
          const r = await dhtBench(peers, random, { lookups: Number(env.BENCH_LOOKUPS ?? 200) });
          return { nodes: NODES, ...r, met: r.misses === 0 && r.p99Ms !== null && r.p99Ms <= 200 };
        },
        'dht',
      );
    }
  } finally {
    await Promise.all([...peers, ...(raw ?? [])].map(({ peer }) => peer.stop()));
  }
}

if (parts.includes('rpc')) {
  await part(
    'calls over /plexus/rpc/1.1.0 vs HTTP peer forwarding',
    'mesh >= 1.5x HTTP calls/s',
    async () => {
      const opts = {
        seconds: Number(env.BENCH_SECONDS ?? 5),
        rounds: ROUNDS,
        concurrency: Number(env.BENCH_CONCURRENCY ?? 16),
      };
      const r = await rpcBench(opts);
      return { ...r, met: r.ratio >= 1.5, bareTransports: await transportCeiling(opts) };
    },
    'rpc',
  );
}

if (parts.includes('rss')) {
  await part(
    'RSS of an idle node, mesh on vs off',
    'reported, no target',
    async () => {
      const child = fileURLToPath(new URL('./mesh/idle-node.js', import.meta.url));
      const runs = { off: [], on: [] };
      for (let round = 0; round < 3; round += 1) {
        for (const mesh of round % 2 === 0 ? [false, true] : [true, false]) {
          const out = execFileSync(process.execPath, ['--expose-gc', child, ...(mesh ? ['--mesh'] : [])], {
            encoding: 'utf8',
            timeout: 120_000,
          });
          runs[mesh ? 'on' : 'off'].push(JSON.parse(out.trim().split('\n').at(-1)));
        }
      }
      const mb = (xs) => Number((median(xs) / 1024 / 1024).toFixed(1));
      const of = (side) => ({
        rssMb: mb(runs[side].map((r) => r.rssBytes)),
        heapUsedMb: mb(runs[side].map((r) => r.heapUsedBytes)),
      });
      const off = of('off');
      const on = of('on');
      return {
        meshOff: off,
        meshOn: on,
        meshCostMb: {
          rss: Number((on.rssMb - off.rssMb).toFixed(1)),
          heapUsed: Number((on.heapUsedMb - off.heapUsedMb).toFixed(1)),
        },
        note: 'medians of 3 child processes each, alternating, after a full GC; RSS varies by ~15 MB run to run, heapUsed by <1 MB',
      };
    },
    'rss',
  );
}
