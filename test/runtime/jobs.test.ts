import { afterEach, describe, expect, it } from 'vitest';
import { validateJob } from '../../src/core/records/job.js';
import { type JobEvent } from '../../src/runtime/index.js';
import { agent, gate, type Harness, request, startRuntime } from './helpers.js';
import { until } from '../support/until.js';

/** An agent whose `demo.slow` waits for the test (or its signal) and counts its calls. */
function slowAgent() {
  const calls: string[] = [];
  const aborted: string[] = [];
  const release = gate();
  const definition = agent('slow', {
    'demo.slow': async (input, ctx) => {
      calls.push(ctx.jobId);
      ctx.signal.addEventListener('abort', () => aborted.push(ctx.jobId));
      ctx.progress({ step: 1 });
      await Promise.race([
        release.promise,
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
      ]);
      ctx.progress({ step: 2 });
      return input;
    },
    'demo.hang': () => new Promise(() => undefined),
    'demo.quiet': async (input, ctx) => {
      calls.push(ctx.jobId);
      await release.promise;
      return input;
    },
  });
  return { definition, calls, aborted, release };
}

async function collect(iterable: AsyncIterable<JobEvent>): Promise<JobEvent[]> {
  const out: JobEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

describe('runtime jobs', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('submits an async job, returns it SUBMITTED at once, and completes it', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { job } = await h.runtime.submit(request('demo.slow', { n: 1 }), { face: 'test' });
    expect(['SUBMITTED', 'WORKING']).toContain(job.state);
    expect(validateJob(job)).toEqual([]);
    slow.release.open();
    const done = await h.runtime.jobs.wait(job.id);
    expect(done.state).toBe('COMPLETED');
    expect(done.outputs).toEqual({ n: 1 });
    expect(done.attempts).toBe(1);
    expect(validateJob(done)).toEqual([]);
    expect((await h.runtime.jobs.answer(job.id)).data).toEqual({ n: 1 });
  });

  it('keeps a job’s events readable in order with their seq, and resumable after a seq', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { job } = await h.runtime.submit(request('demo.slow', { n: 2 }), { face: 'test' });
    await until(() => slow.calls.length === 1);
    slow.release.open();
    await h.runtime.jobs.wait(job.id);
    const events = await h.runtime.jobs.events(job.id);
    expect(events.map((e) => e.name)).toEqual([
      'job_queued',
      'job_started',
      'job_progress',
      'job_progress',
      'job_succeeded',
    ]);
    const seqs = events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(events.at(-1)?.terminal).toBe(true);
    const third = events[2]!;
    expect((await h.runtime.jobs.events(job.id, { afterSeq: third.seq })).map((e) => e.seq)).toEqual(
      seqs.slice(3),
    );
    expect((await collect(h.runtime.jobs.watch(job.id, { afterSeq: third.seq }))).map((e) => e.seq)).toEqual(
      seqs.slice(3),
    );
  });

  it('streams the events of a running job live until its end', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { job } = await h.runtime.submit(request('demo.slow', { n: 3 }), { face: 'test' });
    const watching = collect(h.runtime.jobs.watch(job.id));
    await until(() => slow.calls.length === 1);
    slow.release.open();
    const events = await watching;
    expect(events.map((e) => e.type)).toEqual([
      'job.submitted',
      'job.started',
      'job.progress',
      'job.progress',
      'job.completed',
    ]);
  });

  it('fails a hanging job with TIMEOUT at its deadline (per-request override)', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { envelope, job } = await h.runtime.invoke(request('demo.hang', null), {
      face: 'test',
      timeoutMs: 50,
    });
    expect(envelope.kind).toBe('error');
    expect(envelope.data).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(job?.state).toBe('FAILED');
    expect(job?.error?.message).toContain('50 ms');
  });

  it('uses the envelope deadline when it is the earlier one', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const deadline = new Date(Date.now() + 60).toISOString();
    const { job } = await h.runtime.invoke(request('demo.hang', null, 'slow', { deadline }), {
      face: 'test',
      timeoutMs: 60_000,
    });
    expect(job?.error?.code).toBe('TIMEOUT');
  });

  it('cancels a running job: its handler’s signal aborts and the job is CANCELED', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { job } = await h.runtime.submit(request('demo.slow', { n: 4 }), { face: 'test' });
    await until(() => slow.calls.length === 1);
    const cancelled = await h.runtime.jobs.cancel(job.id, { reason: 'test says so' });
    expect(cancelled.state).toBe('CANCELED');
    expect(cancelled.error?.code).toBe('CANCELLED');
    expect(slow.aborted).toEqual([job.id]);
    expect(validateJob(cancelled)).toEqual([]);
    expect((await h.runtime.jobs.events(job.id)).at(-1)?.name).toBe('job_cancelled');
    expect((await h.runtime.jobs.cancel(job.id)).state).toBe('CANCELED');
  });

  it('cancels a queued job before it starts; its handler never runs', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition], concurrency: 1 });
    const first = await h.runtime.submit(request('demo.slow', { n: 5 }), { face: 'test' });
    const second = await h.runtime.submit(request('demo.slow', { n: 6 }), { face: 'test' });
    await until(() => slow.calls.length === 1);
    expect((await h.runtime.jobs.get(second.job.id)).state).toBe('SUBMITTED');
    const cancelled = await h.runtime.jobs.cancel(second.job.id);
    expect(cancelled.state).toBe('CANCELED');
    expect(cancelled.attempts).toBe(0);
    slow.release.open();
    expect((await h.runtime.jobs.wait(first.job.id)).state).toBe('COMPLETED');
    expect(slow.calls).toEqual([first.job.id]);
  });

  it('runs queued jobs in order when concurrency frees up', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition], concurrency: 1 });
    const jobs = await Promise.all(
      [1, 2, 3].map((n) => h.runtime.submit(request('demo.slow', { n }), { face: 'test' })),
    );
    slow.release.open();
    for (const { job } of jobs) expect((await h.runtime.jobs.wait(job.id)).state).toBe('COMPLETED');
    expect(slow.calls).toEqual(jobs.map((j) => j.job.id));
  });

  it('cancels a synchronous job when the caller aborts', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const controller = new AbortController();
    const pending = h.runtime.invoke(
      request('demo.slow', { n: 7 }),
      { face: 'test' },
      { signal: controller.signal },
    );
    await until(() => slow.calls.length === 1);
    controller.abort();
    const { envelope, job } = await pending;
    expect(envelope.data).toMatchObject({ code: 'CANCELLED' });
    expect(job?.state).toBe('CANCELED');
  });

  it('writes a sync job in one batch at its end, yet shows it when asked while it runs', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition], preEffects: [] });
    const quick = await h.runtime.invoke(request('demo.hang', null), { face: 'test', timeoutMs: 10 });
    const batch = await h.log.read({ causation: quick.job!.id });
    expect(new Set(batch.map((e) => e.time)).size).toBe(1); // one commit
    expect(batch.map((e) => e.type)).toEqual(['job.submitted', 'job.started', 'job.failed']);
    expect(validateJob(quick.job)).toEqual([]);

    const pending = h.runtime.invoke(request('demo.quiet', { n: 10 }), { face: 'test' });
    await until(() => slow.calls.length === 1);
    const running = await h.runtime.jobs.get(slow.calls[0]!);
    expect(running.state).toBe('WORKING');
    slow.release.open();
    expect((await pending).job?.state).toBe('COMPLETED');
  });

  it('answers NOT_FOUND for an unknown job', async () => {
    h = await startRuntime({});
    await expect(h.runtime.jobs.get('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(h.runtime.jobs.cancel('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(h.runtime.jobs.events('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(collect(h.runtime.jobs.watch('nope'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses jobs.answer for an unfinished job with CONFLICT', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const { job } = await h.runtime.submit(request('demo.slow', { n: 8 }), { face: 'test' });
    await expect(h.runtime.jobs.answer(job.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    slow.release.open();
  });

  it('keeps job state a projection of the log: a rebuild equals the live state', async () => {
    const slow = slowAgent();
    h = await startRuntime({ agents: [slow.definition] });
    const a = await h.runtime.submit(request('demo.slow', { n: 9 }), { face: 'test' });
    await h.runtime.invoke(request('demo.hang', null), { face: 'test', timeoutMs: 20 });
    slow.release.open();
    await h.runtime.jobs.wait(a.job.id);
    const checks = await h.runtime.verify();
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['runtime.registry', true],
      ['runtime.jobs', true],
      ['runtime.idempotency', true],
      ['runtime.ledger', true],
    ]);
  });
});
