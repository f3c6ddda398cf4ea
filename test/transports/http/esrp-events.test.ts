import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  esrpRequest,
  expectAlive,
  get,
  post,
  readSse,
  startNode,
  type SseMessage,
  type TestNode,
} from './helpers.js';

const seqs = (events: readonly SseMessage[]): number[] => events.map((e) => Number(e.id));

describe('ESRP job events (SSE)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode({ init: { heartbeatMs: 25 } });
  });
  afterAll(async () => {
    await node.close();
  });

  async function submit(params: JsonObject): Promise<string> {
    const res = await post(`${node.base}/v1/jobs`, esrpRequest('demo', 'slow', params));
    expect(res.status).toBe(202);
    return (res.body['job'] as JsonObject)['job_id'] as string;
  }

  async function logSeqs(id: string): Promise<number[]> {
    return (await node.runtime.jobs.events(id)).map((e) => e.seq);
  }

  it('streams every event of a job with id = seq and ends after the final one', async () => {
    const id = await submit({ steps: 3, stepMs: 5 });
    const stream = await readSse(`${node.base}/v1/jobs/${id}/events`);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(stream.ended).toBe(true);
    expect(stream.events.map((e) => e.event)).toEqual([
      'job_queued',
      'job_started',
      'job_progress',
      'job_progress',
      'job_progress',
      'job_succeeded',
    ]);
    expect(seqs(stream.events)).toEqual(await logSeqs(id));
    const data = stream.events.map((e) => JSON.parse(e.data ?? 'null') as JsonObject);
    expect(data[0]).toMatchObject({
      job_id: id,
      state: 'queued',
      verb: 'demo.slow',
      seq: Number(stream.events[0]?.id),
    });
    expect(data[1]).toMatchObject({ state: 'started', attempt: 1 });
    expect(data[2]).toMatchObject({ state: 'started', progress: { step: 1, of: 3 } });
    const last = data[5] as JsonObject;
    expect(last['state']).toBe('succeeded');
    const outputs = last['outputs'] as JsonObject[];
    expect(JSON.parse(outputs[0]?.['data'] as string)).toEqual({ steps: 3 });
  });

  it('resumes with Last-Event-ID after a cut without a missing or repeated event', async () => {
    const id = await submit({ steps: 8, stepMs: 15 });
    const first = await readSse(`${node.base}/v1/jobs/${id}/events`, {}, (_m, events) => events.length === 3);
    expect(first.ended).toBe(false);
    expect(first.events).toHaveLength(3);
    const lastId = first.events[2]?.id ?? '';
    const second = await readSse(`${node.base}/v1/jobs/${id}/events`, { 'last-event-id': lastId });
    expect(second.ended).toBe(true);
    const all = [...seqs(first.events), ...seqs(second.events)];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(await logSeqs(id));
    expect(second.events.at(-1)?.event).toBe('job_succeeded');
  });

  it('resumes from the last_event_id query parameter too, and cut twice', async () => {
    const id = await submit({ steps: 6, stepMs: 15 });
    const a = await readSse(`${node.base}/v1/jobs/${id}/events`, {}, (_m, events) => events.length === 2);
    const b = await readSse(
      `${node.base}/v1/jobs/${id}/events?last_event_id=${a.events[1]?.id ?? ''}`,
      {},
      (_m, events) => events.length === 2,
    );
    const c = await readSse(`${node.base}/v1/jobs/${id}/events`, { 'last-event-id': b.events[1]?.id ?? '' });
    const all = [...seqs(a.events), ...seqs(b.events), ...seqs(c.events)];
    expect(all).toEqual(await logSeqs(id));
  });

  it('ends at once, with no event, when resumed after the final event', async () => {
    const id = await submit({ steps: 1, stepMs: 1 });
    const full = await readSse(`${node.base}/v1/jobs/${id}/events`);
    const again = await readSse(`${node.base}/v1/jobs/${id}/events`, {
      'last-event-id': full.events.at(-1)?.id ?? '',
    });
    expect(again.status).toBe(200);
    expect(again.ended).toBe(true);
    expect(again.events).toEqual([]);
  });

  it('ends with job_cancelled when the job is cancelled while followed', async () => {
    const id = await submit({ steps: 10000, stepMs: 10 });
    const stream = readSse(`${node.base}/v1/jobs/${id}/events`, {}, (message) => {
      if (message.event === 'job_progress') void fetch(`${node.base}/v1/jobs/${id}`, { method: 'DELETE' });
      return false;
    });
    const { events, ended } = await stream;
    expect(ended).toBe(true);
    const final = events.at(-1);
    expect(final?.event).toBe('job_cancelled');
    expect(JSON.parse(final?.data ?? '{}')).toMatchObject({
      state: 'cancelled',
      error: { code: 'CANCELLED' },
    });
  });

  it('sends heartbeat comments while the job is idle', async () => {
    const id = await submit({ steps: 3, stepMs: 200 });
    const stream = await readSse(
      `${node.base}/v1/jobs/${id}/events`,
      {},
      (message) => message.comment === 'heartbeat',
    );
    expect(stream.messages.some((m) => m.comment === 'heartbeat')).toBe(true);
    await expectAlive(node);
  });

  it('keeps serving after clients disconnect mid-stream', async () => {
    const id = await submit({ steps: 50, stepMs: 10 });
    for (let i = 0; i < 5; i++) {
      await readSse(`${node.base}/v1/jobs/${id}/events`, {}, (_m, events) => events.length === 1);
    }
    await expectAlive(node);
    await fetch(`${node.base}/v1/jobs/${id}`, { method: 'DELETE' });
  });

  it('answers an unknown job with a 404 ESRP error, not a stream', async () => {
    const res = await get(`${node.base}/v1/jobs/missing/events`);
    expect(res.status).toBe(404);
    expect(res.body['error']).toMatchObject({ details: { plexus_code: 'NOT_FOUND' } });
  });

  it('answers a malformed Last-Event-ID with 400', async () => {
    const id = await submit({ steps: 1, stepMs: 1 });
    const res = await get(`${node.base}/v1/jobs/${id}/events`, { 'last-event-id': 'seven' });
    expect(res.status).toBe(400);
    expect(res.body['error']).toMatchObject({ code: 'INVALID_INPUT_SCHEMA' });
    await expectAlive(node);
  });
});

describe('ESRP job events when the server closes', () => {
  it('ends open streams so the server can close', async () => {
    const node = await startNode();
    try {
      const res = await post(
        `${node.base}/v1/jobs`,
        esrpRequest('demo', 'slow', { steps: 100000, stepMs: 10 }),
      );
      const id = (res.body['job'] as JsonObject)['job_id'] as string;
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const stream = readSse(`${node.base}/v1/jobs/${id}/events`, {}, (message) => {
        if (message.event === 'job_started') opened();
        return false;
      });
      await open;
      await node.app.close();
      const result = await stream;
      expect(result.ended).toBe(true);
      expect(result.events.map((e) => e.event)).not.toContain('job_succeeded');
    } finally {
      await node.close();
    }
  });
});
