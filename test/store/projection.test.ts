import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { sha256Hex } from '../../src/core/hash.js';
import type { JsonValue } from '../../src/core/json.js';
import {
  fileSnapshotStore,
  firstDifference,
  memoryEventLog,
  memorySnapshotStore,
  projectionText,
  projectionView,
  rebuildProjection,
  verifyProjectionSnapshot,
  verifyProjectionView,
  type AnyEvents,
  type EventLog,
  type Projection,
} from '../../src/store/index.js';
import { codeOf, ev } from './event-log-harness.js';

/** Counts events per type: plain JSON state. */
const countByType = (): Projection<Record<string, number>> & { calls: number } => {
  const p = {
    name: 'counts',
    calls: 0,
    initial: () => ({}) as Record<string, number>,
    apply(state: Record<string, number>, event: { type: string }) {
      p.calls++;
      return { ...state, [event.type]: (state[event.type] ?? 0) + 1 };
    },
  };
  return p;
};

/** Jobs by id in a Map, mutated in place: needs toJson / fromJson. */
const jobs: Projection<Map<string, string>> = {
  name: 'jobs',
  version: 2,
  filter: { typePrefix: 'job.' },
  initial: () => new Map(),
  apply(state, event) {
    const { id } = event.data as { id: string };
    state.set(id, event.type.slice('job.'.length));
    return state;
  },
  toJson: (state) => Object.fromEntries(state),
  fromJson: (json) => new Map(Object.entries(json as Record<string, string>)),
};

