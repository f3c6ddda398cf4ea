import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { memoryStore, sqliteStore, type Store } from '../../src/store/index.js';
import { runSnapshotStoreContract } from './snapshot-store-contract.js';
import { openEventLog } from '../../src/store/event-map.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plexus-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Opens every part, writes one of each, and closes them again. */
async function useOnce(store: Store): Promise<void> {
  await store.log.start();
  await store.artifacts.start();
  await openEventLog(store.log).append({ type: 'test.event', data: { n: 1 } });
  await store.artifacts.put(new TextEncoder().encode('bytes'));
  await store.snapshots.save({ name: 'jobs', version: 1, seq: 1, cid: null, sha256: 'ab', state: {} });
  await store.artifacts.stop();
  await store.log.stop();
}

describe('sqliteStore', () => {
  it('keeps the log, artifacts and snapshots in the data directory, across runs', async () => {
    const factory = sqliteStore();
    const first = factory({ dataDir: dir });
    await useOnce(first);
    first.lock?.release();
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['events.db', 'artifacts', 'projections']));
    const again = factory({ dataDir: dir });
    await again.log.start();
    expect((await again.log.head()).seq).toBe(1);
    expect(await again.snapshots.list()).toEqual(['jobs']);
    await again.log.stop();
    again.lock?.release();
  });

  it('locks the data directory: a second store on it is refused until the first releases it', async () => {
    const first = sqliteStore()({ dataDir: dir });
    expect(first.lock).toBeDefined();
    first.lock?.announce(3101);
    expect(JSON.parse(await readFile(join(dir, 'node.lock.json'), 'utf8'))).toMatchObject({
      pid: process.pid,
      port: 3101,
    });
    let refusal: unknown;
    try {
      sqliteStore()({ dataDir: dir });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(PlexusError);
    expect((refusal as PlexusError).code).toBe('UNAVAILABLE');
    expect((refusal as PlexusError).message).toMatch(/listening on port 3101/);
    first.lock?.release();
    const second = sqliteStore()({ dataDir: dir });
    second.lock?.release();
  });
});

describe('memoryStore', () => {
  it('gives fresh parts at every call, keeps nothing on disk, and takes no lock', async () => {
    const factory = memoryStore();
    const first = factory({ dataDir: dir });
    await useOnce(first);
    expect(first.lock).toBeUndefined();
    const second = factory({ dataDir: dir });
    await second.log.start();
    expect((await second.log.head()).seq).toBe(0);
    expect(await second.snapshots.list()).toEqual([]);
    await second.log.stop();
    expect(await readdir(dir)).toEqual([]);
  });
});

runSnapshotStoreContract('sqliteStore().snapshots', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'plexus-store-snapshots-'));
  const open = (): Store => {
    const store = sqliteStore()({ dataDir });
    store.lock?.release(); // only the snapshots are used here
    return store;
  };
  return {
    store: open().snapshots,
    reopen: () => open().snapshots,
    corrupt: (name: string, text: string) => writeFile(join(dataDir, 'projections', `${name}.json`), text),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});
