import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type { Event } from '../../src/core/records/event.js';
import {
  InvocationError,
  agent,
  isRefusal,
  newTraceparent,
  traceIdOf,
  verb,
  type Refusal,
} from '../../src/sdk/index.js';
import {
  compress,
  recall,
  runs,
  shout,
  startSdk,
  store,
  type SdkHarness,
  type Text,
} from './sdk-fixtures.js';

async function caught(promise: Promise<unknown>): Promise<InvocationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(InvocationError);
    expect(error).toBeInstanceOf(PlexusError);
    return error as InvocationError;
  }
  throw new Error('expected the call to fail');
}

async function submitted(h: SdkHarness): Promise<Event[]> {
  return [...(await h.log.read({ type: 'job.submitted' }))];
}

function requestOf(event: Event): { traceparent?: string; causationId?: string; verb: string } {
  return (event.data as { request: { traceparent?: string; causationId?: string; verb: string } }).request;
}

describe('verb and agent', () => {
  it('builds a checked spec with normalised effects and a category from the effects', () => {
    expect(recall.spec).toMatchObject({
      name: 'soul.memory.recall',
      version: 1,
      effects: { reads: ['memory_crystals'] },
      capabilities: ['soul:read'],
      category: 'query',
      deterministic: false,
    });
    expect(store.spec.category).toBe('mutation');
  });

  it('rejects bad names, versions in names, bad effects and bad agents', () => {
    const ok = { input: true, output: true } as const;
    expect(() => verb('Soul.Recall', ok, () => null)).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
    expect(() => verb('soul.memory.recall@2', ok, () => null)).toThrow(/@version/);
    expect(() => verb('soul.memory.recall', { ...ok, effects: ['teleports: x'] }, () => null)).toThrow(
      /not an effect/,
    );
    expect(() => verb('soul.memory.recall', { ...ok, capabilities: ['no scope'] }, () => null)).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
    expect(() => verb('soul.memory.recall', ok, 'nope' as never)).toThrow(/handler/);
    expect(() => agent('', [recall])).toThrow(/id/);
    expect(() => agent('x', [])).toThrow(/at least one verb/);
    expect(() => agent('x', [recall, recall])).toThrow(/twice/);
  });
});

