/**
 * The consistent-hash ring of seed 003 §4.4: each physical peer owns `virtualNodes` points on
 * a ring of 2^48 positions (the first 6 bytes of SHA-256 of `<peerId>#<i>`), a key sits at
 * the first 6 bytes of SHA-256 of the key, and its owners are the first `replication`
 * distinct peers met walking clockwise from it (primary first, then the replicas). Lookup is
 * a binary search over the sorted points, O(log V).
 *
 * Placement depends only on the set of peers, never on the order they joined, and a joining
 * peer takes over only the arcs in front of its own points — about 1/n of the keys.
 */
import { PlexusError } from '../../core/errors.js';
import { sha256Bytes } from '../../core/hash.js';

/** The seed's figures. */
export const RING_DEFAULTS = { virtualNodes: 750, replication: 3 } as const;

/** Options of {@link hashRing}. */
export interface HashRingInit {
  /** Points each physical peer owns. @default 750 */
  readonly virtualNodes?: number;
  /** Owners per key (primary + replicas). @default 3 */
  readonly replication?: number;
  /** The initial peers. @default none */
  readonly peers?: readonly string[];
}

/** A consistent-hash ring of peers. */
export interface HashRing {
  readonly virtualNodes: number;
  readonly replication: number;
  /** The peers on the ring, sorted. */
  peers(): readonly string[];
  /** Adds a peer; false when it was already there. */
  add(peerId: string): boolean;
  /** Removes a peer; false when it was not there. */
  remove(peerId: string): boolean;
  /**
   * The distinct peers that hold `key`, primary first: `count` of them, or every peer when
   * the ring has fewer. Empty on an empty ring.
   */
  owners(key: string, count?: number): string[];
}

/** The ring position (48-bit integer) of a text: the first 6 bytes of its SHA-256. */
export function ringPosition(text: string): number {
  const b = sha256Bytes(text);
  return (
    (b[0] as number) * 2 ** 40 +
    (b[1] as number) * 2 ** 32 +
    (b[2] as number) * 2 ** 24 +
    (b[3] as number) * 2 ** 16 +
    (b[4] as number) * 2 ** 8 +
    (b[5] as number)
  );
}

const checkPeer = (peerId: unknown): string => {
  if (typeof peerId !== 'string' || peerId.length === 0) {
    throw new PlexusError('INVALID_PARAMS', 'a ring peer id must be a non-empty string');
  }
  return peerId;
};

/**
 * Creates a ring.
 *
 * @throws PlexusError `INVALID_PARAMS` for non-positive sizes or an empty peer id.
 * @example
 * const ring = hashRing({ peers: ['peer-a', 'peer-b', 'peer-c'] });
 * ring.owners('mem-1f2e…'); // ['peer-b', 'peer-a', 'peer-c']
 */
export function hashRing(init: HashRingInit = {}): HashRing {
  const virtualNodes = init.virtualNodes ?? RING_DEFAULTS.virtualNodes;
  const replication = init.replication ?? RING_DEFAULTS.replication;
  if (!Number.isInteger(virtualNodes) || virtualNodes < 1) {
    throw new PlexusError('INVALID_PARAMS', `virtualNodes must be a positive integer, got ${virtualNodes}`);
  }
  if (!Number.isInteger(replication) || replication < 1) {
    throw new PlexusError('INVALID_PARAMS', `replication must be a positive integer, got ${replication}`);
  }
  const points = new Map<string, Float64Array>(); // peer → its positions
  let positions = new Float64Array(0);
  let owners: string[] = [];

  const rebuild = (): void => {
    const all: { pos: number; peer: string }[] = [];
    for (const [peer, ps] of points) for (const pos of ps) all.push({ pos, peer });
    all.sort((a, b) => a.pos - b.pos || (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0));
    positions = Float64Array.from(all, (p) => p.pos);
    owners = all.map((p) => p.peer);
  };

  const ring: HashRing = {
    virtualNodes,
    replication,
    peers: () => [...points.keys()].sort(),
    add(peerId) {
      checkPeer(peerId);
      if (points.has(peerId)) return false;
      const ps = new Float64Array(virtualNodes);
      for (let i = 0; i < virtualNodes; i++) ps[i] = ringPosition(`${peerId}#${i}`);
      points.set(peerId, ps);
      rebuild();
      return true;
    },
    remove(peerId) {
      if (!points.delete(peerId)) return false;
      rebuild();
      return true;
    },
    owners(key, count = replication) {
      const want = Math.min(count, points.size);
      if (want <= 0) return [];
      const at = ringPosition(key);
      let lo = 0;
      let hi = positions.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((positions[mid] as number) < at) lo = mid + 1;
        else hi = mid;
      }
      const found: string[] = [];
      for (let i = 0; found.length < want && i < owners.length; i++) {
        const peer = owners[(lo + i) % owners.length] as string;
        if (!found.includes(peer)) found.push(peer);
      }
      return found;
    },
  };
  for (const peer of init.peers ?? []) ring.add(peer);
  return ring;
}
