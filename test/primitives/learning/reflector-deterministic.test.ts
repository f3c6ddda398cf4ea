import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkProposal,
  curationOrder,
  deterministicReflector,
  isHarmful,
  verdictOf,
  type Bullet,
  type Execution,
  type ReflectorBullet,
} from '../../../src/primitives/learning/index.js';

const seed: Execution = {
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

const reflect = (execution: Execution, bullets: readonly ReflectorBullet[] = []) =>
  deterministicReflector().reflect({ playbookId: 'pb', execution, bullets });

describe('deterministicReflector', () => {
  it('names the path, reward, time budget and bottleneck of a success', async () => {
    const { newBullets, prune } = await reflect(seed);
    expect(prune).toEqual([]);
    expect(newBullets).toEqual([
      {
        section: 'str',
        content:
          'For tasks like "quantum computing market size 2026", the path search (web-search) → filter (relevance-scorer) → synthesize (summarizer) succeeded (reward 0.92, 1350 ms over 3 steps); reuse this order of steps.',
      },
      {
        section: 'cal',
        content:
          'Time budget for tasks like "quantum computing market size 2026": synthesize (summarizer) 890 ms (66%), search (web-search) 340 ms (25%), filter (relevance-scorer) 120 ms (9%); 1350 ms in total, so plan about 1400 ms.',
      },
      {
        section: 'str',
        content:
          'synthesize (summarizer) is the bottleneck (890 of 1350 ms, 66%); start it as early as possible or give it a faster tool.',
      },
    ]);
  });

  it('gives the same proposal for the same execution', async () => {
    expect(await reflect(seed)).toEqual(await reflect(structuredClone(seed)));
  });

  it('writes mistakes for a failure: the path, the failing step, repeats', async () => {
    const { newBullets } = await reflect({
      input: { task: 'extract prices' },
      steps: [
        { action: 'fetch', tool: 'http', duration: 100, error: 'HTTP 503 from shop.example' },
        { action: 'fetch', tool: 'http', duration: 100, status: 'failed' },
      ],
      outcome: 'error',
      feedback: 'The shop blocks bots; use the API.',
    });
    const mis = newBullets.filter((b) => b.section === 'mis').map((b) => b.content);
    expect(mis[0]).toBe(
      'Avoid the path fetch (http) → fetch (http) for tasks like "extract prices": it ended in "error" (200 ms over 2 steps). Step 1 fetch (http) reported "HTTP 503 from shop.example".',
    );
    expect(mis).toContain(
      'Step 2 fetch (http) failed with "status failed"; check its parameters or add a fallback for it.',
    );
    expect(mis).toContain(
      'fetch (http) ran 2 times in one execution; refine its parameters instead of repeating it.',
    );
    expect(newBullets.filter((b) => b.section === 'fbk').map((b) => b.content)).toEqual([
      'Feedback for tasks like "extract prices": The shop blocks bots; use the API.',
    ]);
  });

  it('writes feedback for a partial outcome and needs no timings', async () => {
    const { newBullets } = await reflect({ steps: [{ action: 'draft' }], outcome: 'partial', reward: 0.5 });
    expect(newBullets).toEqual([
      {
        section: 'fbk',
        content:
          'The path draft gave a partial result for this task type (reward 0.50, outcome "partial"); check the result of draft before returning it.',
      },
    ]);
  });

  it('prunes the avoid-bullet of a path that now succeeds, and only that path', async () => {
    const failure = await reflect({ ...seed, outcome: 'failed' });
    const avoid = failure.newBullets.find((b) => b.section === 'mis')!;
    const longer = {
      ...avoid,
      content: avoid.content.replace('synthesize (summarizer)', 'synthesize (summarizer) → x'),
    };
    const bullets: ReflectorBullet[] = [
      { id: 'mis-00001', section: 'mis', content: avoid.content, helpfulCount: 0, harmfulCount: 0 },
      { id: 'mis-00002', section: 'mis', content: longer.content, helpfulCount: 0, harmfulCount: 0 },
    ];
    expect((await reflect(seed, bullets)).prune).toEqual(['mis-00001']);
  });

  it('prunes a strategy for a failing path only once its harmful votes dominate', async () => {
    const success = await reflect(seed);
    const str = success.newBullets[0]!;
    const as = (harmful: number): ReflectorBullet[] => [
      { id: 'str-00001', section: 'str', content: str.content, helpfulCount: 1, harmfulCount: harmful },
    ];
    expect((await reflect({ ...seed, outcome: 'failed' }, as(1))).prune).toEqual([]);
    expect((await reflect({ ...seed, outcome: 'failed' }, as(2))).prune).toEqual(['str-00001']);
  });
});

describe('verdictOf', () => {
  it('reads outcome words first, then the reward', () => {
    expect(verdictOf({ outcome: 'Succeeded' })).toBe('success');
    expect(verdictOf({ outcome: 'timeout', reward: 0.9 })).toBe('failure');
    expect(verdictOf({ outcome: 'meh', reward: 0.75 })).toBe('success');
    expect(verdictOf({ outcome: 'meh', reward: 0.1 })).toBe('failure');
    expect(verdictOf({ outcome: 'meh' })).toBe('partial');
  });
});

describe('checkProposal', () => {
  it('accepts a proposal and trims content', () => {
    expect(checkProposal({ newBullets: [{ section: 'cal', content: ' x ' }] }, 'r')).toEqual({
      newBullets: [{ section: 'cal', content: 'x' }],
      prune: [],
    });
  });
  it.each([
    [null, 'not an object'],
    [{ newBullets: {} }, 'newBullets is not an array'],
    [{ newBullets: [{ section: 'str', content: '  ' }] }, 'newBullets/0/content'],
    [{ newBullets: [{ section: 'bad', content: 'x' }] }, 'newBullets/0/section'],
    [{ newBullets: [{ section: 'str', content: 'x'.repeat(2001) }] }, 'longer than'],
    [{ newBullets: Array.from({ length: 21 }, () => ({ section: 'str', content: 'x' })) }, 'at most 20'],
    [{ newBullets: [], prune: [1] }, 'prune'],
  ])('refuses %j', (value, why) => {
    expect(() => checkProposal(value, 'r')).toThrow(why);
  });
});

describe('curationOrder', () => {
  const bullet = fc.record({
    helpfulCount: fc.nat(6),
    harmfulCount: fc.nat(6),
    tokenCount: fc.integer({ min: 1, max: 50 }),
  });
  it('leaves no harmful bullet and fits the budget by removing the fewest low scorers', () => {
    fc.assert(
      fc.property(fc.array(bullet, { maxLength: 30 }), fc.nat(600), (raw, budget) => {
        const bullets: Bullet[] = raw.map((b, i) => ({
          ...b,
          id: `str-${String(i + 1).padStart(5, '0')}`,
          section: 'str',
          content: `b${i}`,
          source: 'manual',
          createdAt: '2026-01-01T00:00:00.000Z',
        }));
        const removed = new Set(curationOrder(bullets, budget));
        const kept = bullets.filter((b) => !removed.has(b.id));
        expect(kept.some(isHarmful)).toBe(false);
        const tokens = kept.reduce((s, b) => s + b.tokenCount, 0);
        expect(tokens).toBeLessThanOrEqual(budget);
        // removing stopped as soon as the budget held: putting back the last non-harmful removal breaks it
        const nonHarmful = [...removed].filter((id) => !isHarmful(bullets.find((b) => b.id === id)!));
        const last = nonHarmful[nonHarmful.length - 1];
        if (last !== undefined) {
          expect(tokens + bullets.find((b) => b.id === last)!.tokenCount).toBeGreaterThan(budget);
        }
      }),
    );
  });
});
