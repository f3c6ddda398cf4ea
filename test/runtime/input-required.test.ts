/**
 * A handler asking its caller for input mid-job (`ctx.requestInput`, INPUT_REQUIRED): the job
 * pauses durably, an answer runs it again with the answers replayed, and a job waiting for
 * input survives a restart of the node (the real SQLite log).
 */
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { validateJob } from '../../src/core/records/job.js';
import { createRuntime, defineAgent, type AgentDefinition } from '../../src/runtime/index.js';
import { cap, card, request, spec, sqliteLog, tempDir } from './helpers.js';

/** An agent whose `demo.book` asks for a date (a string) and then a seat count (an integer). */
function booking(runs: { count: number }): AgentDefinition {
  return defineAgent({
    card: card('booker', [cap('demo.book')]),
    verbs: [spec('demo.book', { category: 'mutation', deterministic: false })],
    create: () => ({
      'demo.book': async (input, ctx) => {
        runs.count++;
        const date = await ctx.requestInput('Which date?', { schema: { type: 'string' } });
        const seats = await ctx.requestInput(`How many seats on ${JSON.stringify(date)}?`, {
          schema: { type: 'integer', minimum: 1 },
        });
        return { input, date, seats };
      },
    }),
  });
}

async function runtimeOn(dir: string, runs: { count: number }) {
  const log = sqliteLog(dir);
  await log.start();
  const runtime = createRuntime({ log, agents: [booking(runs)] });
  await runtime.start();
  return {
    runtime,
    stop: async () => {
      await runtime.stop({ drainMs: 1000 });
      await log.stop();
    },
  };
}

describe('ctx.requestInput: INPUT_REQUIRED jobs', () => {
  it('pauses the job, takes answers in order, replays them and completes', async () => {
    const { dir, remove } = await tempDir();
    const runs = { count: 0 };
    const { runtime, stop } = await runtimeOn(dir, runs);
    try {
      const { job } = await runtime.submit(request('demo.book', { who: 'ada' }), { face: 'test' });
      const paused = await runtime.jobs.wait(job.id, { orInputRequired: true });
      expect(paused.state).toBe('INPUT_REQUIRED');
      expect(paused.input).toEqual({ prompt: 'Which date?', schema: { type: 'string' } });
      expect(validateJob(paused)).toEqual([]);

      // a wrong answer is refused and changes nothing
      await expect(runtime.jobs.provideInput(job.id, 7)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
      expect((await runtime.jobs.get(job.id)).state).toBe('INPUT_REQUIRED');

      const resumed = await runtime.jobs.provideInput(job.id, '2026-12-01', { principal: 'did:example:ada' });
      expect(resumed.state).not.toBe('FAILED');
      const second = await runtime.jobs.wait(job.id, { orInputRequired: true });
      expect(second.state).toBe('INPUT_REQUIRED');
      expect(second.input?.prompt).toBe('How many seats on "2026-12-01"?');
      expect(second.attempts).toBe(1); // an answer is not a new attempt

      await runtime.jobs.provideInput(job.id, 2);
      const done = await runtime.jobs.wait(job.id);
      expect(done.state).toBe('COMPLETED');
      expect(done.input).toBeUndefined();
      expect(done.outputs).toEqual({ input: { who: 'ada' }, date: '2026-12-01', seats: 2 });
      expect(runs.count).toBe(3); // run, run again after each answer
      expect(validateJob(done)).toEqual([]);

      // the log tells the story in order
      const types = (await runtime.jobs.events(job.id)).map((e) => e.type);
      expect(types).toEqual([
        'job.submitted',
        'job.started',
        'job.input_required',
        'job.input_provided',
        'job.input_required',
        'job.input_provided',
        'job.completed',
      ]);
      // a finished job takes no more answers
      await expect(runtime.jobs.provideInput(job.id, 3)).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await stop();
      await remove();
    }
  });

  it('answers a synchronous caller at the pause with CONFLICT naming the prompt; the job waits on', async () => {
    const { dir, remove } = await tempDir();
    const runs = { count: 0 };
    const { runtime, stop } = await runtimeOn(dir, runs);
    try {
      const { envelope, job } = await runtime.invoke(request('demo.book', {}), { face: 'test' });
      expect(envelope.kind).toBe('error');
      const data = envelope.data as { code: string; message: string; details: { state: string } };
      expect(data.code).toBe('CONFLICT');
      expect(data.message).toContain('Which date?');
      expect(data.details.state).toBe('INPUT_REQUIRED');
      expect(job?.state).toBe('INPUT_REQUIRED');
      if (job === undefined) throw new Error('no job');
      await runtime.jobs.provideInput(job.id, 'today');
      await runtime.jobs.provideInput(job.id, 1).catch((e: unknown) => {
        // the second answer may arrive before the handler asked again
        expect((e as PlexusError).code).toBe('CONFLICT');
      });
    } finally {
      await stop();
      await remove();
    }
  });

  it('cancels a job that waits for input', async () => {
    const { dir, remove } = await tempDir();
    const { runtime, stop } = await runtimeOn(dir, { count: 0 });
    try {
      const { job } = await runtime.submit(request('demo.book', {}), { face: 'test' });
      await runtime.jobs.wait(job.id, { orInputRequired: true });
      const canceled = await runtime.jobs.cancel(job.id);
      expect(canceled.state).toBe('CANCELED');
      expect(canceled.input).toBeUndefined();
      await expect(runtime.jobs.provideInput(job.id, 'x')).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await stop();
      await remove();
    }
  });

  it('keeps a job waiting for input across a restart, with its answers so far', async () => {
    const { dir, remove } = await tempDir();
    const runs = { count: 0 };
    try {
      const first = await runtimeOn(dir, runs);
      const { job } = await first.runtime.submit(request('demo.book', { who: 'bob' }), { face: 'test' });
      await first.runtime.jobs.wait(job.id, { orInputRequired: true });
      await first.runtime.jobs.provideInput(job.id, '2027-01-01');
      const waiting = await first.runtime.jobs.wait(job.id, { orInputRequired: true });
      expect(waiting.input?.prompt).toBe('How many seats on "2027-01-01"?');
      await first.stop(); // a stop does not cancel it

      const second = await runtimeOn(dir, runs);
      try {
        const recovered = await second.runtime.jobs.get(job.id);
        expect(recovered.state).toBe('INPUT_REQUIRED');
        expect(recovered.input?.prompt).toBe('How many seats on "2027-01-01"?');
        await second.runtime.jobs.provideInput(job.id, 4);
        const done = await second.runtime.jobs.wait(job.id);
        expect(done.state).toBe('COMPLETED');
        expect(done.outputs).toEqual({ input: { who: 'bob' }, date: '2027-01-01', seats: 4 });
      } finally {
        await second.stop();
      }
    } finally {
      await remove();
    }
  });

  it('refuses a prompt that is empty', async () => {
    const { dir, remove } = await tempDir();
    const log = sqliteLog(dir);
    await log.start();
    const runtime = createRuntime({
      log,
      agents: [
        defineAgent({
          card: card('bad', [cap('demo.bad')]),
          verbs: [spec('demo.bad')],
          create: () => ({ 'demo.bad': async (_input, ctx) => ctx.requestInput('') }),
        }),
      ],
    });
    await runtime.start();
    try {
      const { envelope } = await runtime.invoke(request('demo.bad', {}), { face: 'test' });
      expect((envelope.data as { code: string }).code).toBe('INVALID_PARAMS');
    } finally {
      await runtime.stop({ drainMs: 100 });
      await log.stop();
      await remove();
    }
  });
});
