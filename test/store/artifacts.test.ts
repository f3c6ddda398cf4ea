import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileArtifactStore, memoryArtifactStore } from '../../src/store/index.js';
import { runArtifactStoreContract } from './artifact-store-contract.js';

runArtifactStoreContract('memory', (init = {}) => {
  const store = memoryArtifactStore(init);
  return Promise.resolve({
    store,
    corrupt: (sha256: string, bytes: Uint8Array) => {
      store.corrupt(sha256, bytes);
      return Promise.resolve();
    },
    cleanup: () => Promise.resolve(),
  });
});

runArtifactStoreContract('file', async (init = {}) => {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-artifacts-'));
  const store = fileArtifactStore({ dir, ...init });
  await store.start();
  return {
    store,
    corrupt: async (sha256: string, bytes: Uint8Array) => {
      const path = join(dir, 'artifacts', 'sha256', sha256.slice(0, 2), sha256.slice(2));
      await chmod(path, 0o644);
      await writeFile(path, bytes);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('fileArtifactStore', () => {
  it('lays content out as artifacts/sha256/ab/cdef… and survives a reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plexus-artifacts-'));
    try {
      const store = fileArtifactStore({ dir, fsync: true });
      await store.start();
      const ref = await store.put(new TextEncoder().encode('kept'), { uri: 'workspace://out/kept.txt' });
      await store.stop();
      expect(await readdir(join(dir, 'artifacts', 'sha256', ref.sha256.slice(0, 2)))).toEqual([
        ref.sha256.slice(2),
      ]);
      expect(await readdir(join(dir, 'artifacts', 'tmp'))).toEqual([]);
      const again = fileArtifactStore({ dir });
      await again.start();
      expect(await again.stat('workspace://out/kept.txt')).toEqual(ref);
      expect(new TextDecoder().decode(await again.get(ref.uri))).toBe('kept');
      await again.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('repairs a truncated blob on the next put of the same content', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plexus-artifacts-'));
    try {
      const store = fileArtifactStore({ dir });
      await store.start();
      const bytes = new TextEncoder().encode('torn by a power cut');
      const ref = await store.put(bytes);
      const path = join(dir, 'artifacts', 'sha256', ref.sha256.slice(0, 2), ref.sha256.slice(2));
      await chmod(path, 0o644);
      await writeFile(path, bytes.slice(0, 4));
      await expect(store.get(ref.sha256)).rejects.toThrow(/corrupt/);
      await store.put(bytes);
      expect(await store.get(ref.sha256)).toEqual(bytes);
      await store.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects calls before start', async () => {
    const store = fileArtifactStore({ dir: join(tmpdir(), 'plexus-never-started') });
    await expect(store.put(new Uint8Array(1))).rejects.toThrow(/stopped/);
  });
});
