import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { MEMORY_PROJECTIONS, type MemoryPeers } from '../../../src/primitives/memory/index.js';
import { sqliteEventLog } from '../../../src/store/index.js';
import { tempDir } from '../../runtime/helpers.js';
import { expectSameShape, memorySeedPairs, startMemoryCore, type MemoryCore } from './memory-harness.js';

const RATE =
  'Error handling patterns for rate-limited APIs: exponential backoff with jitter on 429 responses.';

describe('memory primitive', () => {
  let core: MemoryCore | undefined;
  afterEach(async () => {
    await core?.close();
    core = undefined;
  });

  it('answers every seed memory request with the seed field names and JSON types', async () => {
    core = await startMemoryCore();
    await core.ok('memory.store', {
      content: 'error handling patterns for rate-limited APIs',
      metadata: { source: 'web-research-session', tags: ['api', 'resilience'] },
    });
    await core.ok('memory.store', { content: 'Unrelated note about sourdough bread hydration.' });
    const pairs = memorySeedPairs();
    expect(pairs.map((p) => p.request.method)).toEqual(['memory.search']);
    for (const pair of pairs) {
      const result = await core.ok(pair.request.method, pair.request.params);
      expectSameShape(result, pair.response.result!);
      expect((result.memories as JsonObject[]).length).toBe(1);
    }
  });

  it('stores, gets, lists and searches memories with exact field names', async () => {
    core = await startMemoryCore();
    const stored = await core.ok('memory.store', {
      content: RATE,
      sessionId: 's1',
      metadata: { source: 'web-research-session', tags: ['api'] },
    });
    expect(stored).toEqual({
      id: expect.stringMatching(/^mem-[0-9a-f]{16}$/),
      peerId: 'local',
      replicas: [],
      tier: 'working',
    });
    await core.ok('memory.store', {
      content: 'Sourdough needs a warm kitchen and patience.',
      sessionId: 's1',
    });
    await core.ok('memory.store', {
      content: 'Retry rate limited requests after the Retry-After header.',
      sessionId: 's2',
    });

    const got = await core.ok('memory.get', { id: stored.id });
    expect(got).toMatchObject({
      id: stored.id,
      content: RATE,
      metadata: { source: 'web-research-session', tags: ['api'] },
      peerId: 'local',
      tier: 'working',
      sessionId: 's1',
      createdAt: '2026-03-17T08:30:00.000Z',
    });

    const list = await core.ok('memory.list', { sessionId: 's1' });
    expect(list.total).toBe(2);
    expect((list.memories as JsonObject[]).map((m) => m.content)).toEqual([
      RATE,
      'Sourdough needs a warm kitchen and patience.',
    ]);
    const page = await core.ok('memory.list', { sessionId: 's1', limit: 1, offset: 1 });
    expect(page.total).toBe(2);
    expect((page.memories as JsonObject[]).map((m) => m.content)).toEqual([
      'Sourdough needs a warm kitchen and patience.',
    ]);
    expect(await core.ok('memory.list', { sessionId: 'nobody' })).toEqual({ memories: [], total: 0 });

    const found = await core.ok('memory.search', { query: 'rate limited API retries', limit: 5 });
    const hits = found.memories as JsonObject[];
    expect(typeof found.searchTime).toBe('number');
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.map((h) => h.content)).not.toContain('Sourdough needs a warm kitchen and patience.');
    const sims = hits.map((h) => h.similarity as number);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    const inSession = await core.ok('memory.search', { query: 'rate limited API retries', sessionId: 's2' });
    expect((inSession.memories as JsonObject[]).map((m) => m.sessionId)).toEqual(['s2']);
    const strict = await core.ok('memory.search', { query: 'rate limited API retries', threshold: 0.99 });
    expect(strict.memories).toEqual([]);
    const exact = await core.ok('memory.search', { query: RATE, threshold: 0.99, limit: 1 });
    expect((exact.memories as JsonObject[])[0]).toMatchObject({ id: stored.id, similarity: 1 });
    await core.expectReplayMatches();
  });

  it('archives into the archival tier, searched by tier, and deletes', async () => {
    core = await startMemoryCore();
    const a = await core.ok('memory.store', { content: RATE });
    const b = await core.ok('memory.store', {
      content: 'Rate limited APIs answer 429 with Retry-After.',
      tier: 'archival',
    });
    expect(b.tier).toBe('archival');
    expect(await core.ok('memory.archive', { id: a.id })).toEqual({ archived: true, tier: 'archival' });
    expect(await core.ok('memory.archive', { id: a.id })).toEqual({ archived: false, tier: 'archival' });
    expect((await core.ok('memory.get', { id: a.id })).tier).toBe('archival');
    const working = await core.ok('memory.search', { query: 'rate limited APIs', tier: 'working' });
    expect(working.memories).toEqual([]);
    const archival = await core.ok('memory.search', { query: 'rate limited APIs', tier: 'archival' });
    expect((archival.memories as JsonObject[]).map((m) => m.id).sort()).toEqual([a.id, b.id].sort());

    const deletions = await Promise.all([1, 2, 3].map(() => core!.ok('memory.delete', { id: a.id })));
    expect(deletions.filter((d) => d.deleted === true)).toHaveLength(1);
    expect(await core.ok('memory.delete', { id: a.id })).toEqual({ deleted: false });
    expect((await core.fail('memory.get', { id: a.id })).code).toBe('NOT_FOUND');
    expect((await core.fail('memory.archive', { id: a.id })).code).toBe('NOT_FOUND');
    const after = await core.ok('memory.search', { query: 'rate limited APIs' });
    expect((after.memories as JsonObject[]).map((m) => m.id)).toEqual([b.id]);
    await core.expectReplayMatches();
  });

  it('keeps tenants apart', async () => {
    core = await startMemoryCore();
    const a = await core.ok('memory.store', { content: RATE, sessionId: 's' }, 'acme');
    expect((await core.fail('memory.get', { id: a.id }, 'globex')).code).toBe('NOT_FOUND');
    expect((await core.fail('memory.get', { id: a.id })).code).toBe('NOT_FOUND');
    expect(await core.ok('memory.delete', { id: a.id }, 'globex')).toEqual({ deleted: false });
    expect((await core.ok('memory.search', { query: RATE }, 'globex')).memories).toEqual([]);
    expect((await core.ok('memory.list', { sessionId: 's' }, 'globex')).total).toBe(0);
    expect(((await core.ok('memory.search', { query: RATE }, 'acme')).memories as JsonObject[]).length).toBe(
      1,
    );
    expect((await core.ok('memory.get', { id: a.id }, 'acme')).content).toBe(RATE);
  });

  it('rejects bad params with INVALID_PARAMS naming the field', async () => {
    core = await startMemoryCore();
    const cases: [string, object, string][] = [
      ['memory.store', {}, 'content'],
      ['memory.store', { content: '' }, '/content'],
      ['memory.store', { content: 'x', tier: 'hot' }, '/tier'],
      ['memory.store', { content: 'x', metadata: [] }, '/metadata'],
      ['memory.store', { content: 'x', sessionId: 7 }, '/sessionId'],
      ['memory.store', { content: 'x', metadata: { big: 'y'.repeat(20_000) } }, '/metadata'],
      ['memory.search', {}, 'query'],
      ['memory.search', { query: 'q', limit: 0 }, '/limit'],
      ['memory.search', { query: 'q', limit: 2.5 }, '/limit'],
      ['memory.search', { query: 'q', threshold: 1.5 }, '/threshold'],
      ['memory.search', { query: 'q', tier: 'cold' }, '/tier'],
      ['memory.search', { query: 'q', treshold: 0.5 }, 'treshold'],
      ['memory.get', {}, 'id'],
      ['memory.list', { limit: 5 }, 'sessionId'],
      ['memory.list', { sessionId: 's', offset: -1 }, '/offset'],
      ['memory.delete', { id: 5 }, '/id'],
      ['memory.archive', { id: '' }, '/id'],
    ];
    for (const [method, params, field] of cases) {
      const error = await core.fail(method, params);
      expect(error.code, `${method} ${JSON.stringify(params).slice(0, 60)}`).toBe('INVALID_PARAMS');
      expect(JSON.stringify(error.details ?? {}) + error.message, method).toContain(field);
    }
  });

  it('rebuilds memories and the index from a SQLite log after a restart', async () => {
    const { dir, remove } = await tempDir();
    try {
      const log = sqliteEventLog({ dir });
      await log.start();
      core = await startMemoryCore({ log });
      const kept = await core.ok('memory.store', { content: RATE, sessionId: 's' });
      const gone = await core.ok('memory.store', {
        content: 'Rate limits reset every minute.',
        sessionId: 's',
      });
      await core.ok('memory.delete', { id: gone.id });
      await core.ok('memory.archive', { id: kept.id });
      await core.expectReplayMatches();
      await core.close();
      await log.stop();

      const reopened = sqliteEventLog({ dir });
      await reopened.start();
      core = await startMemoryCore({ log: reopened });
      expect(core.memory.searchIndex()?.size).toBe(1);
      const found = await core.ok('memory.search', { query: RATE, tier: 'archival' });
      expect((found.memories as JsonObject[]).map((m) => m.id)).toEqual([kept.id]);
      expect((await core.ok('memory.list', { sessionId: 's' })).total).toBe(1);
      await core.expectReplayMatches();
      await core.close();
      core = undefined;
      await reopened.stop();
    } finally {
      await remove();
    }
  });

  it('exports the memories projection for replay and keeps vectors of the default embedder out of events', async () => {
    core = await startMemoryCore();
    await core.ok('memory.store', { content: RATE });
    expect(MEMORY_PROJECTIONS.map((p) => p.name)).toEqual(['memory.memories']);
    const events = await core.log.read({ afterSeq: 0, limit: 100 });
    const stored = events.find((e) => e.type === 'memory.stored');
    expect(stored?.data).toMatchObject({
      content: RATE,
      embedder: 'hashed-ngram-v1/256',
      peerId: 'local',
      replicas: [],
    });
    expect(Object.hasOwn(stored!.data as object, 'vector')).toBe(false);
  });
});

