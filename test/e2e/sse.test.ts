import { get as httpGet, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sseParser, type SseEvent } from '../../src/cli/sse.js';
import { useNodeProcess } from '../support/e2e-fixture.js';
import { esrpRequest, post } from './harness.js';

// An ESRP async job followed over SSE, cut mid-way, and resumed with Last-Event-ID.
const e2e = useNodeProcess();

const TERMINAL = new Set(['job_succeeded', 'job_failed', 'job_cancelled']);

/**
 * Reads a job's SSE stream, starting after `lastEventId`, until `stopAfter` events have come
 * (then the connection is cut) or the job's final event.
 */
function readEvents(url: string, lastEventId: string | undefined, stopAfter = Infinity): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const parser = sseParser();
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`stream stalled after ${events.length} events`));
    }, 20_000);
    const finish = (): void => {
      clearTimeout(timer);
      request.destroy();
      resolve(events);
    };
    const request = httpGet(
      url,
      { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          clearTimeout(timer);
          reject(new Error(`status ${String(res.statusCode)}`));
          return;
        }
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
        res.on('data', (chunk: Buffer) => {
          for (const event of parser.push(chunk.toString('utf8'))) {
            events.push(event);
            if (events.length >= stopAfter || TERMINAL.has(event.event)) {
              finish();
              return;
            }
          }
        });
        res.on('end', finish);
      },
    );
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
  });
}

describe('ESRP job events over SSE', () => {
  it('resume after a cut with Last-Event-ID, with no event missing or repeated', async () => {
    const submitted = await post(
      `${e2e.node.url}/v1/jobs`,
      esrpRequest('demo.slow', { seconds: 2, steps: 10 }, 'async'),
    );
    expect(submitted.status).toBe(202);
    expect(submitted.body.status).toBe('accepted');
    const jobId = submitted.body.job.job_id as string;
    expect(submitted.headers.get('location')).toBe(`/v1/jobs/${jobId}`);
    const eventsUrl = `${e2e.node.url}/v1/jobs/${jobId}/events`;

    const before = await readEvents(eventsUrl, undefined, 3); // cut after three events
    expect(before.map((e) => e.event)).toEqual(['job_queued', 'job_started', 'job_progress']);
    const after = await readEvents(eventsUrl, before[before.length - 1]?.id);
    const joined = [...before, ...after];

    expect(joined.map((e) => e.event)).toEqual([
      'job_queued',
      'job_started',
      ...Array<string>(10).fill('job_progress'),
      'job_succeeded',
    ]);
    const ids = joined.map((e) => Number(e.id));
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true);
    const steps = joined
      .filter((e) => e.event === 'job_progress')
      .map((e) => (JSON.parse(e.data) as { progress: { step: number } }).progress.step);
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const final = JSON.parse(joined[joined.length - 1]?.data ?? '{}') as {
      job_id: string;
      state: string;
      outputs: { data: string }[];
    };
    expect(final).toMatchObject({ job_id: jobId, state: 'succeeded' });
    expect(JSON.parse(final.outputs[0]?.data ?? 'null')).toEqual({ seconds: 2, steps: 10, completed: true });

    // A fresh stream of the finished job replays exactly the same events, then ends.
    const replay = await readEvents(eventsUrl, undefined);
    expect(replay).toEqual(joined);
    // Resuming after the last event of a finished job gives nothing more.
    const resumedAtEnd = await readEvents(eventsUrl, joined[joined.length - 1]?.id);
    expect(resumedAtEnd).toEqual([]);
  });

  it('cancels a running job with DELETE, and its stream ends with job_cancelled', async () => {
    const submitted = await post(
      `${e2e.node.url}/v1/jobs`,
      esrpRequest('demo.slow', { seconds: 30 }, 'async'),
    );
    const jobId = submitted.body.job.job_id as string;
    const streaming = readEvents(`${e2e.node.url}/v1/jobs/${jobId}/events`, undefined);
    await new Promise((r) => setTimeout(r, 200));
    const response = await fetch(`${e2e.node.url}/v1/jobs/${jobId}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'failed',
      job: { job_id: jobId, state: 'cancelled' },
    });
    const events = await streaming;
    expect(events[events.length - 1]?.event).toBe('job_cancelled');
  });

  it('refuses a malformed Last-Event-ID and an unknown job', async () => {
    const submitted = await post(`${e2e.node.url}/v1/jobs`, esrpRequest('echo.echo', { n: 1 }, 'async'));
    const jobId = submitted.body.job.job_id as string;
    await expect(readEvents(`${e2e.node.url}/v1/jobs/${jobId}/events`, 'abc')).rejects.toThrow(/status 400/);
    await expect(readEvents(`${e2e.node.url}/v1/jobs/nope/events`, undefined)).rejects.toThrow(/status 404/);
  });
});
