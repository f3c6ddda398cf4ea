/**
 * A per-key lock: work for one key runs one at a time, in arrival order, while work for
 * different keys runs freely. Primitives use it so a check-then-append (a budget debit, a
 * nonce, a counter) is atomic under concurrency: the check reads the projection, the append
 * commits, and the projection has applied it before the next caller of that key checks.
 */

/** Runs `work` once every earlier `run` with the same key has settled. */
export interface KeyedLock {
  run<T>(key: string, work: () => Promise<T> | T): Promise<T>;
  /** How many keys have work queued or running (for tests and metrics). */
  readonly size: number;
}

/**
 * Creates a lock. A rejected `work` rejects its own `run` only; later work for the key still runs.
 *
 * @example
 * const lock = keyedLock();
 * await lock.run(sessionId, async () => { check(state()); await log.append(debit); });
 */
export function keyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
      const before = tails.get(key) ?? Promise.resolve();
      const result = before.then(work, work);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    get size() {
      return tails.size;
    },
  };
}
