import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { agent, gate, LOG_BACKENDS, request, startRuntime, type Harness } from './helpers.js';
import { until } from '../support/until.js';

function slowAgent() {
  const calls: string[] = [];
  const release = gate();
  const definition = agent('slow', {
    'demo.slow': async (input, ctx) => {
      calls.push(ctx.jobId);
      await Promise.race([
        release.promise,
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
      ]);
      return input;
    },
  });
  return { definition, calls, release };
}

describe('runtime.stop (graceful drain)', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('stops accepting at once, lets a running job finish inside the bound', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const running = h.runtime.invoke(request('demo.slow', { n: 1 }), { face: 't' });
    await until(() => slow.calls.length === 1);
    const stopping = h.runtime.stop({ drainMs: 5000 });
    const refused = await h.runtime.invoke(request('demo.slow', { n: 2 }), { face: 't' });
    expect(refused.envelope.data).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    slow.release.open();
    const answer = await running;
    expect(answer.envelope.kind).toBe('response');
    await stopping;
    expect((await h.log.read({ type: 'job.completed' })).length).toBe(1);
  });

  it('cancels what is still running or queued when the bound passes', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition], concurrency: 1 });
    const a = await h.runtime.submit(request('demo.slow', { n: 1 }), { face: 't' });
    const b = await h.runtime.submit(request('demo.slow', { n: 2 }), { face: 't' });
    await until(() => slow.calls.length === 1);
    await h.runtime.stop({ drainMs: 20 });
    const canceled = await h.log.read({ type: 'job.canceled' });
    expect(canceled.map((e) => (e.data as { id: string }).id).sort()).toEqual([a.job.id, b.job.id].sort());
    expect(
      canceled.every((e) => (e.data as { error: { message: string } }).error.message.includes('stopping')),
    ).toBe(true);
    expect(slow.calls).toEqual([a.job.id]);
  });

  it('is idempotent: stop twice, start twice, and start again after stop', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    await h.runtime.start();
    await Promise.all([h.runtime.stop({ drainMs: 0 }), h.runtime.stop({ drainMs: 0 })]);
    await h.runtime.stop();
    await h.runtime.start();
    slow.release.open();
    expect((await h.runtime.invoke(request('demo.slow', { n: 3 }), { face: 't' })).envelope.kind).toBe(
      'response',
    );
    expect((await h.runtime.verify()).every((c) => c.ok)).toBe(true);
  });

  it('refuses to start on a log that is not started', async () => {
    h = await startRuntime({});
    const { memoryEventLog } = await import('../../src/store/index.js');
    const other = createRuntime({ log: memoryEventLog() });
    await expect(other.start()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe.each(LOG_BACKENDS)('runtime on the $name log', ({ make }) => {
  it('runs, records, restarts and rebuilds the same state', async () => {
    const { log, reopen, cleanup } = await make();
    let current = log;
    const slow = slowAgent();
    slow.release.open();
    try {
      await log.start();
      const first = createRuntime({ log, agents: [slow.definition] });
      await first.start();
      const sync = await first.invoke(request('demo.slow', { n: 1 }), { face: 't' });
      const submitted = await first.submit(request('demo.slow', { n: 2 }), { face: 't' });
      const done = await first.jobs.wait(submitted.job.id);
      const events = await first.jobs.events(submitted.job.id);
      await first.stop();
      await log.stop();

      current = reopen();
      await current.start();
      const second = createRuntime({ log: current, agents: [slow.definition] });
      await second.start();
      expect(await second.jobs.get(sync.job!.id)).toEqual(sync.job);
      expect(await second.jobs.get(done.id)).toEqual(done);
      expect(await second.jobs.events(done.id)).toEqual(events);
      expect(second.agents.registry.get('slow').revision).toBe(1); // re-registered unchanged at start: same revision
      expect((await second.verify()).every((c) => c.ok)).toBe(true);
      expect((await current.verifyChain()).ok).toBe(true);
      await second.stop();
    } finally {
      await current.stop();
      await cleanup();
    }
  });
});
