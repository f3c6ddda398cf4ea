import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import {
  IMPROVING_PROJECTIONS,
  improvingPrimitive,
  type ImprovingInit,
  type ImprovingPrimitive,
  type TrajectoryPublisher,
} from '../../../src/primitives/improving/index.js';
import { sqliteEventLog } from '../../../src/store/index.js';
import type { Projection } from '../../../src/store/projection.js';
import { tempDir } from '../../runtime/helpers.js';
import { startPrimitive, text, type PrimitiveHarness } from '../learning/harness.js';

const PROJECTIONS = IMPROVING_PROJECTIONS as unknown as readonly Projection<unknown>[];
let h: PrimitiveHarness | undefined;
let improving: ImprovingPrimitive | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
  await cleanup?.();
  cleanup = undefined;
});

async function start(init: ImprovingInit = {}): Promise<PrimitiveHarness> {
  h = await startPrimitive(
    (c) => {
      improving = improvingPrimitive(c, init);
      return improving;
    },
    { now: () => Date.UTC(2026, 2, 18, 14) },
  );
  return h;
}

const step = (action: string, tool: string, duration: number, extra: JsonObject = {}): JsonObject => ({
  action,
  tool,
  duration,
  ...extra,
});
const SEARCH = [step('search', 'web-search', 300), step('synthesize', 'summarizer', 700)];

function traj(
  query: string,
  reward: number,
  steps: JsonObject[] = SEARCH,
  extra: JsonObject = {},
): JsonObject {
  return {
    taskType: 'web-research',
    input: { query },
    output: { summary: `about ${query}` },
    steps,
    reward,
    ...extra,
  };
}

const record = async (p: PrimitiveHarness, params: JsonObject, tenantId?: string): Promise<string> =>
  text(
    (await p.ok('improving.recordTrajectory', params, tenantId === undefined ? {} : { tenantId }))[
      'trajectoryId'
    ],
  );

