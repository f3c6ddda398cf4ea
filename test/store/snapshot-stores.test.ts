import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fileSnapshotStore, memorySnapshotStore } from '../../src/store/index.js';
import { runSnapshotStoreContract } from './snapshot-store-contract.js';

runSnapshotStoreContract('memory', () => {
  const store = memorySnapshotStore();
  return Promise.resolve({
    store,
    reopen: () => store,
    corrupt: (name: string, text: string) => {
      store.corrupt(name, text);
      return Promise.resolve();
    },
    cleanup: () => Promise.resolve(),
  });
});

runSnapshotStoreContract('file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-snapshots-'));
  return {
    store: fileSnapshotStore({ dir }),
    reopen: () => fileSnapshotStore({ dir }),
    corrupt: (name: string, text: string) => writeFile(join(dir, 'projections', `${name}.json`), text),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

it('fileSnapshotStore leaves no temporary file behind after racing saves', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-snapshots-'));
  try {
    const store = fileSnapshotStore({ dir });
    const base = { name: 'jobs', version: 1, cid: null, sha256: 'ab' };
    await Promise.all(Array.from({ length: 6 }, (_, seq) => store.save({ ...base, seq, state: { seq } })));
    expect(await readdir(join(dir, 'projections'))).toEqual(['jobs.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
