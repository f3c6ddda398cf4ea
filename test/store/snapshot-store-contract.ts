import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type { ProjectionSnapshot, SnapshotStore } from '../../src/store/index.js';

/** What a contract run needs from one implementation. */
export interface SnapshotHarness {
  readonly store: SnapshotStore;
  /** A store over the same storage as `store` (for a memory store: the same store). */
  reopen(): SnapshotStore;
  /** Replaces the stored form of `name` with `text` behind the store's back. */
  corrupt(name: string, text: string): Promise<void>;
  cleanup(): Promise<void>;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(PlexusError);
    return (error as PlexusError).code;
  }
  return 'no error';
}

/** Calls `run` and returns its promise; a synchronous throw fails the contract. */
function promised<T>(run: () => Promise<T>): Promise<T> {
  let p: Promise<T> | undefined;
  expect(() => (p = run())).not.toThrow();
  return p as Promise<T>;
}

const snap = (name: string, seq: number, state: ProjectionSnapshot['state']): ProjectionSnapshot => ({
  name,
  version: 1,
  seq,
  cid: seq === 0 ? null : `bafy-${seq}`,
  sha256: 'ab'.repeat(32),
  state,
});

/** The one contract every projection snapshot store passes. */
export function runSnapshotStoreContract(name: string, factory: () => Promise<SnapshotHarness>): void {
  describe(`SnapshotStore contract: ${name}`, () => {
    let h: SnapshotHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('starts empty: nothing listed, nothing loaded', async () => {
      expect(await h.store.list()).toEqual([]);
      expect(await h.store.load('jobs')).toBeUndefined();
    });

    it('loads what was saved, field for field, and lists names sorted', async () => {
      const state = {
        jobs: { j1: { state: 'DONE', n: 1.5, text: 'é 日本 \u2028' } },
        list: [null, true, -0.25],
      };
      await h.store.save(snap('registry.cards', 7, []));
      await h.store.save(snap('jobs', 12, state));
      await h.store.save(snap('a-b_c.d2', 0, null));
      expect(await h.store.list()).toEqual(['a-b_c.d2', 'jobs', 'registry.cards']);
      expect(await h.store.load('jobs')).toEqual(snap('jobs', 12, state));
      expect(await h.store.load('a-b_c.d2')).toEqual(snap('a-b_c.d2', 0, null));
    });

    it('keeps one snapshot per name: a save replaces the last', async () => {
      await h.store.save(snap('jobs', 1, { v: 1 }));
      await h.store.save(snap('jobs', 2, { v: 2 }));
      expect(await h.store.list()).toEqual(['jobs']);
      expect(await h.store.load('jobs')).toEqual(snap('jobs', 2, { v: 2 }));
    });

    it('copies in and out: changing a saved or loaded object changes nothing stored', async () => {
      const state = { count: 1 };
      const saved = { ...snap('counts', 1, state) };
      await h.store.save(saved);
      state.count = 99;
      const loaded = (await h.store.load('counts'))!;
      expect(loaded.state).toEqual({ count: 1 });
      (loaded.state as { count: number }).count = 42;
      expect((await h.store.load('counts'))!.state).toEqual({ count: 1 });
    });

    it('keeps what was saved for a store reopened over the same storage', async () => {
      await h.store.save(snap('jobs', 3, { kept: true }));
      const again = h.reopen();
      expect(await again.list()).toEqual(['jobs']);
      expect(await again.load('jobs')).toEqual(snap('jobs', 3, { kept: true }));
    });

    it('refuses a name that is not a projection name, as a rejected promise', async () => {
      for (const bad of ['../x', 'Jobs', '', 'a/b', 'jobs.']) {
        expect(await code(promised(() => h.store.load(bad)))).toBe('INVALID_PARAMS');
        expect(await code(promised(() => h.store.save(snap(bad, 0, null))))).toBe('INVALID_PARAMS');
      }
      expect(await h.store.list()).toEqual([]);
    });

    it('reports a damaged stored snapshot as INTERNAL, and a save repairs it', async () => {
      await h.store.save(snap('jobs', 1, { v: 1 }));
      await h.corrupt('jobs', '{"name":');
      expect(await code(promised(() => h.store.load('jobs')))).toBe('INTERNAL');
      await h.corrupt('jobs', '{"name":"jobs"}');
      expect(await code(h.store.load('jobs'))).toBe('INTERNAL');
      await h.store.save(snap('jobs', 2, { v: 2 }));
      expect(await h.store.load('jobs')).toEqual(snap('jobs', 2, { v: 2 }));
    });

    it('leaves one whole snapshot when saves of one name race, and keeps every name of concurrent saves', async () => {
      const versions = Array.from({ length: 8 }, (_, i) =>
        snap('jobs', i + 1, { i, pad: 'x'.repeat(1000 * i) }),
      );
      const others = Array.from({ length: 8 }, (_, i) => snap(`view${i}`, i, { i }));
      await Promise.all([...versions, ...others].map((s) => h.store.save(s)));
      expect(versions).toContainEqual(await h.store.load('jobs'));
      expect(await h.store.list()).toEqual(['jobs', ...others.map((s) => s.name)].sort());
      for (const other of others) expect(await h.store.load(other.name)).toEqual(other);
    });
  });
}
