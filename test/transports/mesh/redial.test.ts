/**
 * Which lost peers a mesh node dials again each round (MESH-34): bootstrap addresses and known
 * peers that are not connected, one address each, never itself, at most a few per round and
 * each in turn.
 */
import { describe, expect, it } from 'vitest';
import {
  REDIAL_PER_ROUND,
  peerOfAddress,
  redialCandidates,
  redialIntervalMs,
  redialRound,
} from '../../../src/transports/mesh/redial.js';

const addr = (port: number, id: string) => `/ip4/127.0.0.1/tcp/${port}/p2p/${id}`;

describe('redialling lost mesh peers', () => {
  it('takes one address per peer, bootstrap first, never the node itself', () => {
    const candidates = redialCandidates(
      [addr(1, 'A'), addr(2, 'A'), '/ip4/127.0.0.1/tcp/3', addr(4, 'SELF')],
      [
        { peerId: 'A', addrs: ['/ip4/127.0.0.1/tcp/9'] },
        { peerId: 'B', addrs: ['/ip4/127.0.0.1/tcp/5', '/ip4/127.0.0.1/tcp/6'] },
        { peerId: 'C', addrs: [] },
      ],
      'SELF',
    );
    expect(candidates).toEqual([
      { peerId: 'A', address: addr(1, 'A') },
      { peerId: 'B', address: addr(5, 'B') },
    ]);
    expect(peerOfAddress('/ip4/127.0.0.1/tcp/1/p2p/X/p2p-circuit/p2p/Y')).toBe('Y');
    expect(peerOfAddress('/ip4/127.0.0.1/tcp/1')).toBeUndefined();
  });

  it('dials only the peers not connected, a bounded number per round, each in turn', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ peerId: `P${i}`, address: addr(i, `P${i}`) }));
    const connected = (id: string) => Number(id.slice(1)) % 2 === 0; // the even ones are there
    const seen = new Set<string>();
    for (let round = 0; round < 2; round++) {
      const picked = redialRound(many, connected, round);
      expect(picked.length).toBe(REDIAL_PER_ROUND);
      for (const a of picked) seen.add(a);
    }
    expect([...seen].sort()).toEqual(
      many
        .filter((c) => !connected(c.peerId))
        .map((c) => c.address)
        .sort(),
    );
    expect(redialRound(many, () => true, 0)).toEqual([]);
    expect(redialRound(many.slice(0, 3), () => false, 5)).toHaveLength(3);
  });

  it('redials every two heartbeats, between 1 s and 30 s', () => {
    expect(redialIntervalMs(300)).toBe(1000);
    expect(redialIntervalMs(2000)).toBe(4000);
    expect(redialIntervalMs(30_000)).toBe(30_000);
  });
});
