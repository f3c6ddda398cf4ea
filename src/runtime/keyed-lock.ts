/**
 * A per-key lock: work for one key runs one at a time, in arrival order; work for different
 * keys runs freely. The budget ledger and the primitives use it so a check-then-append (a
 * debit, a nonce, a counter) is atomic under concurrency: the check reads the projection, the
 * append commits, and the projection has applied it before the next caller of that key checks.
 * {@link KeyedLock.runAll} takes several keys in sorted order, so two callers locking
 * overlapping sets cannot deadlock.
 *
 * @example
 * const lock = keyedLock();
 * await lock.run(sessionId, async () => { check(state()); await log.append(debit); });
 */

/** Runs work under one key or a set of keys. */
export interface KeyedLock {
  /** Runs `work` once every earlier `run` with the same key has settled. */
  run<T>(key: string, work: () => Promise<T> | T): Promise<T>;
  /** Runs `work` holding every key of `keys` (taken in sorted order). */
  runAll<T>(keys: readonly string[], work: () => Promise<T> | T): Promise<T>;
  /** Keys with work queued or running (for tests and metrics). */
  readonly size: number;
}

/** Creates a lock. A rejected `work` rejects its own `run` only. */
export function keyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  const run = <T>(key: string, work: () => Promise<T> | T): Promise<T> => {
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
  };
  const runAll = <T>(keys: readonly string[], work: () => Promise<T> | T): Promise<T> => {
    const sorted = [...new Set(keys)].sort();
    const step = (i: number): Promise<T> =>
      i === sorted.length ? Promise.resolve().then(work) : run(sorted[i] as string, () => step(i + 1));
    return step(0);
  };
  return {
    run,
    runAll,
    get size() {
      return tails.size;
    },
  };
}
