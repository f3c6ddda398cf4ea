import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  LEARNING_PROJECTIONS,
  learningPrimitive,
  type ReflectionRequest,
  type Reflector,
} from '../../../src/primitives/learning/index.js';
import type { Projection } from '../../../src/store/projection.js';
import { startPrimitive, text, type PrimitiveHarness } from './harness.js';

const PROJECTIONS = LEARNING_PROJECTIONS as unknown as readonly Projection<unknown>[];
let h: PrimitiveHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = async (init: Parameters<typeof learningPrimitive>[1] = {}): Promise<PrimitiveHarness> => {
  h = await startPrimitive((c) => learningPrimitive(c, init), { now: () => Date.UTC(2026, 2, 18, 14) });
  return h;
};

const SEED_EXECUTION = {
  input: { query: 'quantum computing market size 2026' },
  output: { summary: '...', sources: 12 },
  steps: [
    { action: 'search', tool: 'web-search', duration: 340 },
    { action: 'filter', tool: 'relevance-scorer', duration: 120 },
    { action: 'synthesize', tool: 'summarizer', duration: 890 },
  ],
  outcome: 'success',
  reward: 0.92,
};

describe('learning.addBullet / getPlaybook', () => {
  it('numbers bullets per section, counts tokens with o200k_base and bumps the version', async () => {
    const p = await start();
    const a = await p.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'str',
      content: 'Prefer analyst reports.',
    });
    const b = await p.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'cal',
      content: 'Plan 1400 ms per run.',
    });
    const c = await p.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'str',
      content: 'Filter by date.',
    });
    expect([a['bulletId'], b['bulletId'], c['bulletId']]).toEqual(['str-00001', 'cal-00001', 'str-00002']);
    const book = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    expect(book['version']).toBe(3);
    const bullets = book['bullets'] as JsonObject[];
    expect(bullets.map((x) => x['id'])).toEqual(['str-00001', 'str-00002', 'cal-00001']);
    const expected = bullets.map((x) => encode(`[${text(x['id'])}] ${text(x['content'])}`).length);
    expect(bullets.map((x) => x['tokenCount'])).toEqual(expected);
    expect(book['tokenCount']).toBe(expected.reduce((s, n) => s + n, 0));
    expect(bullets[0]).toMatchObject({ helpfulCount: 0, harmfulCount: 0, section: 'str' });
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('answers the existing id for a duplicate bullet and appends nothing', async () => {
    const p = await start();
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'mis', content: 'Do not retry 4xx.' });
    const head = (await p.log.head()).seq;
    const again = await p.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'mis',
      content: '  do NOT retry   4xx. ',
    });
    expect(again['bulletId']).toBe('mis-00001');
    const book = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    expect(book['version']).toBe(1);
    // only the job events of the duplicate call were appended, no learning event
    const events = await p.log.read({ afterSeq: head, typePrefix: 'learning.' });
    expect(events).toHaveLength(0);
  });

  it('redacts personal data in bullet content before storing it', async () => {
    const p = await start();
    await p.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'fbk',
      content: 'Mail ada@example.org when done.',
    });
    const book = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    const content = text((book['bullets'] as JsonObject[])[0]?.['content']);
    expect(content).not.toContain('ada@example.org');
    expect(content).toContain('[REDACTED:email]');
    const events = await p.log.read({ typePrefix: 'learning.' });
    expect(JSON.stringify(events)).not.toContain('ada@example.org');
  });

  it('answers an empty playbook at version 0 for an unknown id', async () => {
    const p = await start();
    expect(await p.ok('learning.getPlaybook', { playbookId: 'nothing-yet' })).toEqual({
      bullets: [],
      version: 0,
      tokenCount: 0,
    });
  });

  it('keeps the playbooks of different tenants apart', async () => {
    const p = await start();
    await p.ok(
      'learning.addBullet',
      { playbookId: 'pb', section: 'str', content: 'A' },
      { tenantId: 'acme' },
    );
    await p.ok(
      'learning.addBullet',
      { playbookId: 'pb', section: 'str', content: 'B' },
      { tenantId: 'globex' },
    );
    const acme = await p.ok('learning.getPlaybook', { playbookId: 'pb' }, { tenantId: 'acme' });
    const none = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    expect((acme['bullets'] as JsonObject[]).map((b) => b['content'])).toEqual(['A']);
    expect(none['bullets']).toEqual([]);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('gives distinct ids to concurrent additions', async () => {
    const p = await start();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: `bullet ${i}` }),
      ),
    );
    const ids = answers.map((a) => a['bulletId']).sort();
    expect(new Set(ids).size).toBe(20);
    expect(ids[19]).toBe('str-00020');
    expect((await p.ok('learning.getPlaybook', { playbookId: 'pb' }))['version']).toBe(20);
  });

  it('refuses a bullet beyond maxBullets with CONFLICT', async () => {
    const p = await start({ maxBullets: 1 });
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'one' });
    const error = await p.fail('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'two' });
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain('learning.curate');
  });
});