describe('projections', () => {
  let log: EventLog<AnyEvents>;
  beforeEach(async () => {
    log = memoryEventLog({ pageSize: 2 });
    await log.start();
    await log.append([
      ev('job.submitted', { id: 'a' }),
      ev('agent.registered', { id: 'x' }),
      ev('job.submitted', { id: 'b' }),
      ev('job.completed', { id: 'a' }),
    ]);
  });
  afterEach(async () => {
    await log.stop();
  });

  describe('rebuildProjection', () => {
    it('folds the whole log through the filter, across pages', async () => {
      const result = await rebuildProjection(log, jobs, { pageSize: 3 });
      expect(result.seq).toBe(4);
      expect(Object.fromEntries(result.state)).toEqual({ a: 'completed', b: 'submitted' });
    });

    it('stops at untilSeq and reports the last event folded', async () => {
      const result = await rebuildProjection(log, countByType(), { untilSeq: 2, pageSize: 1 });
      expect(result).toEqual({ seq: 2, state: { 'job.submitted': 1, 'agent.registered': 1 } });
      expect((await rebuildProjection(log, countByType(), { untilSeq: 99 })).seq).toBe(4);
    });

    it('names the projection and the event when the reducer throws', async () => {
      const broken: Projection<number> = {
        name: 'broken',
        initial: () => 0,
        apply: (n, e) => {
          if (e.seq === 3) throw new Error('boom');
          return n + 1;
        },
      };
      const error = await rebuildProjection(log, broken).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlexusError);
      expect((error as Error).message).toMatch(/broken failed at event seq 3 \(job\.submitted\): boom/);
    });

    it('refuses a bad projection name and a state that is not JSON', async () => {
      expect(await codeOf(rebuildProjection(log, { ...countByType(), name: 'Bad Name' }))).toBe(
        'INVALID_PARAMS',
      );
      expect(() => projectionText(countByType(), { a: Number.NaN })).toThrow(/not JSON/);
      expect(() =>
        projectionText({ ...jobs, toJson: undefined } as unknown as Projection<unknown>, new Map()),
      ).toThrow(/toJson/);
    });
  });

  describe('projectionView', () => {
    it('catches up at start, follows appends, and waits for a seq', async () => {
      const view = projectionView({ log, projection: jobs });
      await view.start();
      expect(view.position()).toBe(4);
      expect(view.state().get('a')).toBe('completed');
      const e = await log.append(ev('job.started', { id: 'b' }));
      await view.waitFor(e.seq);
      expect(view.state().get('b')).toBe('started');
      const other = await log.append(ev('agent.gone', { id: 'x' }));
      await view.waitFor(other.seq);
      expect(view.position()).toBe(other.seq);
      await view.stop();
      await view.stop();
      expect(await codeOf(view.waitFor(100))).toBe('UNAVAILABLE');
    });

    it('matches a rebuild from scratch (replay --verify)', async () => {
      const view = projectionView({ log, projection: jobs });
      await view.start();
      await log.append(ev('job.failed', { id: 'b' }));
      await view.waitFor(5);
      const check = await verifyProjectionView(log, view);
      expect(check).toMatchObject({ name: 'jobs', ok: true, seq: 5 });
      expect(check.expected).toBe(check.actual);
      await view.stop();
    });

    it('catches a reducer that is not deterministic, naming the first difference', async () => {
      let flips = 0;
      const impure: Projection<Record<string, number>> = {
        name: 'impure',
        initial: () => ({}),
        apply: (s, e) => ({ ...s, [e.type]: flips++ }),
      };
      const view = projectionView({ log, projection: impure });
      await view.start();
      const check = await verifyProjectionView(log, view);
      expect(check.ok).toBe(false);
      expect(check.difference).toBe('/agent.registered');
      expect(check.expected).not.toBe(check.actual);
      await view.stop();
    });

    it('fails waiters with the reducer error and stops following', async () => {
      const picky: Projection<number> = {
        name: 'picky',
        initial: () => 0,
        apply: (n, e) => {
          if (e.type === 'bad.event') throw new Error('cannot fold');
          return n + 1;
        },
      };
      const view = projectionView({ log, projection: picky });
      await view.start();
      const bad = await log.append(ev('bad.event', 1));
      const error = await view.waitFor(bad.seq).catch((e: unknown) => e);
      expect((error as PlexusError).code).toBe('INTERNAL');
      expect((error as Error).message).toMatch(/picky failed at event seq 5/);
      await view.stop();
    });

    it('honours an aborted wait', async () => {
      const view = projectionView({ log, projection: jobs });
      await view.start();
      const ac = new AbortController();
      const waiting = view.waitFor(50, { signal: ac.signal });
      ac.abort();
      expect(await codeOf(waiting)).toBe('CANCELLED');
      await view.stop();
    });
  });

  describe('snapshots', () => {
    it('saves at stop and restarts from the snapshot, folding only newer events', async () => {
      const snapshots = memorySnapshotStore();
      const first = countByType();
      const view = projectionView({ log, projection: first, snapshots, snapshotEvery: 0 });
      await view.start();
      await view.stop();
      expect(first.calls).toBe(4);
      expect(await snapshots.list()).toEqual(['counts']);
      await log.append(ev('job.submitted', { id: 'c' }));
      const second = countByType();
      const again = projectionView({ log, projection: second, snapshots });
      await again.start();
      expect(second.calls).toBe(1);
      expect(again.state()).toEqual({ 'job.submitted': 3, 'agent.registered': 1, 'job.completed': 1 });
      expect((await verifyProjectionView(log, again)).ok).toBe(true);
      await again.stop();
    });

    it('saves every N events while following', async () => {
      const snapshots = memorySnapshotStore();
      const view = projectionView({ log, projection: jobs, snapshots, snapshotEvery: 2 });
      await view.start();
      await log.append([ev('job.x', { id: 'z' }), ev('job.y', { id: 'z' })]);
      await view.waitFor(6);
      await new Promise((r) => setTimeout(r, 5));
      expect((await snapshots.load('jobs'))?.seq).toBeGreaterThanOrEqual(4);
      await view.stop();
      expect((await snapshots.load('jobs'))?.seq).toBe(6);
    });

    it('counts only the events its filter lets through towards the next snapshot', async () => {
      const snapshots = memorySnapshotStore();
      const saved: number[] = [];
      const counting = {
        ...snapshots,
        save: (s: Parameters<typeof snapshots.save>[0]) => (saved.push(s.seq), snapshots.save(s)),
      };
      const view = projectionView({ log, projection: jobs, snapshots: counting, snapshotEvery: 2 });
      await view.start();
      await new Promise((r) => setTimeout(r, 5));
      saved.length = 0; // what catching up with the log's first events saved
      // 20 events the filter (job.*) passes by: no snapshot, however many
      const other = await log.append(Array.from({ length: 20 }, (_, i) => ev('agent.seen', { id: `a${i}` })));
      await view.waitFor(other[other.length - 1]!.seq);
      await new Promise((r) => setTimeout(r, 5));
      expect(saved).toEqual([]);
      expect(view.position()).toBe(other[other.length - 1]!.seq);
      // two applied events: one snapshot, at one of them (catching up left the count at 0 or 1)
      const first = await log.append(ev('job.x', { id: 'p' }));
      const second = await log.append(ev('job.y', { id: 'q' }));
      await view.waitFor(second.seq);
      await new Promise((r) => setTimeout(r, 5));
      expect(saved).toHaveLength(1);
      expect([first.seq, second.seq]).toContain(saved[0]);
      await view.stop();
    });

    it('ignores a snapshot of another log, of another version, or with a wrong digest', async () => {
      const snapshots = memorySnapshotStore();
      const view = projectionView({ log, projection: jobs, snapshots });
      await view.start();
      await view.stop();
      const good = (await snapshots.load('jobs'))!;
      const variants = [
        { ...good, cid: 'bagaaieraxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' },
        { ...good, version: 1 },
        { ...good, state: { a: 'forged' } },
      ];
      for (const variant of variants) {
        await snapshots.save(variant);
        const counted = countByType();
        const probe = projectionView({
          log,
          projection: { ...jobs, apply: (s, e) => (counted.calls++, jobs.apply(s, e)) },
          snapshots,
        });
        await probe.start();
        expect(counted.calls).toBe(3);
        expect(Object.fromEntries(probe.state())).toEqual({ a: 'completed', b: 'submitted' });
        await probe.stop();
        expect((await verifyProjectionSnapshot(log, jobs, variant)).ok).toBe(false);
      }
      expect((await verifyProjectionSnapshot(log, jobs, (await snapshots.load('jobs'))!)).ok).toBe(true);
    });

    it('verifies a snapshot whose state was changed consistently (digest recomputed)', async () => {
      const view = projectionView({ log, projection: jobs });
      await view.start();
      const snap = view.snapshot();
      await view.stop();
      const forgedState = { a: 'completed', b: 'failed' } as JsonValue;
      const forged = { ...snap, state: forgedState, sha256: sha256Hex(JSON.stringify(forgedState)) };
      const check = await verifyProjectionSnapshot(log, jobs, forged);
      expect(check).toMatchObject({ ok: false, difference: '/b' });
    });
  });

  it('firstDifference walks keys in order and reports the first differing pointer', () => {
    expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBeUndefined();
    expect(firstDifference({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] })).toBe('/b/1');
    expect(firstDifference({ a: 1 }, { a: 1, c: 2 })).toBe('/c');
    expect(firstDifference([1], { 0: 1 })).toBe('/');
    expect(firstDifference({ 'x/y': 1 }, { 'x/y': 2 })).toBe('/x~1y');
  });
});