describe('improving.recordTrajectory', () => {
  it('stores a trajectory as SUCCESS or FAILED by reward, with a traj- id', async () => {
    const p = await start();
    const ok = await p.ok('improving.recordTrajectory', traj('batteries', 0.88));
    expect(ok).toMatchObject({ state: 'SUCCESS', gossipedTo: 0 });
    expect(ok['trajectoryId']).toMatch(/^traj-[0-9a-f]{8}$/);
    expect((await p.ok('improving.recordTrajectory', traj('fusion', 0.2)))['state']).toBe('FAILED');
    expect((await p.ok('improving.recordTrajectory', traj('edge', 0.5)))['state']).toBe('SUCCESS');
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('redacts personal data before storing and before gossiping', async () => {
    const published: { topic: string; message: JsonObject }[] = [];
    const publisher: TrajectoryPublisher = {
      publish(topic, message) {
        published.push({ topic, message });
        return Promise.resolve(14);
      },
    };
    const p = await start({ publisher, peerId: 'peer-a' });
    const result = await p.ok(
      'improving.recordTrajectory',
      traj(
        'mail ada@example.org about the launch',
        0.9,
        [
          step('lookup', 'crm', 20, {
            params: { phone: '+44 20 7946 0958' },
            result: { key: 'AKIAIOSFODNN7EXAMPLE' },
          }),
        ],
        { metadata: { owner: 'bob@example.com', totalDuration: 20 } },
      ),
    );
    expect(result['gossipedTo']).toBe(14);
    const everything = JSON.stringify([await p.log.read({ typePrefix: 'improving.' }), published]);
    for (const secret of ['ada@example.org', '7946 0958', 'AKIAIOSFODNN7EXAMPLE', 'bob@example.com']) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).toContain('[REDACTED:email]');
    expect(published).toHaveLength(1);
    expect(published[0]?.topic).toBe('hyperspace/trajectories/web-research');
    expect(published[0]?.message).toMatchObject({
      trajectoryId: result['trajectoryId'],
      peerId: 'peer-a',
      reward: 0.9,
    });
    const stats = await p.ok('improving.getLibraryStats', {});
    expect(stats['topContributors']).toEqual([{ peerId: 'peer-a', count: 1, avgReward: 0.9 }]);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('keeps the trajectory when publishing fails, and never publishes one marked share: false', async () => {
    let calls = 0;
    const publisher: TrajectoryPublisher = {
      publish() {
        calls++;
        return Promise.reject(new Error('no mesh peers'));
      },
    };
    const p = await start({ publisher });
    const result = await p.ok('improving.recordTrajectory', traj('a', 0.9));
    expect(result['gossipedTo']).toBe(0);
    const [gossiped] = await p.log.read({ type: 'improving.trajectory_gossiped' });
    expect(gossiped?.data).toMatchObject({ gossipedTo: 0, error: 'no mesh peers' });
    await p.ok('improving.recordTrajectory', traj('b', 0.9, SEARCH, { metadata: { share: false } }));
    expect(calls).toBe(1);
    expect((await p.ok('improving.getLibraryStats', {}))['total']).toBe(2);
  });

  it('answers the same id for the same trajectory recorded twice', async () => {
    const p = await start();
    const a = await record(p, traj('same', 0.7));
    const b = await record(p, traj('same', 0.7));
    expect(b).toBe(a);
    expect(await p.log.read({ type: 'improving.trajectory_recorded' })).toHaveLength(1);
  });

  it('gives distinct ids to concurrent recordings', async () => {
    const p = await start();
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => record(p, traj(`q${i}`, 0.8))));
    expect(new Set(ids).size).toBe(12);
    expect((await p.ok('improving.getLibraryStats', { taskType: 'web-research' }))['total']).toBe(12);
  });

  it('evicts the lowest-utility trajectory beyond maxLibrarySize', async () => {
    const p = await start({ maxLibrarySize: 2 });
    const low = await record(p, traj('low', 0.1));
    const high = await record(p, traj('high', 0.9));
    const third = await record(p, traj('mid', 0.6));
    const ex = await p.ok('improving.getExemplars', {
      taskType: 'web-research',
      strategy: 'ACCUMULATE',
      limit: 10,
    });
    expect((ex['exemplars'] as JsonObject[]).map((e) => e['trajectoryId']).sort()).toEqual(
      [high, third].sort(),
    );
    expect(ex['librarySize']).toBe(2);
    expect(low).not.toBe(third);
    await p.assertReplayEquals(PROJECTIONS);
  });

  const rejected: [string, string, JsonObject][] = [
    ['no steps', '/steps', traj('x', 0.5, [])],
    ['a step without action', '/steps/0/action', traj('x', 0.5, [{ tool: 'web' }])],
    ['a negative duration', '/steps/0/duration', traj('x', 0.5, [step('a', 'b', -1)])],
    ['a reward above 1', '/reward', traj('x', 1.5)],
    ['a negative reward', '/reward', traj('x', -0.1)],
    [
      'a negative totalDuration',
      '/metadata/totalDuration',
      traj('x', 0.5, SEARCH, { metadata: { totalDuration: -5 } }),
    ],
    [
      'too many steps',
      '/steps',
      traj(
        'x',
        0.5,
        Array.from({ length: 1001 }, () => ({ action: 'a' })),
      ),
    ],
    ['an oversized trajectory', '', traj('x'.repeat(300_000), 0.5)],
  ];
  it.each(rejected)('rejects %s with TRAJECTORY_REJECTED naming %j', async (_what, pointer, params) => {
    const p = h ?? (await start());
    const error = await p.fail('improving.recordTrajectory', params);
    expect(error.code).toBe('TRAJECTORY_REJECTED');
    const problems = error.details?.['problems'] as { pointer: string }[];
    expect(problems.map((x) => x.pointer)).toContain(pointer);
    expect(await p.log.read({ typePrefix: 'improving.' })).toHaveLength(0);
  });
});

describe('improving bad params', () => {
  const cases: [string, JsonValue, string][] = [
    ['improving.recordTrajectory', { ...traj('x', 0.5), steps: 'search' }, '/steps'],
    ['improving.recordTrajectory', { ...traj('x', 0.5), reward: 'high' }, '/reward'],
    ['improving.recordTrajectory', { ...traj('x', 0.5), taskType: 'bad type!' }, '/taskType'],
    ['improving.recordTrajectory', { input: {}, output: {}, steps: [], reward: 1 }, 'taskType'],
    ['improving.recordTrajectory', { ...traj('x', 0.5), metadata: [] }, '/metadata'],
    ['improving.recordTrajectory', { ...traj('x', 0.5), steps: ['search'] }, '/steps/0'],
    ['improving.getExemplars', { taskType: 'web-research', limit: 0 }, '/limit'],
    ['improving.getExemplars', { taskType: 'web-research', strategy: 'BEST' }, '/strategy'],
    ['improving.getExemplars', { taskType: 'web-research', minReward: 2 }, '/minReward'],
    ['improving.curate', { taskType: 'web-research', strategy: 'ALL' }, '/strategy'],
    ['improving.augment', { trajectoryId: 'traj-00000000', mode: 'MORE' }, '/mode'],
    ['improving.augment', {}, 'trajectoryId'],
    ['improving.assessDifficulty', { taskType: 'web-research' }, 'input'],
    ['improving.assessDifficulty', { taskType: 'web-research', input: {}, samples: 0 }, '/samples'],
    ['improving.getLibraryStats', { taskType: 7 }, '/taskType'],
  ];
  it.each(cases)('%s %j → INVALID_PARAMS naming %s', async (method, params, field) => {
    const p = await start();
    const error = await p.fail(method, params);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(JSON.stringify(error.details)).toContain(field);
  });
});

describe('improving.getExemplars', () => {
  it('scores utility as documented: 0.6 reward + 0.2 efficiency + 0.2 reputation', async () => {
    const p = await start();
    await record(p, traj('batteries', 0.88));
    const result = await p.ok('improving.getExemplars', {
      taskType: 'web-research',
      strategy: 'EXEMPLAR_LEVEL',
    });
    const [only] = result['exemplars'] as JsonObject[];
    // efficiency 1 (its own duration is the median); reputation (0.88 + 1) / 3
    expect(only?.['utilityScore']).toBe(Math.round((0.6 * 0.88 + 0.2 + (0.2 * 1.88) / 3) * 10_000) / 10_000);
    expect(only?.['steps']).toEqual([
      { action: 'search', tool: 'web-search', duration: 300 },
      { action: 'synthesize', tool: 'summarizer', duration: 700 },
    ]);
    expect(only).toMatchObject({
      usageCount: 1,
      peerId: 'local',
      reward: 0.88,
      input: { query: 'batteries' },
    });
    expect(result).toMatchObject({ librarySize: 1, avgReward: 0.88 });
  });

  it('orders by strategy and filters by minReward, never serving failures', async () => {
    const p = await start();
    const slow = [step('search', 'web-search', 3000), step('synthesize', 'summarizer', 7000)];
    const other = [step('ask', 'expert-panel', 900)];
    const a = await record(p, traj('alpha', 0.95)); // best utility
    const b = await record(p, traj('alpha', 0.9, [...SEARCH, step('check', 'verifier', 1)])); // similar to a
    const c = await record(p, traj('gamma', 0.8, other)); // a different path
    const d = await record(p, traj('delta', 0.7, slow)); // same labels as a, slow
    await record(p, traj('failed', 0.1));
    const ids = async (params: JsonObject): Promise<string[]> =>
      (
        (await p.ok('improving.getExemplars', { taskType: 'web-research', ...params }))[
          'exemplars'
        ] as JsonObject[]
      ).map((e) => text(e['trajectoryId']));
    expect(await ids({ strategy: 'ACCUMULATE', limit: 10 })).toEqual([d, c, b, a]);
    expect(await ids({ strategy: 'EXEMPLAR_LEVEL', limit: 2 })).toEqual([a, b]);
    expect(await ids({ strategy: 'DATABASE_LEVEL', limit: 10 })).toEqual([a, b, c]);
    expect(await ids({ strategy: 'HYBRID', limit: 2 })).toEqual([a, c]);
    expect(await ids({ strategy: 'EXEMPLAR_LEVEL', limit: 10, minReward: 0.85 })).toEqual([a, b]);
    const all = await p.ok('improving.getExemplars', {
      taskType: 'web-research',
      strategy: 'EXEMPLAR_LEVEL',
      limit: 1,
    });
    // a was served by every call above
    expect((all['exemplars'] as JsonObject[])[0]).toMatchObject({ trajectoryId: a, usageCount: 6 });
    expect(all).toMatchObject({ librarySize: 5, avgReward: 0.69 });
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('answers an empty list for an unknown task type and appends nothing', async () => {
    const p = await start();
    expect(await p.ok('improving.getExemplars', { taskType: 'nothing' })).toEqual({
      exemplars: [],
      librarySize: 0,
      avgReward: 0,
    });
    expect(await p.log.read({ typePrefix: 'improving.' })).toHaveLength(0);
  });
});

describe('improving.curate', () => {
  it('applies each strategy', async () => {
    const p = await start({ keepPerPath: 1 });
    const good = await record(p, traj('one', 0.9));
    await record(p, traj('two', 0.8)); // same path as good: over keepPerPath
    await record(p, traj('three', 0.1)); // FAILED
    await record(p, traj('four', 0.55, [step('guess', 'none', 10)])); // its own path: kept
    await record(p, { ...traj('other', 0.9), taskType: 'coding' });
    expect(await p.ok('improving.curate', { taskType: 'web-research', strategy: 'ACCUMULATE' })).toEqual({
      kept: 4,
      pruned: 0,
      librarySize: 5,
    });
    expect(await p.ok('improving.curate', { taskType: 'web-research', strategy: 'DATABASE_LEVEL' })).toEqual({
      kept: 2,
      pruned: 2,
      librarySize: 3,
    });
    const stats = await p.ok('improving.getLibraryStats', { taskType: 'web-research' });
    expect(stats['byState']).toEqual({ PENDING: 0, SUCCESS: 2, FAILED: 0, AUGMENTED: 0 });
    const ex = await p.ok('improving.getExemplars', { taskType: 'web-research', strategy: 'EXEMPLAR_LEVEL' });
    expect((ex['exemplars'] as JsonObject[])[0]?.['trajectoryId']).toBe(good);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('prunes low utility at EXEMPLAR_LEVEL but keeps augmented trajectories', async () => {
    const p = await start();
    await record(p, traj('fine', 0.9));
    await record(p, traj('weak', 0.1));
    const fixed = await record(p, traj('fixed', 0.05, [step('search', 'web-search', 10)]));
    await p.ok('improving.augment', { trajectoryId: fixed });
    const result = await p.ok('improving.curate', { taskType: 'web-research', strategy: 'EXEMPLAR_LEVEL' });
    expect(result).toEqual({ kept: 2, pruned: 1, librarySize: 2 });
    const stats = await p.ok('improving.getLibraryStats', {});
    expect(stats['byState']).toEqual({ PENDING: 0, SUCCESS: 1, FAILED: 0, AUGMENTED: 1 });
  });
});

describe('improving.augment', () => {
  it('gives feedback against the best attempt, then a revised path, once', async () => {
    const p = await start();
    const best = await record(
      p,
      traj('batteries', 0.9, [step('search', 'web-search', 300), step('synthesize', 'summarizer', 700)]),
    );
    const bad = await record(
      p,
      traj('batteries again', 0.2, [
        step('search', 'web-search', 900),
        step('scrape', 'browser', 50, { error: 'HTTP 403' }),
        step('scrape', 'browser', 50),
      ]),
    );
    const first = await p.ok('improving.augment', { trajectoryId: bad, mode: 'FEEDBACK_ONLY' });
    expect(first['augmented']).toBe(true);
    expect(first['newState']).toBe('AUGMENTED');
    expect(first['revisedSteps']).toBeUndefined();
    expect(first['feedback']).toEqual([
      `Reward 0.20 against 0.90 for the best recorded attempt ${best}.`,
      `Missing step: synthesize (summarizer), which ${best} ran.`,
      `Extra step: scrape (browser), not in ${best}.`,
      `search (web-search) took 900 ms, 3.0× the 300 ms of ${best}.`,
      'Step 2 scrape (browser) failed: HTTP 403.',
      'scrape (browser) ran 2 times; refine it instead of repeating it.',
    ]);
    const second = await p.ok('improving.augment', { trajectoryId: bad });
    expect(second['revisedSteps']).toEqual([
      { action: 'search', tool: 'web-search', duration: 300 },
      { action: 'synthesize', tool: 'summarizer', duration: 700 },
    ]);
    expect(await p.ok('improving.augment', { trajectoryId: bad })).toEqual({
      augmented: false,
      newState: 'AUGMENTED',
    });
    const ex = await p.ok('improving.getExemplars', { taskType: 'web-research', strategy: 'ACCUMULATE' });
    const augmented = (ex['exemplars'] as JsonObject[]).find((e) => e['trajectoryId'] === bad);
    expect(augmented?.['state']).toBe('AUGMENTED');
    expect((augmented?.['feedback'] as string[]).length).toBeGreaterThan(0);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('revises a failure without a reference by dropping failed and repeated steps', async () => {
    const p = await start();
    const bad = await record(
      p,
      traj('x', 0.1, [step('a', 't', 1), step('b', 't', 1, { status: 'failed' }), step('a', 't', 1)]),
    );
    const result = await p.ok('improving.augment', { trajectoryId: bad, mode: 'FULL_PIPELINE' });
    expect(result['revisedSteps']).toEqual([{ action: 'a', tool: 't', duration: 1 }]);
    expect((result['feedback'] as string[])[0]).toContain('no successful attempt of web-research');
  });

  it('leaves successes and NONE alone, and answers NOT_FOUND for an unknown id', async () => {
    const p = await start();
    const ok = await record(p, traj('x', 0.9));
    const bad = await record(p, traj('y', 0.1));
    expect(await p.ok('improving.augment', { trajectoryId: ok })).toEqual({
      augmented: false,
      newState: 'SUCCESS',
    });
    expect(await p.ok('improving.augment', { trajectoryId: bad, mode: 'NONE' })).toEqual({
      augmented: false,
      newState: 'FAILED',
    });
    expect(await p.log.read({ type: 'improving.augmented' })).toHaveLength(0);
    expect(await p.fail('improving.augment', { trajectoryId: 'traj-ffffffff' })).toMatchObject({
      code: 'NOT_FOUND',
      details: { field: 'trajectoryId' },
    });
  });
});

describe('improving.assessDifficulty', () => {
  it('answers FRONTIER at the 0.5 prior without history', async () => {
    const p = await start();
    const result = await p.ok('improving.assessDifficulty', {
      taskType: 'web-research',
      input: { query: 'x' },
    });
    expect(result).toMatchObject({ difficulty: 'FRONTIER', passRate: 0.5, sampleSize: 0 });
    expect(text(result['recommendation'])).toContain('no recorded attempt');
  });

  it('classifies by the pass rate of the most similar attempts', async () => {
    const p = await start();
    for (let i = 0; i < 9; i++) await record(p, traj(`solar panel efficiency ${i}`, 0.9));
    await record(p, traj('solar panel efficiency 9', 0.1));
    for (let i = 0; i < 4; i++) await record(p, traj(`protein folding ${i}`, i === 0 ? 0.9 : 0.1));
    const easy = await p.ok('improving.assessDifficulty', {
      taskType: 'web-research',
      input: { query: 'solar panel efficiency' },
    });
    expect(easy).toMatchObject({ difficulty: 'TOO_EASY', passRate: 0.9, sampleSize: 10 });
    const hard = await p.ok('improving.assessDifficulty', {
      taskType: 'web-research',
      input: { query: 'protein folding' },
      samples: 4,
    });
    expect(hard).toMatchObject({ difficulty: 'TOO_HARD', passRate: 0.25, sampleSize: 4 });
    expect(text(hard['recommendation'])).toContain('improving.augment');
    // the exact match (a success) and the newest of the equally similar others (a failure)
    const mid = await p.ok('improving.assessDifficulty', {
      taskType: 'web-research',
      input: { query: 'protein folding 0' },
      samples: 2,
    });
    expect(mid).toMatchObject({ difficulty: 'FRONTIER', passRate: 0.5 });
  });
});

describe('improving gossip receive', () => {
  it('adds a peer trajectory once, redacted, with the sender as contributor', async () => {
    const p = await start();
    await record(p, traj('mine', 0.6));
    const message = {
      trajectoryId: 'traj-b4d1e8c2',
      ...traj('call +44 20 7946 0958', 0.91),
      peerId: 'someone-else',
    };
    const first = await improving!.receive(message, { peerId: '12D3KooWPeerB' });
    expect(first).toEqual({ trajectoryId: 'traj-b4d1e8c2', state: 'SUCCESS', duplicate: false });
    expect(await improving!.receive(message, { peerId: '12D3KooWPeerB' })).toMatchObject({ duplicate: true });
    const stats = await p.ok('improving.getLibraryStats', {});
    expect(stats['topContributors']).toEqual([
      { peerId: '12D3KooWPeerB', count: 1, avgReward: 0.91 },
      { peerId: 'local', count: 1, avgReward: 0.6 },
    ]);
    expect(JSON.stringify(await p.log.read({ typePrefix: 'improving.' }))).not.toContain('7946 0958');
    await expect(
      improving!.receive({ taskType: 'web-research', steps: [], reward: 2 }, { peerId: 'x' }),
    ).rejects.toMatchObject({
      code: 'TRAJECTORY_REJECTED',
    });
    await expect(improving!.receive('nope', { peerId: 'x' })).rejects.toMatchObject({
      code: 'TRAJECTORY_REJECTED',
    });
    await p.assertReplayEquals(PROJECTIONS);
  });
});

describe('improving tenants and storage', () => {
  it('keeps tenants apart', async () => {
    const p = await start();
    const id = await record(p, traj('x', 0.9), 'acme');
    expect((await p.ok('improving.getLibraryStats', {}, { tenantId: 'globex' }))['total']).toBe(0);
    expect((await p.ok('improving.getLibraryStats', {}, { tenantId: 'acme' }))['total']).toBe(1);
    expect((await p.fail('improving.augment', { trajectoryId: id }, { tenantId: 'globex' })).code).toBe(
      'NOT_FOUND',
    );
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('survives a restart on a SQLite log', async () => {
    const { dir, remove } = await tempDir();
    cleanup = remove;
    const first = await startPrimitive((c) => improvingPrimitive(c), { log: sqliteEventLog({ dir }) });
    const a = await record(first, traj('a', 0.9));
    const b = await record(first, traj('b', 0.1));
    await first.ok('improving.augment', { trajectoryId: b });
    await first.ok('improving.getExemplars', { taskType: 'web-research' });
    const before = await first.ok('improving.getLibraryStats', {});
    await first.assertReplayEquals(PROJECTIONS);
    await first.close();
    h = await startPrimitive((c) => improvingPrimitive(c), { log: sqliteEventLog({ dir }) });
    expect(await h.ok('improving.getLibraryStats', {})).toEqual(before);
    const ex = await h.ok('improving.getExemplars', {
      taskType: 'web-research',
      strategy: 'EXEMPLAR_LEVEL',
      limit: 1,
    });
    expect((ex['exemplars'] as JsonObject[])[0]).toMatchObject({ trajectoryId: a, usageCount: 2 });
  });
});
