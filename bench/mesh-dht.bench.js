// DHT findProviders over 20 in-process mesh peers (issue 15, "Performance": target p99 ≤ 200 ms).
// The peers are the mesh's own (`createMeshPeer` of src/transports/mesh/mesh-peer.ts, from dist/:
// TCP, Noise, Yamux, identify, ping, gossipsub, kad-dht on /plexus/kad/1.0.0 with clientMode
// false and the pass-through address mapper, the connection monitor on its own ping protocol),
// all joined through peer 0. Each peer provides one verb key (the CID of
// `plexus/capability/<verb>`, src/transports/mesh/dht-keys.ts); then lookups from random peers
// for random other peers' verbs are timed until the first provider arrives.
// Run: `npm run build && node bench/mesh-dht.bench.js` (BENCH_NODES default 20, BENCH_LOOKUPS
// default 200). A lookup not answered within 5 s counts as a miss; misses are not in the
// percentiles. The load average is printed beside the figures (the machine is shared).
// A benchmark measures; it never fails on a figure. Results go to docs/performance.md.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createMeshPeer } from '../dist/transports/mesh/mesh-peer.js';
import { capabilityKey as keyOf } from '../dist/transports/mesh/dht-keys.js';

// Background dials of the stack that time out on a loaded machine are counted, not fatal.
let backgroundErrors = 0;
process.on('unhandledRejection', () => {
  backgroundErrors += 1;
});
process.on('uncaughtException', () => {
  backgroundErrors += 1;
});

const NODES = Number(process.env.BENCH_NODES ?? 20);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 200);
const loadAtStart = loadavg()[0];

function peer() {
  return createMeshPeer({
    seed: new Uint8Array(randomBytes(32)),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    announce: [],
    maxMessageBytes: 64 * 1024,
  });
}

/** Runs a DHT query to its end. */
async function drain(events) {
  let count = 0;
  try {
    for await (const event of events) if (event !== undefined) count += 1;
  } catch {
    // a warm-up query cut by its time bound: the lookups below still measure
  }
  return count;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const peers = [];
for (let i = 0; i < NODES; i += 1) peers.push(await peer());
const hub = peers[0];
for (const p of peers.slice(1)) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await p.dial(hub.getMultiaddrs()[0]);
      break;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}
// Let the routing tables fill: every peer looks itself up once through the hub.
await Promise.all(
  peers.map((p) =>
    drain(
      p.services.dht.getClosestPeers(p.peerId.toMultihash().bytes, { signal: AbortSignal.timeout(30_000) }),
    ),
  ),
);
const verbs = peers.map((_, i) => `bench.verb${i}.run`);
await Promise.all(
  peers.map((p, i) =>
    drain(p.services.dht.provide(keyOf(verbs[i]), { signal: AbortSignal.timeout(30_000) })),
  ),
);

const times = [];
let misses = 0;
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
for (let n = 0; n < LOOKUPS; n += 1) {
  const from = Math.floor(Math.random() * NODES);
  let target = Math.floor(Math.random() * NODES);
  if (target === from) target = (target + 1) % NODES;
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  let found = false;
  try {
    for await (const event of peers[from].services.dht.findProviders(keyOf(verbs[target]), {
      signal: controller.signal,
    })) {
      if (event.name === 'PROVIDER' && event.providers.some((p) => p.id.equals(peers[target].peerId))) {
        found = true;
        break;
      }
    }
  } catch {
    // aborted: counted as a miss
  }
  clearTimeout(timer);
  if (found) times.push(performance.now() - started);
  else misses += 1;
}
const cpu = process.cpuUsage(cpuBefore);
// The process's CPU time per wall second during the lookups: on a shared machine, how much of a
// core the 20 peers got (well below 1 means the figures above are mostly waiting for a CPU).
const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'mesh DHT findProviders (first provider)',
    nodes: NODES,
    lookups: LOOKUPS,
    found: times.length,
    misses,
    backgroundErrors,
    p50Ms: Number(pct(times, 50)?.toFixed(1)),
    p99Ms: Number(pct(times, 99)?.toFixed(1)),
    cpuMsPerLookup: Number(((cpu.user + cpu.system) / 1000 / LOOKUPS).toFixed(1)),
    cpuShare: Number(cpuShare.toFixed(2)),
    loadAverage1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0].toFixed(2)) },
  }),
);
await Promise.all(peers.map((p) => p.stop()));
