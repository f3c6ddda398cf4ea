import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/security/lru-cache.js';
import { expectPlexusError } from './expect-error.js';

describe('LruCache', () => {
  it('returns what was stored', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('c')).toBeUndefined();
  });

  it('never holds more than its capacity', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 500 }),
        (capacity, keys) => {
          const cache = new LruCache<number, number>(capacity);
          for (const k of keys) {
            if (cache.get(k) === undefined) cache.set(k, k);
            expect(cache.size).toBeLessThanOrEqual(capacity);
          }
        },
      ),
    );
  });

  it('keeps an entry that is used while many others come and go', () => {
    const cache = new LruCache<number, string>(10);
    cache.set(-1, 'hot');
    for (let i = 0; i < 1000; i++) {
      expect(cache.get(-1)).toBe('hot');
      cache.set(i, 'cold');
    }
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(999)).toBe('cold');
  });

  it('drops entries that are never used again', () => {
    const cache = new LruCache<number, number>(4);
    for (let i = 0; i < 10; i++) cache.set(i, i);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(9)).toBe(9);
  });

  it('replaces the value of an existing key without growing', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('rejects a capacity below 2', () => {
    expectPlexusError(() => new LruCache(1), 'INVALID_PARAMS');
    expectPlexusError(() => new LruCache(2.5), 'INVALID_PARAMS');
  });
});
