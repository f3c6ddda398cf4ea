import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { toolCallKey, toolPrimitive } from '../../../src/primitives/tool/index.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { registerWebSearch, startToolHarness, WEB_SEARCH_SCHEMA, type ToolHarness } from './tool-harness.js';

let h: ToolHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<ToolHarness> {
  h = await startToolHarness(memoryEventLog());
  return h;
}

function pointers(error: { details?: JsonObject }): string[] {
  const problems = (error.details?.['problems'] ?? []) as { pointer: string }[];
  return problems.map((p) => p.pointer);
}

describe('tool primitive', () => {
  describe('register', () => {
    it('answers a toolId and lists the tool with the seed fields', async () => {
      const t = await harness();
      const toolId = await registerWebSearch(t);
      expect(toolId).toMatch(/^tool-[0-9a-f]{12}$/);
      const { tools } = (await t.ok('tool.listRegistered', null)) as { tools: JsonObject[] };
      expect(tools).toEqual([
        {
          id: toolId,
          name: 'web-search',
          peerId: 'did:key:z6MkNode',
          description: 'Full-text web search with snippet extraction',
          capabilities: ['search', 'scrape', 'summarize'],
          reputation: 0.94,
          avgLatency: 0,
          schema: WEB_SEARCH_SCHEMA,
          verb: 'search.web',
          geo: 'us-east',
        },
      ]);
    });

    it('updates the same tool when its owner registers the name again, and keeps owners apart', async () => {
      const t = await harness();
      const first = await registerWebSearch(t);
      const again = await registerWebSearch(t, { description: 'Web search, v2' });
      expect(again).toBe(first);
      const other = await t.ok(
        'tool.register',
        {
          name: 'web-search',
          description: 'Another team’s search',
          schema: WEB_SEARCH_SCHEMA,
          capabilities: ['search'],
          verb: 'search.web',
        },
        {},
        { principal: { id: 'did:example:other-team', kind: 'local' } },
      );
      expect(other['toolId']).not.toBe(first);
      const { tools } = (await t.ok('tool.listRegistered', {})) as { tools: JsonObject[] };
      expect(tools.map((x) => x['description']).sort()).toEqual(['Another team’s search', 'Web search, v2']);
    });

    it('uses the name as the verb when it is one', async () => {
      const t = await harness();
      const { toolId } = await t.ok('tool.register', {
        name: 'search.web',
        description: 'named by its verb',
        schema: WEB_SEARCH_SCHEMA,
        capabilities: [],
      });
      const out = await t.ok('tool.invoke', { toolId: toolId as string, params: { query: 'solar' } });
      expect((out['result'] as { results: unknown[] }).results).toHaveLength(1);
    });

    it('refuses bad params naming the field', async () => {
      const t = await harness();
      const base = {
        name: 'web-search',
        description: 'd',
        schema: WEB_SEARCH_SCHEMA,
        capabilities: ['search'],
        verb: 'search.web',
      };
      const noSchema: JsonObject = { ...base };
      delete noSchema['schema'];
      const cases: [JsonObject, string][] = [
        [noSchema, ''],
        [{ ...base, capabilities: 'search' }, '/capabilities'],
        [{ ...base, reputation: 1.5 }, '/reputation'],
        [{ ...base, verb: undefined as never }, '/name'],
        [{ ...base, verb: 'Search Web' }, '/verb'],
        [{ ...base, verb: 'tool.invoke' }, '/verb'],
        [{ ...base, schema: { input: { type: 'nope' }, output: true } }, '/schema/input'],
        [{ ...base, extra: 1 }, '/extra'],
      ];
      for (const [params, pointer] of cases) {
        const clean = JSON.parse(JSON.stringify(params)) as JsonObject;
        const error = await t.fail('tool.register', clean);
        expect(error.code, JSON.stringify(params)).toBe('INVALID_PARAMS');
        expect(pointers(error), JSON.stringify(params)).toContain(pointer);
      }
      expect(error0(await t.fail('tool.register', noSchema))).toMatch(/schema/);
      const { tools } = (await t.ok('tool.listRegistered', null)) as { tools: unknown[] };
      expect(tools).toEqual([]);
    });
  });

  describe('invoke', () => {
    it('runs the verb through the runtime and answers {result, duration, peerId}', async () => {
      const t = await harness();
      const toolId = await registerWebSearch(t);
      const out = await t.ok('tool.invoke', { toolId, params: { query: 'battery breakthroughs' } });
      expect(out).toEqual({
        result: { results: [CORPUS0, CORPUS1] },
        duration: 120,
        peerId: 'did:key:z6MkNode',
      });
      expect(await t.ok('tool.getAnalytics', { toolId })).toEqual({
        invocations: 1,
        avgLatency: 120,
        successRate: 1,
      });
    });

    it('sends a child request with the caller, tenant, trace, session, and the job as causation', async () => {
      const t = await harness();
      const toolId = await registerWebSearch(t);
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const answer = await t.call(
        'tool.invoke',
        { toolId, params: { query: 'solar' }, sessionId: 'sess-a8c3f210' },
        { tenantId: 'acme', traceparent },
      );
      expect(answer.kind).toBe('response');
      const child = t.seen[0]!;
      expect(child.envelope.verb).toBe('search.web');
      expect(child.envelope.tenantId).toBe('acme');
      // a child span: same trace id and flags, a new span id, the parent span named
      expect(child.envelope.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      expect(child.envelope.traceparent).not.toBe(traceparent);
      expect(child.envelope.extensions?.['_x_agentese_parent_span_id']).toBe('b7ad6b7169203331');
      expect(child.envelope.sessionId).toBe('sess-a8c3f210');
      expect(child.caller).toBe('did:example:caller');
      const jobs = await t.log.read({ type: 'job.submitted' });
      const parent = jobs.find((e) => (e.data as { verb?: string }).verb === 'tool.invoke')!;
      expect(child.envelope.causationId).toBe((parent.data as { id: string }).id);
      expect(toolCallKey((parent.data as { id: string }).id)).toContain('tool.invoke:');
      const invoked = await t.log.read({ type: 'tool.invoked' });
      expect(invoked).toHaveLength(1);
      expect(invoked[0]!.tenant).toBe('acme');
      expect(invoked[0]!.data).toMatchObject({ toolId, ok: true, duration: 120, sessionId: 'sess-a8c3f210' });
    });

    it('answers NOT_FOUND for an unknown tool', async () => {
      const t = await harness();
      const error = await t.fail('tool.invoke', { toolId: 'tool-000000000000', params: {} });
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toMatch(/tool-000000000000/);
      expect((await t.fail('tool.getAnalytics', { toolId: 'tool-nope' })).code).toBe('NOT_FOUND');
    });

    it('checks params against the tool schema without counting a call', async () => {
      const t = await harness();
      const toolId = await registerWebSearch(t);
      const error = await t.fail('tool.invoke', { toolId, params: { query: 42 } });
      expect(error.code).toBe('INVALID_PARAMS');
      expect(pointers(error)).toEqual(['/params/query']);
      expect((await t.fail('tool.invoke', { toolId })).code).toBe('INVALID_PARAMS');
      expect((await t.ok('tool.getAnalytics', { toolId }))['invocations']).toBe(0);
      expect(t.seen).toHaveLength(0);
    });

    it('maps and records a failing tool', async () => {
      const t = await harness();
      const { toolId } = (await t.ok('tool.register', {
        name: 'flaky-search',
        description: 'A search that is rate limited',
        schema: { input: true, output: true },
        capabilities: ['search'],
        verb: 'search.flaky',
        reputation: 0.9,
      })) as { toolId: string };
      await t.ok('tool.invoke', { toolId, params: { fail: false } });
      t.clock.latency = 40;
      const error = await t.fail('tool.invoke', { toolId, params: { fail: true } });
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(/flaky-search/);
      expect(error.message).toMatch(/1 query a second/);
      expect(error.details).toMatchObject({
        toolId,
        verb: 'search.flaky',
        cause: 'RATE_LIMITED',
        retryAfterMs: 1000,
      });
      expect(await t.ok('tool.getAnalytics', { toolId })).toEqual({
        invocations: 2,
        avgLatency: 80,
        successRate: 0.5,
      });
      const [info] = ((await t.ok('tool.listRegistered', null)) as { tools: JsonObject[] }).tools;
      expect(info!['reputation']).toBe(round4((0.9 * 10 + 1) / 12));
      const invoked = await t.log.read({ type: 'tool.invoked' });
      expect(invoked.map((e) => (e.data as { errorCode?: string }).errorCode)).toEqual([
        undefined,
        'RATE_LIMITED',
      ]);
    });

    it('maps a crash to INTERNAL and a verb nobody offers to PEER_UNAVAILABLE, recording both', async () => {
      const t = await harness();
      const reg = async (name: string, verb: string): Promise<string> =>
        (
          (await t.ok('tool.register', {
            name,
            description: name,
            schema: { input: true, output: true },
            capabilities: [],
            verb,
          })) as { toolId: string }
        ).toolId;
      const { toolId: bound } = (await t.ok('tool.register', {
        name: 'bound',
        description: 'bound to a gone agent',
        schema: { input: true, output: true },
        capabilities: [],
        verb: 'search.web',
        agent: 'ghost',
      })) as { toolId: string };
      const e3 = await t.fail('tool.invoke', { toolId: bound, params: { query: 'x' } });
      expect(e3.code).toBe('PEER_UNAVAILABLE');
      expect(e3.message).toMatch(/ghost/);
      const crash = await reg('crashy', 'search.crash');
      const orphan = await reg('orphan', 'search.nobody_offers_this');
      const e1 = await t.fail('tool.invoke', { toolId: crash, params: {} });
      expect(e1.code).toBe('INTERNAL');
      const e2 = await t.fail('tool.invoke', { toolId: orphan, params: {} });
      expect(e2.code).toBe('PEER_UNAVAILABLE');
      expect(e2.message).toMatch(/not reachable/);
      expect(e2.details).toMatchObject({ cause: 'UNKNOWN_VERB' });
      for (const id of [crash, orphan]) {
        expect(await t.ok('tool.getAnalytics', { toolId: id })).toMatchObject({
          invocations: 1,
          successRate: 0,
        });
      }
    });

    it('counts concurrent invocations exactly', async () => {
      const t = await harness();
      const toolId = await registerWebSearch(t);
      t.clock.latency = 0;
      const outs = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          t.ok('tool.invoke', { toolId, params: { query: `battery ${i}` } }),
        ),
      );
      expect(outs).toHaveLength(25);
      expect(await t.ok('tool.getAnalytics', { toolId })).toEqual({
        invocations: 25,
        avgLatency: 0,
        successRate: 1,
      });
    });
  });

  it('addresses the agent a tool is bound to', async () => {
    const t = await harness();
    const { toolId } = (await t.ok('tool.register', {
      name: 'bound',
      description: 'bound to the search agent',
      schema: { input: true, output: true },
      capabilities: [],
      verb: 'search.web',
      agent: 'search',
    })) as { toolId: string };
    await t.ok('tool.invoke', { toolId, params: { query: 'solar' } });
    expect(t.seen[0]!.envelope.to).toBe('search');
  });

  describe('options', () => {
    it('refuses bad options', () => {
      const log = memoryEventLog();
      const invoke = (): Promise<never> => Promise.reject(new Error('unused'));
      expect(() => toolPrimitive({ log, invoke }, { defaultReputation: 2 })).toThrow(/defaultReputation/);
      expect(() => toolPrimitive({ log, invoke }, { priorWeight: -1 })).toThrow(/priorWeight/);
    });

    it('has the seed methods mapped to verbs', () => {
      const tool = toolPrimitive({ log: memoryEventLog(), invoke: () => Promise.resolve(null) });
      expect(tool.methods).toEqual({
        'tool.register': 'tool.register',
        'tool.discover': 'tool.discover',
        'tool.invoke': 'tool.invoke',
        'tool.getAnalytics': 'tool.get_analytics',
        'tool.listRegistered': 'tool.list_registered',
      });
    });
  });
});

const CORPUS0 = {
  title: 'Solid-state battery breakthroughs 2026',
  url: 'https://example.org/ssb-2026',
  snippet: 'Sulfide electrolytes reach 1,000 cycles.',
};
const CORPUS1 = {
  title: 'Battery recycling at scale',
  url: 'https://example.org/recycling',
  snippet: 'Hydrometallurgy recovers 95% of lithium.',
};

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function error0(error: { message: string }): string {
  return error.message;
}
