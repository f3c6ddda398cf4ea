// In-process mesh peers for bench/mesh.bench.js: the mesh's own libp2p stack (`createMeshPeer`
// of src/transports/mesh/mesh-peer.ts, from dist/ — TCP, Noise, Yamux, identify, ping,
// gossipsub with the mesh's score thresholds, kad-dht on /plexus/kad/1.0.0), each with its own
// Ed25519 node key, joined in one seeded topology: a ring plus `chords` random links per peer.
import { keyPairFromSeed } from '../../dist/security/index.js';
import { createMeshPeer } from '../../dist/transports/mesh/mesh-peer.js';

/** A small seeded PRNG (mulberry32): the same topology and publishers on every run. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile of a sorted array (nearest rank below). */
export const pct = (sorted, p) =>
  sorted.length === 0
    ? undefined
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Milliseconds rounded to 0.1, or null when there is no sample. */
export const ms = (x) => (x === undefined ? null : Number(x.toFixed(1)));

/**
 * Starts `count` peers and links them: peer i dials i+1 (a ring) and `chords` others chosen
 * by `random`. Resolves once every dial has succeeded (3 attempts each). `twin: true` also
 * starts a second set of `count` peers linked in the very same topology whose gossipsub signs
 * its own messages (`gossipSigning: 'libp2p'`, gossipsub's default `StrictSign` with the
 * MESH-38 fast id): raw gossipsub as it was before MESH-48, the gossip bench's baseline (the
 * signature policy is global to a gossipsub, so the two rows cannot share one).
 * @returns {Promise<{ peers: { key: import('../../dist/security/index.js').Ed25519KeyPair, peer: any }[], raw?: { key: any, peer: any }[] }>}
 */
export async function meshPeerSets(count, random, { chords = 2, twin = false } = {}) {
  const seeds = [];
  for (let i = 0; i < count; i += 1) seeds.push(new Uint8Array(32).map(() => Math.floor(random() * 256)));
  const links = new Set();
  const link = (a, b) => {
    if (a === b || links.has(`${Math.min(a, b)}-${Math.max(a, b)}`)) return;
    links.add(`${Math.min(a, b)}-${Math.max(a, b)}`);
  };
  for (let i = 0; i < count; i += 1) {
    link(i, (i + 1) % count);
    for (let c = 0; c < chords; c += 1) link(i, Math.floor(random() * count));
  }
  const peers = await startLinked(seeds, links, 'envelope');
  if (!twin) return { peers };
  // the raw set's keys differ from the Plexus set's (a peer id is one peer per process)
  const rawSeeds = seeds.map((seed) => seed.map((b) => b ^ 0xff));
  return { peers, raw: await startLinked(rawSeeds, links, 'libp2p') };
}

/** The peers of `seeds`, dialled along `links` ("a-b" pairs). */
async function startLinked(seeds, links, gossipSigning) {
  const peers = [];
  for (const seed of seeds) {
    const key = keyPairFromSeed(seed);
    const peer = await createMeshPeer({
      seed,
      listen: ['/ip4/127.0.0.1/tcp/0'],
      announce: [],
      maxMessageBytes: 64 * 1024,
      gossipSigning,
    });
    peers.push({ key, peer });
  }
  for (const pair of links) {
    const [a, b] = pair.split('-').map(Number);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await peers[a].peer.dial(peers[b].peer.getMultiaddrs()[0], { signal: AbortSignal.timeout(20_000) });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }
  return peers;
}

/** The Plexus set of {@link meshPeerSets} alone. */
export async function meshPeers(count, random, chords = 2) {
  return (await meshPeerSets(count, random, { chords })).peers;
}
