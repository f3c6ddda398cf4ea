import { describe, expect, it } from 'vitest';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import {
  createRuntime,
  defineAgent,
  isRerunSafe,
  memoryObserver,
  type AgentDefinition,
} from '../../src/runtime/index.js';
import { cap, card, gate, request, spec, sqliteLog, tempDir } from './helpers.js';
import { until } from '../support/until.js';

const VERBS: readonly VerbSpec[] = [
  spec('demo.lookup', { category: 'query', deterministic: true, effects: { reads: ['db/*'] } }),
  spec('demo.write', { category: 'mutation', deterministic: false, effects: { writes: ['db/*'] } }),
];

function worker(
  handler: (verb: string, input: unknown, signal: AbortSignal) => Promise<unknown>,
): AgentDefinition {
  return defineAgent({
    card: card('worker', [cap('demo.lookup'), cap('demo.write')]),
    verbs: VERBS,
    create: () => ({
      'demo.lookup': (input, ctx) => handler('demo.lookup', input, ctx.signal) as never,
      'demo.write': (input, ctx) => handler('demo.write', input, ctx.signal) as never,
    }),
  });
}

describe('isRerunSafe', () => {
  it('re-runs queries and deterministic verbs without side effects, nothing else', () => {
    expect(isRerunSafe(spec('a.b', { category: 'query', deterministic: false }))).toBe(true);
    expect(isRerunSafe(spec('a.b', { category: 'mutation', deterministic: true }))).toBe(true);
    expect(isRerunSafe(spec('a.b', { category: 'query', effects: { reads: ['x'], audits: ['y'] } }))).toBe(
      true,
    );
    expect(isRerunSafe(spec('a.b', { category: 'query', effects: { writes: ['x'] } }))).toBe(false);
    expect(isRerunSafe(spec('a.b', { category: 'mutation', deterministic: false }))).toBe(false);
    expect(isRerunSafe(undefined)).toBe(false);
  });
});

describe('runtime recovery on a SQLite log', () => {
  it('re-queues idempotent jobs and fails the others as retryable after a crash', async () => {
    const { dir, remove } = await tempDir();
    const hold = gate();
    const started: string[] = [];
    const firstLog = sqliteLog(dir);
    await firstLog.start();
    const first = createRuntime({
      log: firstLog,
      concurrency: 2,
      agents: [
        worker(async (verb, _input, signal) => {
          started.push(verb);
          await Promise.race([
            hold.promise,
            new Promise((_, reject) => {
              signal.addEventListener('abort', () => {
                reject(new Error('stop'));
              });
            }),
          ]);
          return 'first';
        }),
      ],
    });
    await first.start();
    const lookupRunning = await first.submit(request('demo.lookup', { q: 1 }), { face: 'test' });
    const writeRunning = await first.submit(request('demo.write', { w: 1 }), { face: 'test' });
    const lookupQueued = await first.submit(request('demo.lookup', { q: 2 }), { face: 'test' });
    const writeQueued = await first.submit(request('demo.write', { w: 2 }), { face: 'test' });
    await until(() => started.length === 2);
    await until(() => first.views.jobs.state().get(writeRunning.job.id)?.job.state === 'WORKING');
    await until(() => first.views.jobs.state().get(lookupRunning.job.id)?.job.state === 'WORKING');
    expect(first.views.jobs.state().get(lookupQueued.job.id)?.job.state).toBe('SUBMITTED');

    // The crash: the process's log goes away under the runtime, which is never stopped.
    await firstLog.stop();

    const secondLog = sqliteLog(dir);
    await secondLog.start();
    const observer = memoryObserver();
    const runs: string[] = [];
    const second = createRuntime({
      log: secondLog,
      observer,
      agents: [
        worker((verb, input) => {
          runs.push(verb);
          return Promise.resolve({ again: input as never });
        }),
      ],
    });
    try {
      await second.start();
      const lookup1 = await second.jobs.wait(lookupRunning.job.id);
      const lookup2 = await second.jobs.wait(lookupQueued.job.id);
      expect(lookup1).toMatchObject({ state: 'COMPLETED', outputs: { again: { q: 1 } }, attempts: 2 });
      expect(lookup2).toMatchObject({ state: 'COMPLETED', outputs: { again: { q: 2 } }, attempts: 1 });
      const events = await second.jobs.events(lookupRunning.job.id);
      expect(events.map((e) => e.type)).toEqual([
        'job.submitted',
        'job.started',
        'job.retried',
        'job.completed',
      ]);

      for (const id of [writeRunning.job.id, writeQueued.job.id]) {
        const failed = await second.jobs.get(id);
        expect(failed.state).toBe('FAILED');
        expect(failed.error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
        expect(failed.error?.message).toContain('node restarted');
      }
      expect(runs.sort()).toEqual(['demo.lookup', 'demo.lookup']);

      // The failed write's key was released: the client's retry runs it.
      const retry = await second.invoke(request('demo.write', { w: 1 }), { face: 'test' });
      expect(retry.duplicate).toBe(false);
      expect(retry.envelope.data).toEqual({ again: { w: 1 } });
      // The completed lookup's key answers duplicates.
      expect((await second.invoke(request('demo.lookup', { q: 1 }), { face: 'test' })).duplicate).toBe(true);

      expect((await second.verify()).map((c) => c.ok)).toEqual([true, true, true, true]);
      expect((await secondLog.verifyChain()).ok).toBe(true);
    } finally {
      await second.stop();
      await secondLog.stop();
      hold.open();
      await first.stop({ drainMs: 0 });
      await remove();
    }
  });

  it('recovers nothing when every job had finished', async () => {
    const { dir, remove } = await tempDir();
    const log = sqliteLog(dir);
    await log.start();
    const definition = worker((verb) => Promise.resolve(verb));
    const runtime = createRuntime({ log, agents: [definition] });
    await runtime.start();
    const { job } = await runtime.invoke(request('demo.write', { w: 1 }), { face: 'test' });
    await runtime.stop();
    await log.stop();
    const reopened = sqliteLog(dir);
    await reopened.start();
    const again = createRuntime({ log: reopened, agents: [definition] });
    await again.start();
    try {
      expect((await again.jobs.get(job!.id)).state).toBe('COMPLETED');
      expect((await reopened.read({ type: 'job.failed' })).length).toBe(0);
    } finally {
      await again.stop();
      await reopened.stop();
      await remove();
    }
  });
});
