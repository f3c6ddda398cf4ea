import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RING_DEFAULTS, hashRing, ringPosition } from '../../../src/primitives/memory/index.js';

const keys = Array.from({ length: 4000 }, (_, i) => `mem-${i.toString(16).padStart(8, '0')}`);

describe('hashRing', () => {
  it('uses the seed figures: 750 virtual nodes a peer, replication 3', () => {
    const ring = hashRing();
    expect([ring.virtualNodes, ring.replication]).toEqual([750, 3]);
    expect(RING_DEFAULTS).toEqual({ virtualNodes: 750, replication: 3 });
  });

  it('gives every key 3 distinct owners, primary first, the same whatever the join order', () => {
    const a = hashRing({ peers: ['p1', 'p2', 'p3', 'p4', 'p5'] });
    const b = hashRing({ peers: ['p5', 'p3', 'p1', 'p4', 'p2'] });
    for (const key of keys.slice(0, 500)) {
      const owners = a.owners(key);
      expect(owners).toHaveLength(3);
      expect(new Set(owners).size).toBe(3);
      expect(b.owners(key)).toEqual(owners);
    }
  });

  it('places by SHA-256: a key sits at the first 6 bytes of its digest', () => {
    // SHA-256("abc") = ba7816bf8f01cfea…
    expect(ringPosition('abc')).toBe(0xba7816bf8f01);
  });

  it('spreads primaries evenly over the peers', () => {
    const ring = hashRing({ peers: ['p1', 'p2', 'p3'] });
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(ring.owners(key)[0]!, (counts.get(ring.owners(key)[0]!) ?? 0) + 1);
    for (const n of counts.values()) expect(n / keys.length).toBeGreaterThan(0.27);
    for (const n of counts.values()) expect(n / keys.length).toBeLessThan(0.4);
  });

  it('moves only about a quarter of the keys to a 4th peer, and only to it', () => {
    const ring = hashRing({ peers: ['p1', 'p2', 'p3'] });
    const before = new Map(keys.map((k) => [k, ring.owners(k, 1)[0]]));
    expect(ring.add('p4')).toBe(true);
    expect(ring.add('p4')).toBe(false);
    let moved = 0;
    for (const k of keys) {
      const now = ring.owners(k, 1)[0];
      if (now !== before.get(k)) {
        moved++;
        expect(now).toBe('p4');
      }
    }
    expect(moved / keys.length).toBeGreaterThan(0.19);
    expect(moved / keys.length).toBeLessThan(0.31);
    // replica sets: a key's owners change only by the newcomer taking a place
    const three = hashRing({ peers: ['p1', 'p2', 'p3'] });
    for (const k of keys.slice(0, 500)) {
      const after = ring.owners(k);
      const old = three.owners(k);
      expect(after.filter((p) => p !== 'p4').every((p) => old.includes(p))).toBe(true);
    }
  });

  it('returns the keys of a removed peer to the others and restores the old placement', () => {
    const ring = hashRing({ peers: ['p1', 'p2', 'p3'] });
    const before = keys.map((k) => ring.owners(k).join());
    ring.add('p4');
    expect(ring.remove('p4')).toBe(true);
    expect(ring.remove('p4')).toBe(false);
    expect(keys.map((k) => ring.owners(k).join())).toEqual(before);
  });

  it('answers every peer when there are fewer than the replication factor, none on an empty ring', () => {
    const ring = hashRing({ peers: ['solo'] });
    expect(ring.owners('k')).toEqual(['solo']);
    ring.add('duo');
    expect(new Set(ring.owners('k'))).toEqual(new Set(['solo', 'duo']));
    expect(hashRing().owners('k')).toEqual([]);
  });

  it('is deterministic for any peer set and key (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.string(),
        (peers, key) => {
          const a = hashRing({ peers, virtualNodes: 20 });
          const b = hashRing({ peers: [...peers].reverse(), virtualNodes: 20 });
          const owners = a.owners(key);
          expect(owners).toEqual(b.owners(key));
          expect(owners).toHaveLength(Math.min(3, peers.length));
          expect(new Set(owners).size).toBe(owners.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('rejects bad sizes and empty peer ids', () => {
    expect(() => hashRing({ virtualNodes: 0 })).toThrow(/virtualNodes/);
    expect(() => hashRing({ replication: 1.5 })).toThrow(/replication/);
    expect(() => hashRing({ peers: [''] })).toThrow(/peer id/);
  });
});