describe('fileSnapshotStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-snapshots-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores, lists and loads snapshots as <dir>/projections/<name>.json', async () => {
    const store = fileSnapshotStore({ dir });
    expect(await store.list()).toEqual([]);
    expect(await store.load('jobs')).toBeUndefined();
    const snap = { name: 'jobs', version: 1, seq: 0, cid: null, sha256: 'ab', state: { x: 1 } };
    await store.save(snap);
    await store.save({ ...snap, name: 'registry.cards' });
    expect(await store.list()).toEqual(['jobs', 'registry.cards']);
    expect(await store.load('jobs')).toEqual(snap);
  });

  it('refuses names that could escape the directory, and reports damaged files', async () => {
    const store = fileSnapshotStore({ dir });
    expect(await codeOf(store.load('../x'))).toBe('INVALID_PARAMS');
    await store.save({ name: 'jobs', version: 1, seq: 0, cid: null, sha256: 'ab', state: null });
    await writeFile(join(dir, 'projections', 'jobs.json'), '{"name":');
    expect(await codeOf(store.load('jobs'))).toBe('INTERNAL');
    await writeFile(join(dir, 'projections', 'jobs.json'), '{"name":"jobs"}');
    expect(await codeOf(store.load('jobs'))).toBe('INTERNAL');
  });
});
