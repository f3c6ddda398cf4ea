import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jobsOfDataDir } from '../../src/node/index.js';
import { useBuiltDist } from '../support/e2e-fixture.js';
import { BIN, esrpRequest, eventually, exitOf, get, post, startNodeProcess } from './harness.js';

// Shutdown and recovery (issue 3 item 7) with real processes.
useBuiltDist();

describe('a node killed with SIGKILL during load', () => {
  it('has every acknowledged job after a restart, re-runs the idempotent running job, and its log replays', async () => {
    const first = await startNodeProcess();
    const { dataDir } = first;
    // A job that is running when the node dies: demo.slow is declared safe to run again.
    const slow = await post(
      `${first.url}/v1/jobs`,
      esrpRequest('demo.slow', { seconds: 3, steps: 3 }, 'async'),
    );
    const slowId = slow.body.job.job_id as string;

    const acknowledged = new Map<string, 'async' | 'sync'>();
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const mode = i % 2 === 0 ? 'async' : 'sync';
        try {
          const r = await post(
            `${first.url}/v1/${mode === 'async' ? 'jobs' : 'execute'}`,
            esrpRequest('echo.echo', { worker: w, i }, mode),
          );
          if ((r.status === 202 || r.status === 200) && typeof r.body?.job?.job_id === 'string') {
            acknowledged.set(r.body.job.job_id as string, mode);
          }
        } catch {
          return; // the node is gone: this request was never acknowledged
        }
      }
    };
    const workers = Array.from({ length: 32 }, (_, w) => worker(w));
    await eventually('some acknowledged jobs', () =>
      Promise.resolve(acknowledged.size >= 150 ? true : undefined),
    );
    first.child.kill('SIGKILL');
    expect(await exitOf(first)).toBe('SIGKILL');
    stop = true;
    await Promise.all(workers);
    const acked = new Map(acknowledged);

    const second = await startNodeProcess({ dataDir });
    const slowJob = await eventually('the interrupted job to finish again', async () => {
      const r = await get(`${second.url}/v1/jobs/${slowId}`);
      return r.body.status === 'succeeded' ? (r.body as { job: { state: string } }) : undefined;
    });
    expect(slowJob.job.state).toBe('succeeded');

    const jobs = new Map((await jobsOfDataDir(dataDir)).map((j) => [j.id, j]));
    const missing = [...acked.keys()].filter((id) => !jobs.has(id));
    expect(missing).toEqual([]);
    for (const [id, mode] of acked) {
      // A sync answer was only given for a finished job; an async one may have been cut off
      // while queued, and recovery then ran it again (echo is safe to run again).
      if (mode === 'sync') expect(jobs.get(id)?.state, id).toBe('COMPLETED');
    }
    expect(jobs.get(slowId)?.attempts).toBe(2);
    const sample = [...acked.keys()].slice(0, 20);
    for (const id of sample) expect((await get(`${second.url}/v1/jobs/${id}`)).status).toBe(200);

    second.child.kill('SIGTERM');
    expect(await exitOf(second)).toBe(0);
    const replay = spawnSync(process.execPath, [BIN, 'replay', '--data', dataDir, '--verify'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(replay.stderr).toBe('');
    expect(replay.status).toBe(0);
    expect(replay.stdout).toMatch(/replay ok: \d+ events, 17 projections rebuilt/);
  }, 60_000);
});

describe('a node sent SIGTERM', () => {
  it('drains the running job, exits 0, and the job is complete after a restart', async () => {
    const node = await startNodeProcess();
    const slow = await post(
      `${node.url}/v1/jobs`,
      esrpRequest('demo.slow', { seconds: 1, steps: 4 }, 'async'),
    );
    const id = slow.body.job.job_id as string;
    await eventually('the job to start', async () =>
      (await get(`${node.url}/v1/jobs/${id}`)).body.job.state === 'started' ? true : undefined,
    );
    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
    expect(node.stderr()).toMatch(
      /SIGTERM: stopping; draining in-flight jobs for up to 10000 ms\nplexus: stopped\n$/,
    );
    const jobs = await jobsOfDataDir(node.dataDir);
    expect(jobs.find((j) => j.id === id)).toMatchObject({ state: 'COMPLETED', attempts: 1 });
  });

  it('cancels what outlasts the drain bound and still exits 0', async () => {
    const node = await startNodeProcess({ flags: ['--dev', '--demo', '--drain-ms', '100'] });
    const slow = await post(`${node.url}/v1/jobs`, esrpRequest('demo.slow', { seconds: 60 }, 'async'));
    const id = slow.body.job.job_id as string;
    await eventually('the job to start', async () =>
      (await get(`${node.url}/v1/jobs/${id}`)).body.job.state === 'started' ? true : undefined,
    );
    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
    const jobs = await jobsOfDataDir(node.dataDir);
    expect(jobs.find((j) => j.id === id)?.state).toBe('CANCELED');
  });
});