describe('learning.feedback / getStats', () => {
  it('counts votes and averages the smoothed helpfulness', async () => {
    const p = await start();
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'one' });
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'mis', content: 'two' });
    await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'str-00001', helpful: true });
    const votes = await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'str-00001', helpful: true });
    expect(votes).toEqual({ helpfulCount: 2, harmfulCount: 0 });
    expect(
      await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'mis-00001', helpful: false }),
    ).toEqual({
      helpfulCount: 0,
      harmfulCount: 1,
    });
    const stats = await p.ok('learning.getStats', { playbookId: 'pb' });
    // str: (2+1)/(2+2) = 0.75; mis: (0+1)/(1+2) = 0.3333
    expect(stats).toEqual({
      totalBullets: 2,
      bySection: { str: 1, cal: 0, mis: 1, fbk: 0 },
      avgScore: 0.5417,
      version: 5,
    });
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('answers NOT_FOUND naming the field for an unknown playbook or bullet', async () => {
    const p = await start();
    const noBook = await p.fail('learning.feedback', {
      playbookId: 'pb',
      bulletId: 'str-00001',
      helpful: true,
    });
    expect(noBook).toMatchObject({ code: 'NOT_FOUND', details: { field: 'playbookId' } });
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'one' });
    const noBullet = await p.fail('learning.feedback', {
      playbookId: 'pb',
      bulletId: 'str-00009',
      helpful: true,
    });
    expect(noBullet).toMatchObject({ code: 'NOT_FOUND', details: { field: 'bulletId', value: 'str-00009' } });
  });

  it('answers zeros for an unknown playbook', async () => {
    const p = await start();
    expect(await p.ok('learning.getStats', { playbookId: 'x' })).toEqual({
      totalBullets: 0,
      bySection: { str: 0, cal: 0, mis: 0, fbk: 0 },
      avgScore: 0,
      version: 0,
    });
  });
});

describe('learning.curate', () => {
  it('removes harmful bullets, then the lowest scored, until the budget holds', async () => {
    const p = await start();
    for (const content of ['keep me, I am useful', 'I am neutral filler text', 'I am harmful advice']) {
      await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content });
    }
    await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'str-00001', helpful: true });
    for (let i = 0; i < 3; i++)
      await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'str-00003', helpful: false });
    const before = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    const tokens = (before['bullets'] as JsonObject[]).map((b) => b['tokenCount'] as number);
    // a budget that fits the useful bullet only
    const result = await p.ok('learning.curate', { playbookId: 'pb', maxTokens: tokens[0]! });
    expect(result).toEqual({ removed: ['str-00003', 'str-00002'], remaining: 1, tokenCount: tokens[0] });
    const after = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    expect((after['bullets'] as JsonObject[]).map((b) => b['id'])).toEqual(['str-00001']);
    expect(after['version']).toBe((before['version'] as number) + 1);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('removes harmful bullets even within budget, and nothing else under the default budget', async () => {
    const p = await start();
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'fine' });
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'mis', content: 'bad' });
    for (let i = 0; i < 3; i++)
      await p.ok('learning.feedback', { playbookId: 'pb', bulletId: 'mis-00001', helpful: false });
    const result = await p.ok('learning.curate', { playbookId: 'pb' });
    expect(result['removed']).toEqual(['mis-00001']);
    expect(result['remaining']).toBe(1);
    const again = await p.ok('learning.curate', { playbookId: 'pb' });
    expect(again['removed']).toEqual([]);
  });
});

