import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { registerWebSearch, startToolHarness, type ToolHarness } from './tool-harness.js';

let h: ToolHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function withTools(): Promise<{ t: ToolHarness; ids: Record<string, string> }> {
  h = await startToolHarness(memoryEventLog());
  const t = h;
  const ids: Record<string, string> = {};
  ids['web'] = await registerWebSearch(t);
  const reg = async (name: string, extra: JsonObject): Promise<void> => {
    const out = await t.ok('tool.register', {
      name,
      schema: { input: true, output: true },
      verb: 'search.web',
      ...extra,
    });
    ids[name] = out['toolId'] as string;
  };
  await reg('news-search', {
    description: 'Search recent news articles',
    capabilities: ['search'],
    geo: 'eu-west',
    reputation: 0.99,
  });
  await reg('image-search', {
    description: 'Reverse image lookup',
    capabilities: ['search', 'vision'],
    geo: 'us-west',
    reputation: 0.6,
  });
  await reg('summarizer', { description: 'Summarises long documents', capabilities: ['summarize'] });
  return { t, ids };
}

async function names(t: ToolHarness, params: JsonObject): Promise<string[]> {
  const { tools } = (await t.ok('tool.discover', params)) as { tools: JsonObject[] };
  return tools.map((x) => x['name'] as string);
}

describe('tool.discover', () => {
  it('matches every query word against name and description words, ranked by reputation', async () => {
    const { t } = await withTools();
    expect(await names(t, { query: 'search' })).toEqual(['news-search', 'web-search', 'image-search']);
    expect(await names(t, { query: 'web search' })).toEqual(['web-search']);
    expect(await names(t, { query: 'WEB-Search' })).toEqual(['web-search']);
    expect(await names(t, { query: 'summar' })).toEqual(['summarizer']);
    expect(await names(t, { query: 'image web' })).toEqual([]);
    expect(await names(t, { query: '' })).toHaveLength(4);
  });

  it('filters on capabilities (all of them), minimum reputation and region', async () => {
    const { t } = await withTools();
    expect(await names(t, { query: '', capabilities: ['search', 'scrape'] })).toEqual(['web-search']);
    expect(await names(t, { query: '', capabilities: ['vision'] })).toEqual(['image-search']);
    expect(await names(t, { query: 'search', minReputation: 0.9 })).toEqual(['news-search', 'web-search']);
    expect(await names(t, { query: '', geo: 'us' })).toEqual(['web-search', 'image-search']);
    expect(await names(t, { query: '', geo: 'us-east' })).toEqual(['web-search']);
    expect(await names(t, { query: '', geo: 'US-EAST' })).toEqual(['web-search']);
    expect(await names(t, { query: '', geo: 'us-ea' })).toEqual([]);
    expect(
      await names(t, {
        query: 'web search',
        capabilities: ['search', 'scrape'],
        minReputation: 0.7,
        geo: 'us-east',
        maxLatency: 500,
      }),
    ).toEqual(['web-search']);
  });

  it('filters on measured latency and lets real calls move reputation', async () => {
    const { t, ids } = await withTools();
    t.clock.latency = 800;
    await t.ok('tool.invoke', { toolId: ids['news-search']!, params: { query: 'battery' } });
    // news-search measured 800 ms; the others have no measurement yet and pass.
    expect(await names(t, { query: 'search', maxLatency: 500 })).toEqual(['web-search', 'image-search']);
    const { tools } = (await t.ok('tool.discover', { query: 'news' })) as { tools: JsonObject[] };
    expect(tools[0]).toMatchObject({ avgLatency: 800, reputation: 0.9909 }); // (0.99·10 + 1) / 11
    // A tool that keeps failing sinks below a worse-rated one that works.
    const { toolId: flaky } = (await t.ok('tool.register', {
      name: 'flaky-search',
      description: 'Search, rate limited',
      schema: { input: true, output: true },
      capabilities: ['search'],
      verb: 'search.flaky',
      reputation: 0.95,
    })) as { toolId: string };
    for (let i = 0; i < 10; i++) await t.fail('tool.invoke', { toolId: flaky, params: { fail: true } });
    const ranked = await names(t, { query: 'search' });
    expect(ranked.indexOf('flaky-search')).toBeGreaterThan(ranked.indexOf('image-search'));
    expect(await names(t, { query: 'search', minReputation: 0.5 })).not.toContain('flaky-search');
  });

  it('refuses bad params naming the field', async () => {
    const { t } = await withTools();
    const cases: [JsonObject, string][] = [
      [{}, ''],
      [{ query: 3 }, '/query'],
      [{ query: 'x', minReputation: 2 }, '/minReputation'],
      [{ query: 'x', maxLatency: -1 }, '/maxLatency'],
      [{ query: 'x', capabilities: [1] }, '/capabilities/0'],
      [{ query: 'x', geo: '' }, '/geo'],
    ];
    for (const [params, pointer] of cases) {
      const error = await t.fail('tool.discover', params);
      expect(error.code).toBe('INVALID_PARAMS');
      const problems = (error.details?.['problems'] ?? []) as { pointer: string; message: string }[];
      expect(
        problems.map((p) => p.pointer),
        JSON.stringify(params),
      ).toContain(pointer);
    }
    const missing = await t.fail('tool.discover', {});
    expect(missing.message).toMatch(/query/);
  });
});
