import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { STATE_PROJECTIONS, sessionsProjection } from '../../../src/primitives/state/index.js';
import { projectionText } from '../../../src/store/index.js';
import { expectSameShape, seedPairs, startCore, type Core } from '../shared/core-harness.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('state primitive', () => {
  let core: Core | undefined;
  afterEach(async () => {
    await core?.close();
    core = undefined;
  });

  it('answers every seed state request with the seed field names and types', async () => {
    core = await startCore();
    const pairs = seedPairs('state');
    expect(pairs.map((p) => p.request.method)).toEqual([
      'state.createSession',
      'state.createSession',
      'state.endSession',
    ]);
    let lastSession = '';
    for (const pair of pairs) {
      const params = { ...pair.request.params };
      if (typeof params.sessionId === 'string') params.sessionId = lastSession;
      const result = await core.ok(pair.request.method, params);
      expectSameShape(result, pair.response.result!);
      if (typeof result.sessionId === 'string') lastSession = result.sessionId;
    }
  });

  it('creates a session with a fresh id and the creation time, and describes it', async () => {
    core = await startCore({ time: Date.UTC(2026, 2, 18, 12, 0, 0) });
    const created = await core.ok('state.createSession', {
      agentName: 'web-researcher',
      agentType: 'autonomous',
      model: 'gemma-3-27b',
      metadata: { task: 'market-analysis' },
    });
    expect(created.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.createdAt).toBe('2026-03-18T12:00:00.000Z');
    const other = await core.ok('state.createSession', {});
    expect(other.sessionId).not.toBe(created.sessionId);
    const info = await core.ok('state.getSession', { sessionId: created.sessionId });
    expect(info).toEqual({
      sessionId: created.sessionId,
      status: 'active',
      agentName: 'web-researcher',
      agentType: 'autonomous',
      model: 'gemma-3-27b',
      metadata: { task: 'market-analysis' },
      createdAt: '2026-03-18T12:00:00.000Z',
      budget: 1,
      keys: [],
      episodes: [],
    });
  });

  it('takes a budget limit from createSession or the configured default', async () => {
    core = await startCore({ state: { defaultBudget: 2.5 } });
    const a = await core.ok('state.createSession', { budget: 0.25 });
    const b = await core.ok('state.createSession', {});
    expect((await core.ok('state.getSession', { sessionId: a.sessionId! })).budget).toBe(0.25);
    expect((await core.ok('state.getSession', { sessionId: b.sessionId! })).budget).toBe(2.5);
    const bad = await core.fail('state.createSession', { budget: 0.0000001 });
    expect(bad.code).toBe('INVALID_PARAMS');
    expect(bad.details?.field).toBe('budget');
  });

  it('stores and reads values per key, telling a stored null from a missing key', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {});
    expect(await core.ok('state.setState', { sessionId, key: 'plan', value: { steps: [1, 2] } })).toEqual({
      updated: true,
    });
    await core.ok('state.setState', { sessionId, key: 'plan', value: { steps: [3] } });
    await core.ok('state.setState', { sessionId, key: 'none', value: null });
    await core.ok('state.setState', { sessionId, key: '__proto__', value: 'data' });
    expect(await core.ok('state.getState', { sessionId, key: 'plan' })).toEqual({
      value: { steps: [3] },
      exists: true,
    });
    expect(await core.ok('state.getState', { sessionId, key: 'none' })).toEqual({
      value: null,
      exists: true,
    });
    expect(await core.ok('state.getState', { sessionId, key: 'missing' })).toEqual({
      value: null,
      exists: false,
    });
    expect(await core.ok('state.getState', { sessionId, key: '__proto__' })).toEqual({
      value: 'data',
      exists: true,
    });
    expect((await core.ok('state.getSession', { sessionId })).keys).toEqual(['plan', 'none', '__proto__']);
  });

  it('ends a session once, with its duration in ms, and refuses changes afterwards', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {});
    core.clock.now += 3420;
    expect(await core.ok('state.endSession', { sessionId })).toEqual({ ended: true, duration: 3420 });
    core.clock.now += 1000;
    expect(await core.ok('state.endSession', { sessionId })).toEqual({ ended: false, duration: 3420 });
    const info = await core.ok('state.getSession', { sessionId });
    expect(info).toMatchObject({ status: 'ended', duration: 3420, endedAt: '2026-03-18T12:00:03.420Z' });
    const refused = await core.fail('state.setState', { sessionId, key: 'k', value: 1 });
    expect(refused.code).toBe('PRECONDITION_FAILED');
    expect((await core.fail('state.recordEpisode', { sessionId, outcome: 'x', reward: 0 })).code).toBe(
      'PRECONDITION_FAILED',
    );
    // Reads still work on an ended session.
    expect(await core.ok('state.getState', { sessionId, key: 'k' })).toEqual({ value: null, exists: false });
  });

  it('records episodes with rewards from -1 to 1', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {});
    const a = await core.ok('state.recordEpisode', { sessionId, outcome: 'success', reward: 0.85 });
    const b = await core.ok('state.recordEpisode', { sessionId, outcome: 'failure', reward: -1 });
    await core.ok('state.recordEpisode', { sessionId, outcome: 'best', reward: 1 });
    expect(a.episodeId).not.toBe(b.episodeId);
    const info = await core.ok('state.getSession', { sessionId });
    expect(info.episodes).toEqual([
      { episodeId: a.episodeId, outcome: 'success', reward: 0.85, recordedAt: '2026-03-18T12:00:00.000Z' },
      { episodeId: b.episodeId, outcome: 'failure', reward: -1, recordedAt: '2026-03-18T12:00:00.000Z' },
      expect.objectContaining({ outcome: 'best', reward: 1 }),
    ]);
  });

  it('refuses a reward outside [-1, 1] with -32602 naming reward', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {});
    for (const reward of [1.5, -1.01, 'high']) {
      const error = await core.fail('state.recordEpisode', { sessionId, outcome: 'success', reward });
      expect(error.code).toBe('INVALID_PARAMS');
      expect(JSON.stringify(error.details)).toContain('/reward');
      expect(error.message).toContain('reward');
    }
  });

  it('answers SESSION_NOT_FOUND for an unknown session on every method', async () => {
    core = await startCore();
    const calls: [string, Record<string, unknown>][] = [
      ['state.getSession', { sessionId: UNKNOWN }],
      ['state.setState', { sessionId: UNKNOWN, key: 'k', value: 1 }],
      ['state.getState', { sessionId: UNKNOWN, key: 'k' }],
      ['state.endSession', { sessionId: UNKNOWN }],
      ['state.recordEpisode', { sessionId: UNKNOWN, outcome: 'x', reward: 0 }],
    ];
    for (const [method, params] of calls) {
      const error = await core.fail(method, params);
      expect(error.code, method).toBe('SESSION_NOT_FOUND');
      expect(error.details).toEqual({ sessionId: UNKNOWN });
    }
  });

  it('refuses bad params with INVALID_PARAMS naming the field', async () => {
    core = await startCore();
    const cases: [string, Record<string, unknown>, string][] = [
      ['state.createSession', { agentName: 7 }, '/agentName'],
      ['state.createSession', { metadata: 'x' }, '/metadata'],
      ['state.createSession', { agentNmae: 'typo' }, 'agentNmae'],
      ['state.getSession', {}, 'sessionId'],
      ['state.setState', { sessionId: 's', key: 'k' }, 'value'],
      ['state.setState', { sessionId: 's', key: '', value: 1 }, '/key'],
      ['state.recordEpisode', { sessionId: 's', reward: 0 }, 'outcome'],
    ];
    for (const [method, params, field] of cases) {
      const error = await core.fail(method, params);
      expect(error.code, `${method} ${JSON.stringify(params)}`).toBe('INVALID_PARAMS');
      expect(JSON.stringify(error.details), method).toContain(field);
    }
  });

  it('hides a session from other tenants', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {}, { tenant: 'acme' });
    expect((await core.ok('state.getSession', { sessionId }, { tenant: 'acme' })).sessionId).toBe(sessionId);
    expect((await core.fail('state.getSession', { sessionId }, { tenant: 'other' })).code).toBe(
      'SESSION_NOT_FOUND',
    );
    expect((await core.fail('state.getSession', { sessionId })).code).toBe('SESSION_NOT_FOUND');
  });

  it('enforces the key count, value size and metadata size limits', async () => {
    core = await startCore({ state: { maxKeys: 2, maxValueLength: 20, maxMetadataLength: 20 } });
    const { sessionId } = await core.ok('state.createSession', {});
    await core.ok('state.setState', { sessionId, key: 'a', value: 1 });
    await core.ok('state.setState', { sessionId, key: 'b', value: 2 });
    await core.ok('state.setState', { sessionId, key: 'a', value: 3 }); // an existing key is fine
    expect((await core.fail('state.setState', { sessionId, key: 'c', value: 1 })).code).toBe(
      'PRECONDITION_FAILED',
    );
    const big = await core.fail('state.setState', { sessionId, key: 'a', value: 'x'.repeat(30) });
    expect(big.code).toBe('INVALID_PARAMS');
    expect(big.details?.field).toBe('value');
    const meta = await core.fail('state.createSession', { metadata: { text: 'y'.repeat(30) } });
    expect(meta.details?.field).toBe('metadata');
  });

  it('serialises concurrent writers of one session without losing any', async () => {
    core = await startCore();
    const { sessionId } = await core.ok('state.createSession', {});
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => core!.ok('state.setState', { sessionId, key: `k${i}`, value: i })),
    );
    expect((await core.ok('state.getSession', { sessionId })).keys).toHaveLength(20);
  });

  for (const backend of ['memory', 'sqlite'] as const) {
    it(`rebuilds the sessions projection from the log exactly (${backend})`, async () => {
      core = await startCore({ backend });
      const { sessionId } = await core.ok('state.createSession', { agentName: 'a', metadata: { n: 1 } });
      await core.ok('state.setState', { sessionId, key: 'x', value: [1, { y: 'z' }] });
      await core.ok('state.recordEpisode', { sessionId, outcome: 'ok', reward: -0.5 });
      core.clock.now += 10;
      await core.ok('state.endSession', { sessionId });
      await core.expectReplayMatches();
      expect(STATE_PROJECTIONS).toContain(sessionsProjection);
    });
  }

  it('keeps sessions across a restart of a SQLite-backed node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plexus-state-'));
    try {
      core = await startCore({ dir });
      const { sessionId } = await core.ok('state.createSession', { model: 'm' });
      await core.ok('state.setState', { sessionId, key: 'k', value: 'v' });
      const before = projectionText(sessionsProjection, core.state.views[0]!.state() as never);
      await core.close();
      core = await startCore({ dir });
      expect(await core.ok('state.getState', { sessionId, key: 'k' })).toEqual({ value: 'v', exists: true });
      expect(projectionText(sessionsProjection, core.state.views[0]!.state() as never)).toBe(before);
    } finally {
      await core?.close();
      core = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('round-trips its state through the JSON form', () => {
    const state = sessionsProjection.initial();
    const event = (seq: number, type: string, data: Record<string, unknown>, tenant?: string) =>
      ({
        seq,
        cid: `c${seq}`,
        prev: null,
        type,
        data,
        time: '2026-01-01T00:00:00.000Z',
        ...(tenant ? { tenant } : {}),
      }) as never;
    sessionsProjection.apply(
      state,
      event(1, 'state.session_created', { sessionId: 's', at: 1, budget: 5, peerId: 'p' }, 't'),
    );
    sessionsProjection.apply(
      state,
      event(2, 'state.state_set', { sessionId: 's', key: '__proto__', value: { a: 1 }, at: 2 }),
    );
    sessionsProjection.apply(
      state,
      event(3, 'state.state_set', { sessionId: 'unknown', key: 'k', value: 1, at: 2 }),
    );
    const json = sessionsProjection.toJson!(state);
    const back = sessionsProjection.fromJson!(JSON.parse(JSON.stringify(json)) as JsonValue);
    expect(projectionText(sessionsProjection, back)).toBe(projectionText(sessionsProjection, state));
    expect(back.sessions.get('s')?.state.get('__proto__')).toEqual({ a: 1 });
    expect(back.sessions.get('s')?.tenant).toBe('t');
  });
});