describe('createPlexus', () => {
  let h: SdkHarness;
  beforeEach(async () => {
    runs.clear();
    h = await startSdk();
  });
  afterEach(async () => {
    await h.close();
  });

  describe('invoke', () => {
    it('returns the output of a hosted verb', async () => {
      await expect(h.plexus.invoke<Text>('soul.memory.recall', { query: 'tea' })).resolves.toEqual({
        text: 'memory of tea',
      });
    });

    it('runs every call unless the caller names an idempotency key', async () => {
      await h.plexus.invoke('soul.memory.recall', { query: 'tea' });
      await h.plexus.invoke('soul.memory.recall', { query: 'tea' });
      expect(runs.get('soul.memory.recall')).toBe(2);
      const first = await h.plexus.invoke('soul.memory.store', { text: 'x' }, { idempotencyKey: 'k1' });
      const again = await h.plexus.invoke('soul.memory.store', { text: 'x' }, { idempotencyKey: 'k1' });
      expect(again).toEqual(first);
      expect(runs.get('soul.memory.store')).toBe(1);
    });

    it('returns a refusal as a result, naming the verb', async () => {
      const result = await h.plexus.invoke<Text>('soul.memory.recall', { query: 'forbidden' });
      expect(isRefusal(result)).toBe(true);
      expect((result as Refusal).$refusal).toEqual({
        reason: 'that memory is private',
        consentRequired: 'memory/share',
        verb: 'soul.memory.recall',
      });
    });

    it('throws a typed error with the callee code, job and trace', async () => {
      const error = await caught(h.plexus.invoke('soul.memory.recall', { query: 'missing' }));
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe('soul.memory.recall: no memory matches missing');
      expect(error.verb).toBe('soul.memory.recall');
      expect(error.jobId).toMatch(/^[0-9a-f-]{36}$/);
      expect(traceIdOf(error.traceparent)).toMatch(/^[0-9a-f]{32}$/);
    });

    it('refuses bad input before running the handler', async () => {
      const error = await caught(h.plexus.invoke('soul.memory.recall', { nothing: true }));
      expect(error.code).toBe('INVALID_PARAMS');
      expect(runs.get('soul.memory.recall')).toBeUndefined();
    });

    it('fails outputs the schema forbids, and unknown verbs', async () => {
      expect((await caught(h.plexus.invoke('soul.rogue.lie', null))).code).toBe('INTERNAL');
      expect((await caught(h.plexus.invoke('nobody.offers.this', null))).code).toBe('UNKNOWN_VERB');
    });

    it('makes each call a new span in the caller trace', async () => {
      const parent = newTraceparent();
      await h.plexus.invoke('soul.memory.recall', { query: 'a' }, { traceparent: parent, tenantId: 't1' });
      await h.plexus.invoke('soul.memory.recall', { query: 'b' });
      const [first, second] = await submitted(h);
      const sent = requestOf(first!).traceparent;
      expect(traceIdOf(sent)).toBe(traceIdOf(parent));
      expect(sent).not.toBe(parent);
      expect(first!.trace).toBe(sent);
      expect(first!.tenant).toBe('t1');
      expect(traceIdOf(requestOf(second!).traceparent)).not.toBe(traceIdOf(parent));
      await expect(
        h.plexus.invoke('soul.memory.recall', { query: 'a' }, { traceparent: 'nope' }),
      ).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
      });
    });

    it('links a nested call to its parent job in the same trace', async () => {
      const parent = newTraceparent();
      await expect(
        h.plexus.invoke('soul.mind.reflect', { text: 'rain' }, { traceparent: parent }),
      ).resolves.toEqual({
        text: 'reflecting on memory of rain',
      });
      const jobs = await submitted(h);
      const outer = jobs.find((e) => requestOf(e).verb === 'soul.mind.reflect')!;
      const inner = jobs.find((e) => requestOf(e).verb === 'soul.memory.recall')!;
      expect(requestOf(inner).causationId).toBe((outer.data as { id: string }).id);
      expect(traceIdOf(requestOf(inner).traceparent)).toBe(traceIdOf(parent));
      expect(requestOf(inner).traceparent).not.toBe(requestOf(outer).traceparent);
    });
  });

  describe('emit', () => {
    it('appends events linked to the job, its trace and tenant', async () => {
      await h.plexus.invoke('soul.memory.recall', { query: 'tea' }, { tenantId: 'acme' });
      const [event] = await h.log.read({ type: 'soul.memory.recalled' });
      const [job] = await submitted(h);
      expect(event).toMatchObject({
        data: { query: 'tea' },
        causation: (job!.data as { id: string }).id,
        trace: job!.trace,
        tenant: 'acme',
      });
    });

    it('refuses events outside the verb namespace', async () => {
      const error = await caught(h.plexus.invoke('soul.rogue.act', null));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(/only emit events in its namespace "soul\.\*"/);
      expect(await h.log.read({ type: 'job.completed', causation: 'forged' })).toEqual([]);
    });

    it('refuses events the verb does not declare under emits', async () => {
      const error = await caught(h.plexus.invoke('soul.rogue.gossip', null));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(/emitted soul\.rogue\.shouted, which it does not declare/);
      expect(await h.log.read({ type: 'soul.rogue.shouted' })).toEqual([]);
    });
  });

  describe('compose', () => {
    it('unions effects and scopes as seed 002 §3.2 says', () => {
      const a = verb(
        'test.step.a',
        { input: true, output: true, effects: { reads: ['x'], writes: ['y'] } },
        (i) => i,
      );
      const b = verb(
        'test.step.b',
        { input: true, output: true, effects: { reads: ['y'], writes: ['z'] } },
        (i) => i,
      );
      const pipeline = h.plexus.compose(a, b);
      expect(pipeline.effects).toEqual({ reads: ['x', 'y'], writes: ['y', 'z'] });
      const named = h.plexus.compose('soul.memory.store', 'concept.summary.compress');
      expect(named.verbs).toEqual(['soul.memory.store', 'concept.summary.compress']);
      expect(named.effects).toEqual({
        reads: ['x', 'memory_crystals'],
        writes: ['memory_crystals'],
        emits: ['soul.memory.stored'],
        calls: ['llm/none'],
      });
      expect(named.capabilities).toEqual(['concept:use', 'soul:write']);
    });

    it('runs each output into the next step, one trace, a new span per step', async () => {
      const parent = newTraceparent();
      const pipeline = h.plexus.compose(store, compress, shout);
      await expect(pipeline.run({ text: 'the quick brown fox' }, { traceparent: parent })).resolves.toEqual({
        text: 'THE QUICK',
      });
      const sent = (await submitted(h)).map((e) => requestOf(e).traceparent);
      expect(sent).toHaveLength(3);
      expect(new Set(sent.map(traceIdOf))).toEqual(new Set([traceIdOf(parent)]));
      expect(new Set(sent).size).toBe(3);
      expect(sent).not.toContain(parent);
    });

    it('starts a trace of its own when the caller has none', async () => {
      await h.plexus.compose(store, shout).run({ text: 'x' });
      const sent = (await submitted(h)).map((e) => traceIdOf(requestOf(e).traceparent));
      expect(sent[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(sent[1]).toBe(sent[0]);
    });

    it('stops at a refusal and returns it', async () => {
      const result = await h.plexus.compose(store, compress, shout).run({ text: 'please decline' });
      expect(isRefusal(result)).toBe(true);
      expect(runs.get('concept.summary.shout')).toBeUndefined();
    });

    it('throws the failing step error naming the step', async () => {
      const error = await caught(h.plexus.compose(store, compress, shout).run({ text: 'boom' }));
      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.message).toBe(
        'concept.summary.compress: pipeline step 2 of 3 failed: cannot compress a boom',
      );
      expect(error.details).toMatchObject({ step: 2 });
      expect(runs.get('concept.summary.shout')).toBeUndefined();
    });

    it('refuses unknown verbs and empty pipelines when composed', () => {
      expect(() => h.plexus.compose('soul.memory.recall', 'nobody.offers.this')).toThrow(
        expect.objectContaining({ code: 'UNKNOWN_VERB' }),
      );
      expect(() => h.plexus.compose()).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
    });
  });

  describe('query', () => {
    it('finds verbs by pattern with their specs', () => {
      expect(h.plexus.query('soul.memory.*').map((v) => v.verb)).toEqual([
        'soul.memory.recall',
        'soul.memory.store',
      ]);
      const soul = h.plexus.query('soul.*').map((v) => v.verb);
      expect(soul).toEqual([
        'soul.memory.recall',
        'soul.memory.store',
        'soul.mind.reflect',
        'soul.rogue.act',
        'soul.rogue.gossip',
        'soul.rogue.lie',
      ]);
      const [exact] = h.plexus.query('soul.memory.recall');
      expect(exact).toMatchObject({
        verb: 'soul.memory.recall',
        agent: 'soul',
        origin: 'local',
        description: 'Finds a memory.',
        spec: {
          effects: { reads: ['memory_crystals'], emits: ['soul.memory.recalled'] },
          capabilities: ['soul:read'],
        },
      });
      expect(exact?.input).toEqual(recall.spec.input);
      expect(h.plexus.query('*')).toHaveLength(8);
      expect(h.plexus.query('town.*')).toEqual([]);
      expect(() => h.plexus.query('soul.*.recall')).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMS' }),
      );
    });
  });

  describe('subscribe', () => {
    it('yields matching events appended after the call, up to the limit', async () => {
      await h.plexus.invoke('soul.memory.store', { text: 'before' });
      const events = h.plexus.subscribe('soul.memory.*', { limit: 2 });
      await h.plexus.invoke('concept.summary.shout', { text: 'not soul' });
      await h.plexus.invoke('soul.memory.store', { text: 'one' });
      await h.plexus.invoke('soul.memory.recall', { query: 'two' });
      await h.plexus.invoke('soul.memory.store', { text: 'three' });
      const seen: string[] = [];
      for await (const e of events) seen.push(`${e.type} ${JSON.stringify(e.data)}`);
      expect(seen).toEqual(['soul.memory.stored {"text":"one"}', 'soul.memory.recalled {"query":"two"}']);
    });

    it('replays from a position, filters by tenant, and ends when aborted', async () => {
      await h.plexus.invoke('soul.memory.store', { text: 'a' }, { tenantId: 't1' });
      await h.plexus.invoke('soul.memory.store', { text: 'b' }, { tenantId: 't2' });
      const controller = new AbortController();
      const seen: unknown[] = [];
      for await (const e of h.plexus.subscribe('soul.memory.stored', {
        afterSeq: 0,
        tenantId: 't2',
        signal: controller.signal,
      })) {
        seen.push(e.data);
        controller.abort();
      }
      expect(seen).toEqual([{ text: 'b' }]);
    });

    it('rejects bad patterns at once and a bad limit', () => {
      expect(() => h.plexus.subscribe('soul.*.x')).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMS' }),
      );
      expect(() => h.plexus.subscribe('soul.*', { limit: 0 })).toThrow(/limit/);
    });
  });
});