describe('learning.reflect', () => {
  it('writes concrete bullets for the seed example and bumps the version', async () => {
    const p = await start();
    const result = await p.ok('learning.reflect', {
      playbookId: 'web-research-v3',
      execution: SEED_EXECUTION,
    });
    const bullets = result['newBullets'] as JsonObject[];
    expect(result['playbookVersion']).toBe(1);
    expect(result['prunedBullets']).toEqual([]);
    const str = bullets.find((b) => b['section'] === 'str');
    expect(str?.['id']).toBe('str-00001');
    expect(text(str?.['content'])).toContain(
      'search (web-search) → filter (relevance-scorer) → synthesize (summarizer)',
    );
    expect(text(str?.['content'])).toContain('reward 0.92');
    const cal = bullets.find((b) => b['section'] === 'cal');
    expect(text(cal?.['content'])).toContain('synthesize (summarizer) 890 ms (66%)');
    const book = await p.ok('learning.getPlaybook', { playbookId: 'web-research-v3' });
    expect((book['bullets'] as JsonObject[]).map((b) => b['id']).sort()).toEqual(
      bullets.map((b) => b['id']).sort(),
    );
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('prunes the mistake bullet about a path once that path succeeds', async () => {
    const p = await start();
    const failed = await p.ok('learning.reflect', {
      playbookId: 'pb',
      execution: { ...SEED_EXECUTION, outcome: 'failure', reward: 0.1 },
    });
    const mis = (failed['newBullets'] as JsonObject[]).find((b) => b['section'] === 'mis');
    expect(text(mis?.['content'])).toMatch(/^Avoid the path search \(web-search\)/);
    const ok = await p.ok('learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION });
    expect(ok['prunedBullets']).toEqual([mis?.['id']]);
    expect(ok['playbookVersion']).toBe(2);
    // the same success again adds no duplicate strategy bullet
    const again = await p.ok('learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION });
    expect((again['newBullets'] as JsonObject[]).filter((b) => b['section'] === 'str')).toEqual([]);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('votes on the bullets the execution used and prunes one that turned harmful', async () => {
    const p = await start();
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'Always search twice.' });
    const fail = {
      ...SEED_EXECUTION,
      steps: [{ action: 'search' }],
      outcome: 'failed',
      reward: 0,
      usedBullets: ['str-00001', 'str-00077'],
    };
    await p.ok('learning.reflect', { playbookId: 'pb', execution: fail });
    await p.ok('learning.reflect', { playbookId: 'pb', execution: fail });
    const third = await p.ok('learning.reflect', { playbookId: 'pb', execution: fail });
    expect(third['prunedBullets']).toEqual(['str-00001']);
    const book = await p.ok('learning.getPlaybook', { playbookId: 'pb' });
    expect((book['bullets'] as JsonObject[]).some((b) => b['id'] === 'str-00001')).toBe(false);
    await p.assertReplayEquals(PROJECTIONS);
  });

  it('changes nothing in eval-only mode', async () => {
    const p = await start();
    const head = (await p.log.head()).seq;
    const result = await p.ok('learning.reflect', {
      playbookId: 'pb',
      execution: SEED_EXECUTION,
      mode: 'eval-only',
    });
    expect((result['newBullets'] as JsonObject[]).length).toBeGreaterThan(0);
    expect(result['playbookVersion']).toBe(0);
    expect(await p.log.read({ afterSeq: head, typePrefix: 'learning.' })).toHaveLength(0);
    expect((await p.ok('learning.getPlaybook', { playbookId: 'pb' }))['bullets']).toEqual([]);
  });

  it('calls the reflector once per reflection and never on replay', async () => {
    let calls = 0;
    const counting: Reflector = {
      name: 'counting',
      reflect(request: ReflectionRequest) {
        calls++;
        return Promise.resolve({
          newBullets: [
            { section: 'fbk', content: `seen ${request.execution.steps.length} steps, call ${calls}` },
          ],
          prune: [],
        });
      },
    };
    const p = await start({ reflector: counting });
    await p.ok('learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION });
    await p.ok('learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION });
    expect(calls).toBe(2);
    await p.assertReplayEquals(PROJECTIONS);
    // a second primitive over the same log rebuilds the playbook without reflecting
    const other = learningPrimitive({ log: p.log }, { reflector: counting });
    await other.start();
    const state = other.views[0]!.state() as {
      playbooks: Map<string, { bullets: Map<string, { content: string }> }>;
    };
    const contents = [...([...state.playbooks.values()][0]?.bullets.values() ?? [])].map((b) => b.content);
    expect(contents).toEqual(['seen 3 steps, call 1', 'seen 3 steps, call 2']);
    expect(calls).toBe(2);
    await other.stop();
  });

  it('fails INTERNAL naming the reflector when it answers an unusable proposal', async () => {
    const broken: Reflector = {
      name: 'broken',
      reflect: () => Promise.resolve({ newBullets: [{ section: 'xyz' as 'str', content: 'x' }], prune: [] }),
    };
    const p = await start({ reflector: broken });
    const error = await p.fail('learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION });
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('broken');
    expect(await p.log.read({ typePrefix: 'learning.' })).toHaveLength(0);
  });
});

describe('learning bad params', () => {
  const cases: [string, JsonObject, string][] = [
    ['learning.addBullet', { playbookId: 'pb', section: 'xyz', content: 'c' }, '/section'],
    ['learning.addBullet', { playbookId: 'pb', section: 'str', content: '' }, '/content'],
    ['learning.addBullet', { section: 'str', content: 'c' }, 'playbookId'],
    ['learning.getPlaybook', { playbookId: 7 }, '/playbookId'],
    ['learning.getPlaybook', { playbookId: 'pb', extra: 1 }, 'extra'],
    [
      'learning.reflect',
      { playbookId: 'pb', execution: { ...SEED_EXECUTION, reward: 2 } },
      '/execution/reward',
    ],
    [
      'learning.reflect',
      { playbookId: 'pb', execution: { steps: 'no', outcome: 'success' } },
      '/execution/steps',
    ],
    ['learning.reflect', { playbookId: 'pb', execution: { steps: [] } }, 'outcome'],
    ['learning.reflect', { playbookId: 'pb', execution: SEED_EXECUTION, mode: 'live' }, '/mode'],
    ['learning.curate', { playbookId: 'pb', maxTokens: -1 }, '/maxTokens'],
    ['learning.feedback', { playbookId: 'pb', bulletId: 'str-1', helpful: true }, '/bulletId'],
    ['learning.feedback', { playbookId: 'pb', bulletId: 'str-00001', helpful: 'yes' }, '/helpful'],
    ['learning.getStats', {}, 'playbookId'],
  ];
  it.each(cases)('%s %j → INVALID_PARAMS naming %s', async (method, params, field) => {
    const p = h ?? (await start());
    const error = await p.fail(method, params);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(JSON.stringify(error.details)).toContain(field);
  });
});
