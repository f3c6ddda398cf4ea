// Part 2 of bench/mesh.bench.js (formerly bench/mesh-dht.bench.js): DHT findProviders over the
// same in-process mesh peers. Each peer provides one verb key (the CID of
// `plexus/capability/<verb>`, src/transports/mesh/dht-keys.ts); then lookups from seeded random
// peers for other peers' verbs are timed until the first provider record naming the provider
// arrives. A lookup not answered within 5 s counts as a miss; misses are not in the percentiles.
// The baseline of the same run: a lookup answered from the asking peer's own provider store
// (a peer looking up the key it provides itself), the floor of a findProviders call.
//
// The setup (every peer's self-lookup, then every provide) runs two peers at a time: all 20 at
// once starved the process (event-loop delays of seconds), the connection monitor's heartbeats
// passed their 20–30 s timeout, it aborted hundreds of connections, and the provides reached
// 0–1 peers — the lookups then measured the reconnections (Noise handshakes), not the DHT.
// Printed beside the figures: how many peers hold each provider record (`recordHolders`), and
// connections closed and opened during the lookups (churn; 0 on a healthy run).
import { capabilityKey } from '../../dist/transports/mesh/dht-keys.js';
import { ms, pct } from './peers.js';

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

/** Runs `work` over `items`, two at a time. */
async function twoAtATime(items, work) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      await work(items[i], i);
    }
  };
  await Promise.all([lane(), lane()]);
}

/**
 * How many peers hold each key's provider record: min / median / max over the keys (kad-dht's
 * provider store is not public API: null when it is not where it was).
 */
async function holders(nodes, keys) {
  const counts = [];
  for (const key of keys) {
    let n = 0;
    for (const p of nodes) {
      const store = p.services.dht.providers;
      if (typeof store?.getProviders !== 'function') return null;
      if ((await store.getProviders(key).catch(() => [])).length > 0) n += 1;
    }
    counts.push(n);
  }
  counts.sort((a, b) => a - b);
  return {
    min: counts[0],
    median: counts[Math.floor(counts.length / 2)],
    max: counts.at(-1),
    of: nodes.length,
  };
}

/**
 * Time to the first provider record naming `provider`, ms, and whether the asking peer's own
 * provider store answered (no DHT walk); undefined on a miss.
 */
async function lookup(from, key, provider) {
  const started = performance.now();
  const signal = AbortSignal.timeout(5000);
  try {
    for await (const event of from.services.dht.findProviders(key, { signal })) {
      if (event.name === 'PROVIDER' && event.providers.some((p) => p.id.equals(provider))) {
        return { ms: performance.now() - started, local: event.from.equals(from.peerId) };
      }
    }
  } catch {
    // aborted: a miss
  }
  return undefined;
}

/**
 * @param {{ peer: any }[]} peers
 * @param {() => number} random
 * @param {{ lookups: number }} opts
 */
export async function dhtBench(peers, random, opts) {
  const nodes = peers.map((p) => p.peer);
  // Let the routing tables fill: every peer looks itself up once.
  await twoAtATime(nodes, (p) =>
    drain(
      p.services.dht.getClosestPeers(p.peerId.toMultihash().bytes, { signal: AbortSignal.timeout(30_000) }),
    ),
  );
  const keys = nodes.map((_, i) => capabilityKey(`bench.verb${i}.run`));
  await twoAtATime(nodes, (p, i) =>
    drain(p.services.dht.provide(keys[i], { signal: AbortSignal.timeout(30_000) })),
  );
  const recordHolders = await holders(nodes, keys);
  const churn = { closed: 0, opened: 0 };
  let counting = false;
  for (const p of nodes) {
    p.addEventListener('connection:close', () => {
      if (counting) churn.closed += 1;
    });
    p.addEventListener('connection:open', () => {
      if (counting) churn.opened += 1;
    });
  }
  counting = true;

  const remote = [];
  const own = [];
  let misses = 0;
  let local = 0;
  let cpuMs = 0;
  for (let n = 0; n < opts.lookups; n += 1) {
    const from = Math.floor(random() * nodes.length);
    let target = Math.floor(random() * nodes.length);
    if (target === from) target = (target + 1) % nodes.length;
    const cpu = process.cpuUsage();
    const t = await lookup(nodes[from], keys[target], nodes[target].peerId);
    const used = process.cpuUsage(cpu);
    cpuMs += (used.user + used.system) / 1000;
    if (t === undefined) misses += 1;
    else {
      remote.push(t.ms);
      if (t.local) local += 1;
    }
    // the baseline, interleaved: the asking peer's own key
    const self = await lookup(nodes[from], keys[from], nodes[from].peerId);
    if (self !== undefined) own.push(self.ms);
  }
  counting = false;
  remote.sort((a, b) => a - b);
  own.sort((a, b) => a - b);
  return {
    lookups: opts.lookups,
    found: remote.length,
    misses,
    answeredFromOwnStore: local,
    p50Ms: ms(pct(remote, 50)),
    p99Ms: ms(pct(remote, 99)),
    cpuMsPerLookup: Number((cpuMs / opts.lookups).toFixed(1)),
    recordHolders,
    connectionsDuringLookups: churn,
    baselineOwnKey: { found: own.length, p50Ms: ms(pct(own, 50)), p99Ms: ms(pct(own, 99)) },
  };
}