/** Simulated mesh peers: membership with availability, and replication that records copies. */
function simulatedPeers(
  ids: readonly string[],
): MemoryPeers & { down: Set<string>; copies: Map<string, string[]> } {
  const down = new Set<string>();
  const copies = new Map<string, string[]>();
  return {
    down,
    copies,
    members: () => ids.map((peerId) => ({ peerId, available: !down.has(peerId) })),
    replicate(peerId, memory) {
      if (down.has(peerId)) return Promise.reject(new Error(`${peerId} is down`));
      copies.set(peerId, [...(copies.get(peerId) ?? []), memory.id as string]);
      return Promise.resolve();
    },
  };
}

describe('memory primitive on a mesh', () => {
  let core: MemoryCore | undefined;
  afterEach(async () => {
    await core?.close();
    core = undefined;
  });

  it('places each memory on 3 distinct owners of the ring and copies it to the remote ones', async () => {
    const peers = simulatedPeers(['peer-b', 'peer-c', 'peer-d']);
    core = await startMemoryCore({ components: { peerId: 'peer-a', peers } });
    const owners = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const r = await core.ok('memory.store', { content: `note ${i}` });
      const all = [r.peerId as string, ...(r.replicas as string[])];
      expect(new Set(all).size).toBe(3);
      expect(all).toEqual(core.memory.placement.ring.owners(r.id as string));
      for (const p of all) owners.add(p);
      for (const p of all.filter((x) => x !== 'peer-a')) expect(peers.copies.get(p)).toContain(r.id);
      const got = await core.ok('memory.get', { id: r.id });
      expect(got.replicas).toEqual(r.replicas);
    }
    expect([...owners].sort()).toEqual(['peer-a', 'peer-b', 'peer-c', 'peer-d']);
  });

  it('fails with REPLICATION_FAILED and stores nothing when an owner is unavailable', async () => {
    const peers = simulatedPeers(['peer-b', 'peer-c']);
    peers.down.add('peer-c');
    core = await startMemoryCore({ components: { peerId: 'peer-a', peers } });
    const error = await core.fail('memory.store', { content: 'needs three copies' });
    expect(error.code).toBe('REPLICATION_FAILED');
    expect(error.details).toMatchObject({ required: 3, acknowledged: 2, unavailable: ['peer-c'] });
    expect(
      (await core.log.read({ afterSeq: 0, limit: 100 })).filter((e) => e.type === 'memory.stored'),
    ).toEqual([]);
    peers.down.clear();
    const ok = await core.ok('memory.store', { content: 'needs three copies' });
    expect(new Set([ok.peerId, ...(ok.replicas as string[])])).toEqual(
      new Set(['peer-a', 'peer-b', 'peer-c']),
    );
  });

  it('fails with REPLICATION_FAILED when a remote owner does not acknowledge', async () => {
    const peers = simulatedPeers(['peer-b', 'peer-c']);
    const replicate = peers.replicate.bind(peers);
    peers.replicate = (peerId, memory, o) =>
      peerId === 'peer-b' ? Promise.reject(new Error('disk full')) : replicate(peerId, memory, o);
    core = await startMemoryCore({ components: { peerId: 'peer-a', peers } });
    const error = await core.fail('memory.store', { content: 'x' });
    expect(error.code).toBe('REPLICATION_FAILED');
    expect(error.message).toContain('disk full');
    expect(error.details).toMatchObject({ unavailable: ['peer-b'] });
  });
});
