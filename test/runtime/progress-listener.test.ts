/**
 * The caller's in-memory progress listener (RT-056, `CallerChannel.progress`): a face hands
 * one in the invocation context and is told each progress report of the job, in order, once
 * its `job.progress` event is recorded — across a pause for input too — and never after the job
 * ended; a listener that throws is logged and the job goes on; 1,000 calls leave no listener
 * (nor its job) reachable.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import {
  defineAgent,
  type CallerChannel,
  type HandlerContext,
  type InvocationContext,
} from '../../src/runtime/index.js';
import { agent, cap, card, gate, request, spec, startRuntime, type Harness } from './helpers.js';

/** An agent whose `demo.steps` reports `input.steps` progress and keeps its context for later. */
function stepper(kept: { ctx?: HandlerContext }) {
  return agent('stepper', {
    'demo.steps': (input, ctx) => {
      kept.ctx = ctx;
      const steps = typeof input === 'object' && input !== null && 'steps' in input ? Number(input.steps) : 0;
      for (let step = 1; step <= steps; step++) ctx.progress({ step });
      return { steps };
    },
  });
}

const context = (caller: CallerChannel): InvocationContext => ({ face: 'test', caller });

describe('the caller progress listener (RT-056)', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('tells a sync call each progress report in order, each once its job.progress is recorded', async () => {
    h = await startRuntime({ agents: [stepper({})] });
    const told: JsonValue[] = [];
    const recordedWhenTold: Promise<number>[] = [];
    const answer = await h.runtime.invoke(
      request('demo.steps', { steps: 3 }),
      context({
        progress: (data) => {
          told.push(data);
          recordedWhenTold.push(h.log.read({ type: 'job.progress' }).then((events) => events.length));
        },
      }),
    );
    expect(answer.envelope.kind).toBe('response');
    expect(told).toEqual([{ step: 1 }, { step: 2 }, { step: 3 }]);
    const counts = await Promise.all(recordedWhenTold);
    counts.forEach((count, i) => {
      expect(count).toBeGreaterThanOrEqual(i + 1);
    });
  });

  it('tells the reports of every run of a job that paused for input, and none after it ended', async () => {
    const asked = gate();
    let kept: HandlerContext | undefined;
    const definition = defineAgent({
      card: card('asker', [cap('demo.ask')]),
      verbs: [spec('demo.ask', { category: 'mutation', deterministic: false })],
      create: () => ({
        'demo.ask': async (_input, ctx) => {
          kept = ctx;
          ctx.progress({ before: true });
          asked.open();
          const answer = await ctx.requestInput('Go on?', { schema: { type: 'boolean' } });
          ctx.progress({ after: answer });
          return { answer };
        },
      }),
    });
    h = await startRuntime({ agents: [definition] });
    const told: JsonValue[] = [];
    const first = await h.runtime.invoke(request('demo.ask', {}), context({ progress: (d) => told.push(d) }));
    expect(first.envelope.kind).toBe('error');
    await asked.promise;
    const jobId = first.job?.id ?? '';
    expect(jobId).not.toBe('');
    await h.runtime.jobs.provideInput(jobId, true);
    const done = await h.runtime.jobs.wait(jobId);
    expect(done.state).toBe('COMPLETED');
    await h.runtime.jobs.events(jobId); // the last report's listener call is after its commit
    // the second run replays the first (its report again, the recorded answer), then goes on
    expect(told).toEqual([{ before: true }, { before: true }, { after: true }]);
    // the handler's context outlives the job: a late report is neither recorded nor told
    const before = told.length;
    const progressEvents = (await h.log.read({ type: 'job.progress' })).length;
    kept?.progress({ late: true });
    await h.runtime.jobs.events(jobId);
    expect(told.length).toBe(before);
    expect((await h.log.read({ type: 'job.progress' })).length).toBe(progressEvents);
  });

  it('logs a listener that throws, and the job completes', async () => {
    h = await startRuntime({ agents: [stepper({})] });
    const answer = await h.runtime.invoke(
      request('demo.steps', { steps: 2 }),
      context({
        progress: () => {
          throw new Error('listener broke');
        },
      }),
    );
    expect(answer.envelope.kind).toBe('response');
    expect(answer.envelope.data).toEqual({ steps: 2 });
    expect(h.logger.events('runtime.progress_listener_failed').length).toBe(2);
  });

  it('keeps no listener reachable after 1,000 calls', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: { ctx?: HandlerContext } = {};
    h = await startRuntime({ agents: [stepper(kept)] });
    const refs: WeakRef<CallerChannel>[] = [];
    let told = 0;
    for (let i = 0; i < 1000; i++) {
      const channel: CallerChannel = { progress: () => told++ };
      refs.push(new WeakRef(channel));
      // a distinct input each time: the verb is deterministic, so an equal one would be answered from the cache
      const answer = await h.runtime.invoke(request('demo.steps', { steps: 1, i }), context(channel));
      expect(answer.envelope.kind).toBe('response');
    }
    expect(told).toBe(1000);
    delete kept.ctx; // the last handler context (and through it its job) is the test's own
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // A leak keeps every channel; a live one or two (the last call's, still held by a register or a
    // pending task when the collector ran) is not one, and made this test flaky under load in CI.
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThanOrEqual(2);
  });
});
