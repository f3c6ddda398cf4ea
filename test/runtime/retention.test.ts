import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import {
  DEFAULT_RETAINED_FINISHED_JOBS,
  jobsProjection,
  jobsProjectionWith,
  type JobsState,
} from '../../src/runtime/jobs/jobs-projection.js';
import {
  DEFAULT_RETAINED_IDEMPOTENCY_KEYS,
  idempotencyProjectionWith,
  type IdempotencyState,
} from '../../src/runtime/pipeline/idempotency.js';
import { PlexusError } from '../../src/core/errors.js';
import { rebuildProjection, sqliteEventLog } from '../../src/store/index.js';
import { agent, gate, request, startRuntime, type Harness } from './helpers.js';

/** An echo agent that counts its calls. */
function countingEcho(): { calls: () => number; definition: ReturnType<typeof agent> } {
  let calls = 0;
  return {
    calls: () => calls,
    definition: agent('echo', {
      'demo.echo': (input: JsonValue) => {
        calls++;
        return input;
      },
    }),
  };
}

describe('jobs retention', () => {
  let h: Harness | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('keeps only the most recently finished jobs in memory', async () => {
    const echo = countingEcho();
    h = await startRuntime({ agents: [echo.definition], retainFinishedJobs: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { job } = await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' });
      ids.push(job!.id);
    }
    const kept = [...h.runtime.views.jobs.state().keys()];
    expect(kept).toEqual(ids.slice(4));
  });

  it('reads a finished job it no longer keeps back from the log (job, answer, events)', async () => {
    const echo = countingEcho();
    dir = await mkdtemp(join(tmpdir(), 'plexus-retention-'));
    h = await startRuntime({ agents: [echo.definition], retainFinishedJobs: 2 }, sqliteEventLog({ dir }));
    const first = await h.runtime.invoke(request('demo.echo', { i: 0 }), { face: 'test' });
    for (let i = 1; i < 5; i++) await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' });
    const id = first.job!.id;
    expect(h.runtime.views.jobs.state().has(id)).toBe(false);
    const job = await h.runtime.jobs.get(id);
    expect(job).toEqual(first.job);
    expect((await h.runtime.jobs.answer(id)).data).toEqual({ i: 0 });
    expect((await h.runtime.jobs.events(id)).map((e) => e.name)).toEqual([
      'job_queued',
      'job_started',
      'job_succeeded',
    ]);
    await expect(h.runtime.jobs.get('no-such-job')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers a duplicate of a job it no longer keeps without running it again (D5)', async () => {
    const echo = countingEcho();
    h = await startRuntime({ agents: [echo.definition], retainFinishedJobs: 1 });
    const once = await h.runtime.invoke(request('demo.echo', { same: true }), { face: 'test' });
    await h.runtime.invoke(request('demo.echo', { other: 1 }), { face: 'test' });
    await h.runtime.invoke(request('demo.echo', { other: 2 }), { face: 'test' });
    expect(h.runtime.views.jobs.state().has(once.job!.id)).toBe(false);
    expect(echo.calls()).toBe(3);
    const again = await h.runtime.invoke(request('demo.echo', { same: true }), { face: 'test' });
    expect(again.duplicate).toBe(true);
    expect(again.job?.id).toBe(once.job!.id);
    expect(again.envelope.data).toEqual({ same: true });
    expect(echo.calls()).toBe(3);
    const async = await h.runtime.submit(request('demo.echo', { same: true }), { face: 'test' });
    expect(async).toMatchObject({ duplicate: true, job: { id: once.job!.id, state: 'COMPLETED' } });
    expect(echo.calls()).toBe(3);
  });

  it('rebuilds the same retained state from the log as the live view holds', async () => {
    const echo = countingEcho();
    h = await startRuntime({ agents: [echo.definition], retainFinishedJobs: 4 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => h!.runtime.invoke(request('demo.echo', { i }), { face: 'test' })),
    );
    const checks = await h.runtime.verify();
    expect(checks.every((c) => c.ok)).toBe(true);
    const rebuilt = await rebuildProjection<JobsState>(h.log, jobsProjectionWith({ retainFinishedJobs: 4 }));
    expect([...rebuilt.state.keys()].sort()).toEqual([...h.runtime.views.jobs.state().keys()].sort());
    expect(rebuilt.state.size).toBe(4);
  });

  it('keeps retaining in finish order after a state restored from a snapshot', async () => {
    const echo = countingEcho();
    h = await startRuntime({ agents: [echo.definition], retainFinishedJobs: 3 });
    for (let i = 0; i < 5; i++) await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' });
    const projection = jobsProjectionWith({ retainFinishedJobs: 3 });
    const live = h.runtime.views.jobs.state();
    const restored = projection.fromJson!(JSON.parse(JSON.stringify(projection.toJson!(live))) as JsonValue);
    const events = await h.log.read({ typePrefix: 'job.' });
    const oldestKept = [...live.values()].sort((a, b) => a.lastSeq - b.lastSeq)[0]!.job.id;
    // one more job finishing must evict the oldest finished job, whatever the Map order
    const last = events.filter((e) => e.data !== null && (e.data as { id?: unknown }).id !== undefined);
    const submitted = last.find((e) => e.type === 'job.submitted')!;
    const fresh = { ...submitted, seq: 10_000, data: { ...(submitted.data as object), id: 'new-job' } };
    let state = projection.apply(restored, fresh);
    state = projection.apply(state, {
      ...fresh,
      seq: 10_001,
      type: 'job.started',
      data: { agents: ['echo'], attempt: 1, id: 'new-job', route: 'local' },
    });
    expect(state.size).toBe(4); // running jobs are not counted
    state = projection.apply(state, {
      ...fresh,
      seq: 10_002,
      type: 'job.completed',
      data: { id: 'new-job', outputs: null },
    });
    expect(state.has(oldestKept)).toBe(false);
    expect(state.has('new-job')).toBe(true);
    expect(state.size).toBe(3);
  });

  it('keeps the default limit and refuses a bad one', () => {
    expect(DEFAULT_RETAINED_FINISHED_JOBS).toBe(10_000);
    expect(jobsProjection.version).toBe(4);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => jobsProjectionWith({ retainFinishedJobs: bad })).toThrow(/retainFinishedJobs/);
    }
    expect(() => jobsProjectionWith({ retainFinishedJobs: Infinity })).not.toThrow();
  });
});

