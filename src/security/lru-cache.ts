/**
 * A small bounded cache of recently used entries, used by the security layer to keep derived
 * key material (KeyObjects, did:key and PeerId strings, domain prefixes) without unbounded
 * memory.
 *
 * It approximates LRU with two generations, so a hit costs one or two map lookups and never
 * reorders a map: new entries go into the young generation; when it holds half the capacity
 * it becomes the old generation and the previous old one is dropped; a hit in the old
 * generation moves the entry back into the young one. An entry used at least once per
 * `capacity / 2` insertions is never dropped, and at most `capacity` entries are held.
 */
import { PlexusError } from '../core/errors.js';

/**
 * A bounded map that keeps recently used entries (two-generation LRU approximation).
 *
 * @throws PlexusError `INVALID_PARAMS` from the constructor when `capacity` is not an integer ≥ 2.
 */
export class LruCache<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #generation: number;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) {
      throw new PlexusError('INVALID_PARAMS', `cache capacity must be an integer >= 2, got ${capacity}`);
    }
    this.#generation = Math.floor(capacity / 2);
  }

  /** The maximum number of entries held. */
  get capacity(): number {
    return this.#generation * 2;
  }

  /** The number of entries held now. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** Returns the value for `key` (marking it recently used), or `undefined`. */
  get(key: K): V | undefined {
    const value = this.#young.get(key);
    if (value !== undefined) return value;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#put(key, old);
    }
    return old;
  }

  /** Stores `value` under `key` as a recently used entry, dropping old entries when full. */
  set(key: K, value: V): void {
    this.#old.delete(key);
    this.#put(key, value);
  }

  /** Removes every entry. */
  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }

  #put(key: K, value: V): void {
    if (!this.#young.has(key) && this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
