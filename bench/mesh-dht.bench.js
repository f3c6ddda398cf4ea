// DHT findProviders over 20 in-process mesh peers (issue 15, "Performance": target p99 ≤ 200 ms).
// The peers run the mesh's stack (TCP, Noise, Yamux, identify, ping, kad-dht on
// /plexus/kad/1.0.0 with clientMode false and the pass-through address mapper, as
// src/transports/mesh/mesh-peer.ts), all joined through peer 0. Each peer provides one verb key
// (the CID of `plexus/capability/<verb>`, as src/transports/mesh/dht-keys.ts); then lookups from
// random peers for random other peers' verbs are timed until the first provider arrives.
// Run: `node bench/mesh-dht.bench.js` (BENCH_NODES default 20, BENCH_LOOKUPS default 200). A lookup
// not answered within 5 s counts as a miss; misses are not in the percentiles.
// A benchmark measures; it never fails on a figure. Results go to docs/performance.md.
import { createHash } from 'node:crypto';

if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const { noise } = await import('@chainsafe/libp2p-noise');
const { identify } = await import('@libp2p/identify');
const { kadDHT, passthroughMapper } = await import('@libp2p/kad-dht');
const { ping } = await import('@libp2p/ping');
const { tcp } = await import('@libp2p/tcp');
const { yamux } = await import('@libp2p/yamux');
const { createLibp2p } = await import('libp2p');
const { CID } = await import('multiformats/cid');
const { create: createDigest } = await import('multiformats/hashes/digest');

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

function keyOf(verb) {
  const hash = createHash('sha256').update(`plexus/capability/${verb}`, 'utf8').digest();
  return CID.createV1(0x55, createDigest(0x12, new Uint8Array(hash)));
}

function peer() {
  return createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    // a loaded machine: give handshakes time (the figure measured is the lookup, not the join)
    connectionManager: { dialTimeout: 30_000, inboundUpgradeTimeout: 30_000 },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      ping: ping(),
      dht: kadDHT({ protocol: '/plexus/kad/1.0.0', clientMode: false, peerInfoMapper: passthroughMapper }),
    },
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
  }),
);
await Promise.all(peers.map((p) => p.stop()));
