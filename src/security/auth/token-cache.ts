/**
 * The verified-token cache: a token costs one signature check, not one per request
 * (DESIGN §7: signature checking is the ceiling).
 *
 * Entries are keyed by the exact token text and expire at the token's own expiry; an entry
 * past it is never served. The cache is bounded and approximates LRU with two generations,
 * as `LruCache` does (a hit in the young generation costs one map lookup and moves nothing):
 * new entries go into the young generation; when it holds half the capacity it becomes the
 * old one and the previous old one is dropped; a hit in the old generation moves the entry
 * back to the young one. A token used at least once per `capacity / 2` new tokens stays.
 * Entries can be dropped by token id, for revocation.
 */
import { PlexusError } from '../../core/errors.js';
import type { Principal } from './principal.js';

/** The number of verified tokens kept when no capacity is given. */
export const DEFAULT_TOKEN_CACHE_SIZE = 10_000;

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/**
 * A bounded cache of verified principals by token text (two-generation LRU approximation).
 *
 * @throws PlexusError `INVALID_PARAMS` from the constructor when `capacity` is not an
 *   integer >= 2.
 */
export class VerifiedTokenCache {
  #young = new Map<string, Entry>();
  #old = new Map<string, Entry>();
  readonly #generation: number;

  constructor(capacity: number = DEFAULT_TOKEN_CACHE_SIZE) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `token cache capacity must be an integer >= 2, got ${capacity}`,
      );
    }
    this.#generation = Math.floor(capacity / 2);
  }

  /** The maximum number of entries. */
  get capacity(): number {
    return this.#generation * 2;
  }

  /** The number of entries held now (expired ones included until they are touched or evicted). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /**
   * Returns the principal cached for `token` if it is still valid at `nowMs`; an expired
   * entry is removed and `undefined` returned.
   */
  get(token: string, nowMs: number): Principal | undefined {
    let entry = this.#young.get(token);
    if (entry === undefined) {
      entry = this.#old.get(token);
      if (entry === undefined) return undefined;
      this.#old.delete(token);
      if (nowMs < entry.expiresAt) this.#put(token, entry);
    }
    if (nowMs < entry.expiresAt) return entry.principal;
    this.#young.delete(token);
    return undefined;
  }

  /**
   * Caches `principal` for `token` until `expiresAt` (Unix ms; `Infinity` for never).
   * Nothing is stored when `expiresAt` is not after `nowMs`.
   */
  set(token: string, principal: Principal, expiresAt: number, nowMs: number): void {
    if (!(nowMs < expiresAt)) return;
    this.#old.delete(token);
    this.#put(token, { principal, expiresAt });
  }

  /** Removes the entry of `token`; true when there was one. */
  delete(token: string): boolean {
    const young = this.#young.delete(token);
    return this.#old.delete(token) || young;
  }

  /** Removes every entry whose principal has `tokenId`; returns how many. Linear in the size. */
  deleteTokenId(tokenId: string): number {
    let removed = 0;
    for (const map of [this.#young, this.#old]) {
      for (const [token, entry] of map) {
        if (entry.principal.tokenId === tokenId) {
          map.delete(token);
          removed++;
        }
      }
    }
    return removed;
  }

  /** Removes every entry. */
  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }

  #put(token: string, entry: Entry): void {
    if (!this.#young.has(token) && this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(token, entry);
  }
}