describe('idempotency keys retention (A2A-23)', () => {
  let h: Harness | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const keyed = (key: string, data: JsonValue) => ({ face: 'test' as const, idempotencyKey: key, data });

  it('keeps at most retainIdempotencyKeys keys; an evicted key still answers from the log, also after a restart', async () => {
    const echo = countingEcho();
    dir = await mkdtemp(join(tmpdir(), 'plexus-idem-retention-'));
    const init = { agents: [echo.definition], retainIdempotencyKeys: 2, retainFinishedJobs: 1 };
    h = await startRuntime(init, sqliteEventLog({ dir }));
    const send = (k: ReturnType<typeof keyed>) =>
      h!.runtime.invoke(request('demo.echo', k.data), { face: k.face, idempotencyKey: k.idempotencyKey });
    const first = await send(keyed('m-1', { i: 1 }));
    for (let i = 2; i <= 6; i++) await send(keyed(`m-${i}`, { i }));
    const state = h.runtime.views.idempotency.state();
    expect(state.keys.size).toBe(2);
    expect([...state.keys.keys()]).toEqual(['|m-5', '|m-6']);
    expect(state.evictedUntil).toBeGreaterThan(Date.now());
    expect(echo.calls()).toBe(6);

    const again = await send(keyed('m-1', { i: 1 }));
    expect(again.duplicate).toBe(true);
    expect(again.job?.id).toBe(first.job!.id);
    expect(again.envelope.data).toEqual({ i: 1 });
    expect(echo.calls()).toBe(6);
    // the same key with another payload is still a conflict, read from the log
    expect((await send(keyed('m-1', { i: 99 }))).envelope.data).toMatchObject({ code: 'CONFLICT' });
    // a key never used runs
    await send(keyed('m-new', { i: 7 }));
    expect(echo.calls()).toBe(7);
    expect((await h.runtime.verify()).every((c) => c.ok)).toBe(true);

    await h.close();
    h = await startRuntime(init, sqliteEventLog({ dir }));
    expect(h.runtime.views.idempotency.state().keys.has('|m-1')).toBe(false);
    const afterRestart = await send(keyed('m-1', { i: 1 }));
    expect(afterRestart.duplicate).toBe(true);
    expect(afterRestart.job?.id).toBe(first.job!.id);
    expect(echo.calls()).toBe(7);
    const async = await h.runtime.submit(request('demo.echo', { i: 2 }), {
      face: 'test',
      idempotencyKey: 'm-2',
    });
    expect(async).toMatchObject({ duplicate: true, job: { state: 'COMPLETED' } });
    expect(echo.calls()).toBe(7);
  });

  it('runs an evicted key again when its job released it (a retryable failure)', async () => {
    let calls = 0;
    const flaky = agent('flaky', {
      'demo.flaky': (input: JsonValue) => {
        calls++;
        if (calls === 1) throw new PlexusError('UNAVAILABLE', 'try again', { retryable: true });
        return input;
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'plexus-idem-release-'));
    h = await startRuntime({ agents: [flaky], retainIdempotencyKeys: 1 }, sqliteEventLog({ dir }));
    const send = (key: string, data: JsonValue) =>
      h!.runtime.invoke(request('demo.flaky', data), { face: 'test', idempotencyKey: key });
    const failed = await send('r-1', { n: 1 });
    expect(failed.job?.state).toBe('FAILED');
    await send('r-2', { n: 2 });
    await send('r-3', { n: 3 });
    expect(h.runtime.views.idempotency.state().keys.has('|r-1')).toBe(false);
    const retried = await send('r-1', { n: 1 });
    expect(retried.duplicate).not.toBe(true);
    expect(retried.job?.state).toBe('COMPLETED');
    expect(calls).toBe(4);
    // and that new job now answers the key (found in the log again once evicted)
    await send('r-4', { n: 4 });
    const dup = await send('r-1', { n: 1 });
    expect(dup.duplicate).toBe(true);
    expect(dup.job?.id).toBe(retried.job!.id);
    expect(calls).toBe(5);
  });

  it('never evicts the key of a running job, and rebuilds the same bounded state from the log', async () => {
    const release = gate();
    const slow = agent('slow', {
      'demo.slow': async (input: JsonValue) => {
        await release.promise;
        return input;
      },
      'demo.fast': (input: JsonValue) => input,
    });
    h = await startRuntime({ agents: [slow], retainIdempotencyKeys: 2 });
    const running = await h.runtime.submit(request('demo.slow', { s: 1 }), {
      face: 'test',
      idempotencyKey: 'live',
    });
    for (let i = 0; i < 5; i++) {
      await h.runtime.invoke(request('demo.fast', { i }), { face: 'test', idempotencyKey: `f-${i}` });
    }
    const keys = [...h.runtime.views.idempotency.state().keys.keys()];
    expect(keys).toContain('|live');
    expect(keys.length).toBeLessThanOrEqual(3);
    release.open();
    await h.runtime.jobs.wait(running.job.id);
    const rebuilt = await rebuildProjection<IdempotencyState>(
      h.log,
      idempotencyProjectionWith({ retainKeys: 2 }),
    );
    const live = idempotencyProjectionWith({ retainKeys: 2 });
    expect(rebuilt.state.evictedUntil).toBe(h.runtime.views.idempotency.state().evictedUntil);
    expect(live.toJson!(rebuilt.state)).toEqual(live.toJson!(h.runtime.views.idempotency.state()));
  });

  it('keeps the default limit and refuses a bad one', () => {
    expect(DEFAULT_RETAINED_IDEMPOTENCY_KEYS).toBe(10_000);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => idempotencyProjectionWith({ retainKeys: bad })).toThrow(/retainIdempotencyKeys/);
    }
    expect(() => idempotencyProjectionWith({ retainKeys: Infinity })).not.toThrow();
  });
});
