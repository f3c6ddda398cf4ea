/**
 * The replay cache of signed envelopes (DESIGN D3): remembers each (signer, nonce) until the
 * envelope it came with could no longer pass the timestamp window, in bounded memory.
 *
 * Entries are grouped in buckets by expiry time (`bucketMs` wide). A bucket is dropped whole
 * once every entry in it has expired, so expiry costs O(1) per entry with no per-entry timers
 * or scans. When the cache is full, the bucket that expires soonest is evicted early.
 * Forgetting a live nonce would let its envelope be replayed, so eviction raises a floor:
 * any envelope whose entry would expire no later than the evicted bucket is reported
 * `unverifiable` (the verifier rejects it) instead of `fresh`. Under a flood the cache
 * therefore fails closed for the oldest envelopes and keeps accepting new ones.
 */
import { PlexusError } from '../core/errors.js';

/** What the cache knows of a (signer, nonce) pair. */
export type ReplayStatus = 'fresh' | 'replayed' | 'unverifiable';

/** Options for {@link replayCache}. */
export interface ReplayCacheInit {
  /**
   * The most entries kept at once.
   * @default 200000
   */
  readonly maxEntries?: number;
  /**
   * The width of an expiry bucket in ms: the granularity of expiry and of eviction.
   * @default 1000
   */
  readonly bucketMs?: number;
}

/** A bounded set of recently seen (signer, nonce) pairs. */
export interface ReplayCache {
  /**
   * Says whether `key` was seen and is still live at `now`. `expiresAt` is when an entry for
   * this envelope would expire; it decides `unverifiable` after evictions.
   */
  check(key: string, expiresAt: number, now: number): ReplayStatus;
  /** Remembers `key` until `expiresAt` (Unix ms); drops expired entries and evicts when full. */
  add(key: string, expiresAt: number, now: number): void;
  /** The number of entries held now. */
  readonly size: number;
  /** Forgets everything, including the eviction floor. */
  clear(): void;
}

/** The key under which a signed envelope is remembered: its `from` and `nonce`. */
export function replayKey(from: string, nonce: string): string {
  // A space occurs in neither a did:key, a PeerId nor base64url, so the join is unambiguous.
  return from + ' ' + nonce;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PlexusError('INVALID_PARAMS', `replay cache ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/**
 * Creates an in-memory replay cache.
 *
 * @throws PlexusError `INVALID_PARAMS` when `maxEntries` or `bucketMs` is not a positive integer.
 */
export function replayCache(init: ReplayCacheInit = {}): ReplayCache {
  const maxEntries = positiveInteger(init.maxEntries ?? 200_000, 'maxEntries');
  const bucketMs = positiveInteger(init.bucketMs ?? 1000, 'bucketMs');
  /** key → expiry (Unix ms). */
  const entries = new Map<string, number>();
  /** bucket index (floor(expiry / bucketMs)) → keys whose expiry falls in it. */
  const buckets = new Map<number, string[]>();
  /** Envelopes expiring at or before this are `unverifiable`. */
  let floor = Number.NEGATIVE_INFINITY;
  /** Every bucket below this index has been dropped. */
  let swept = Number.NEGATIVE_INFINITY;

  function drop(index: number): void {
    const keys = buckets.get(index);
    if (keys === undefined) return;
    buckets.delete(index);
    for (const key of keys) {
      const expiry = entries.get(key);
      // The key may have been added again since, into a later bucket; keep that entry.
      if (expiry !== undefined && Math.floor(expiry / bucketMs) === index) entries.delete(key);
    }
  }

  /** Drops every bucket whose entries have all expired at `now`. */
  function sweep(now: number): void {
    // Bucket b holds expiries in [b·w, (b+1)·w); all are ≤ now once (b+1)·w − 1 ≤ now.
    const limit = Math.floor((now + 1) / bucketMs);
    if (limit <= swept) return;
    if (swept === Number.NEGATIVE_INFINITY || limit - swept > buckets.size) {
      for (const index of [...buckets.keys()]) if (index < limit) drop(index);
    } else {
      for (let index = swept; index < limit; index++) drop(index);
    }
    swept = limit;
  }

  /** Evicts the bucket that expires soonest and raises the floor past it. */
  function evictOldest(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const index of buckets.keys()) if (index < oldest) oldest = index;
    if (oldest === Number.POSITIVE_INFINITY) return;
    drop(oldest);
    floor = Math.max(floor, (oldest + 1) * bucketMs - 1);
  }

  return {
    check(key, expiresAt, now) {
      const seen = entries.get(key);
      if (seen !== undefined && seen > now) return 'replayed';
      if (expiresAt <= floor) return 'unverifiable';
      return 'fresh';
    },
    add(key, expiresAt, now) {
      sweep(now);
      if (expiresAt <= now) return;
      if (!entries.has(key) && entries.size >= maxEntries) evictOldest();
      entries.set(key, expiresAt);
      const index = Math.floor(expiresAt / bucketMs);
      const keys = buckets.get(index);
      if (keys === undefined) buckets.set(index, [key]);
      else keys.push(key);
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
      buckets.clear();
      floor = Number.NEGATIVE_INFINITY;
      swept = Number.NEGATIVE_INFINITY;
    },
  };
}
