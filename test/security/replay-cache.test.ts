import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayCache, replayKey } from '../../src/security/replay-cache.js';
import { expectPlexusError } from './expect-error.js';

describe('replayCache', () => {
  it('reports a key fresh until added, then replayed until it expires', () => {
    const cache = replayCache();
    expect(cache.check('k', 2000, 1000)).toBe('fresh');
    cache.add('k', 2000, 1000);
    expect(cache.check('k', 2000, 1500)).toBe('replayed');
    expect(cache.check('k', 2000, 1999)).toBe('replayed');
    expect(cache.check('k', 2000, 2000)).toBe('fresh');
  });

  it('drops expired entries as time moves on', () => {
    const cache = replayCache({ bucketMs: 100 });
    for (let i = 0; i < 50; i++) cache.add(`k${i}`, 1000 + i, 0);
    expect(cache.size).toBe(50);
    cache.add('late', 10_000, 5000);
    expect(cache.size).toBe(1);
  });

  it('keeps a key that was added again with a later expiry when its old bucket is dropped', () => {
    const cache = replayCache({ bucketMs: 10 });
    cache.add('k', 100, 0);
    cache.add('k', 500, 150);
    cache.add('other', 600, 200);
    expect(cache.check('k', 500, 200)).toBe('replayed');
  });

  it('does not store an entry that has already expired', () => {
    const cache = replayCache();
    cache.add('k', 1000, 1000);
    expect(cache.size).toBe(0);
  });

  it('stays within maxEntries and fails closed for envelopes older than what it evicted', () => {
    const cache = replayCache({ maxEntries: 10, bucketMs: 10 });
    for (let i = 0; i < 30; i++) cache.add(`k${i}`, 1000 + i * 10, 0);
    expect(cache.size).toBeLessThanOrEqual(10);
    // k0 was evicted: an envelope expiring that early can no longer be vouched for.
    expect(cache.check('k0', 1000, 0)).toBe('unverifiable');
    // a newer envelope is still judged normally
    expect(cache.check('new', 5000, 0)).toBe('fresh');
    expect(cache.check('k29', 1290, 0)).toBe('replayed');
  });

  it('never exceeds maxEntries and never calls a replay of a live envelope fresh', () => {
    // Model: key k names one envelope with a fixed expiry (its ts + window); a replay carries the
    // same expiry. Once that expiry has passed the verifier's ts window rejects it anyway.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 30 }),
            fc.integer({ min: 1, max: 500 }),
            fc.integer({ min: 0, max: 20 }),
          ),
          { maxLength: 200 },
        ),
        (maxEntries, ops) => {
          const cache = replayCache({ maxEntries, bucketMs: 7 });
          let now = 0;
          const issued = new Map<string, number>();
          const accepted = new Set<string>();
          for (const [k, ttl, step] of ops) {
            now += step;
            let key = `k${k}`;
            let expiresAt = issued.get(key);
            if (expiresAt !== undefined && expiresAt <= now) {
              key = `${key}@${now}`; // the old envelope is outside the window; this is a new one
              expiresAt = undefined;
            }
            if (expiresAt === undefined) {
              expiresAt = now + ttl;
              issued.set(key, expiresAt);
            }
            const status = cache.check(key, expiresAt, now);
            if (accepted.has(key)) expect(status).not.toBe('fresh');
            if (status === 'fresh') {
              cache.add(key, expiresAt, now);
              accepted.add(key);
            }
            expect(cache.size).toBeLessThanOrEqual(maxEntries);
          }
        },
      ),
    );
  });

  it('forgets everything on clear', () => {
    const cache = replayCache({ maxEntries: 1 });
    cache.add('a', 100, 0);
    cache.add('b', 200, 0);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.check('a', 100, 0)).toBe('fresh');
  });

  it('rejects bad options', () => {
    expectPlexusError(() => replayCache({ maxEntries: 0 }), 'INVALID_PARAMS');
    expectPlexusError(() => replayCache({ bucketMs: 0.5 }), 'INVALID_PARAMS');
  });
});

describe('replayKey', () => {
  it('joins from and nonce with a space, which neither a verified from nor a nonce contains', () => {
    expect(replayKey('did:key:z6Mkx', 'AAAA')).toBe('did:key:z6Mkx AAAA');
    expect(replayKey('12D3KooWx', 'AAAA')).not.toBe(replayKey('did:key:z6Mkx', 'AAAA'));
  });
});
