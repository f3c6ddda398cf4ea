import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEsrpResponse } from '../../../src/core/esrp/response.js';
import type { JsonObject } from '../../../src/core/json.js';
import { NIL_REQUEST_ID } from '../../../src/transports/http/index.js';
import { esrpRequest, expectAlive, get, post, startNode, type TestNode } from './helpers.js';
import { until } from '../../support/until.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/esrp-v1/requests/${name}`, import.meta.url), 'utf8');

function expectValidEsrp(body: JsonObject): void {
  expect(validateEsrpResponse(body)).toEqual([]);
}

describe('ESRP face', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode();
  });
  afterAll(async () => {
    await node.close();
  });

  describe('POST /v1/execute', () => {
    it('runs the golden simple_tts request and answers a valid ESRP response', async () => {
      const text = fixture('simple_tts.json');
      const res = await post(`${node.base}/v1/execute`, text);
      expect(res.status).toBe(200);
      expectValidEsrp(res.body);
      expect(res.body).toMatchObject({
        esrp_version: '1.0',
        request_id: '550e8400-e29b-41d4-a716-446655440000',
        status: 'succeeded',
        outputs: [
          {
            name: 'audio',
            content_type: 'text/plain',
            data: 'synthesized',
            encoding: 'utf-8',
            metadata: { voice: 'en-US-Standard-A' },
          },
        ],
        artifacts: [],
        job: { state: 'succeeded' },
      });
      const timing = res.body['timing'] as JsonObject;
      expect(typeof timing['accepted_at']).toBe('string');
      expect(typeof timing['finished_at']).toBe('string');
      expect(typeof timing['duration_ms']).toBe('number');
    });

    it('wraps output that is not ESRP-shaped as one application/json output named result', async () => {
      const request = esrpRequest('demo', 'echo', { n: 1 });
      const res = await post(`${node.base}/v1/execute`, request);
      expect(res.status).toBe(200);
      expectValidEsrp(res.body);
      const outputs = res.body['outputs'] as JsonObject[];
      expect(outputs).toHaveLength(1);
      expect(outputs[0]).toMatchObject({
        name: 'result',
        content_type: 'application/json',
        encoding: 'utf-8',
      });
      const echoed = JSON.parse(outputs[0]?.['data'] as string) as JsonObject;
      expect(echoed['params']).toEqual({ n: 1 });
      expect(res.body['request_id']).toBe(request['request_id']);
    });

    it('answers a failing handler with its ESRP error code and HTTP status', async () => {
      const res = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'fail'));
      expect(res.status).toBe(503);
      expectValidEsrp(res.body);
      expect(res.body['status']).toBe('failed');
      expect(res.body['error']).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        retryable: true,
        message: 'the backend is down',
        details: { plexus_code: 'UNAVAILABLE' },
      });
      expect(res.body['job']).toMatchObject({ state: 'failed' });
    });

    it('runs the same request twice only once and replays the first answer', async () => {
      const request = esrpRequest('demo', 'echo', { once: true });
      const before = node.calls.get('demo.echo') ?? 0;
      const first = await post(`${node.base}/v1/execute`, request);
      const second = await post(`${node.base}/v1/execute`, { ...request, request_id: crypto.randomUUID() });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(node.calls.get('demo.echo')).toBe(before + 1);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body['outputs']).toEqual(first.body['outputs']);
      expect((second.body['job'] as JsonObject)['job_id']).toBe((first.body['job'] as JsonObject)['job_id']);
    });

    it('answers an unknown verb with INVALID_INPUT_SEMANTIC and 404', async () => {
      const res = await post(`${node.base}/v1/execute`, esrpRequest('nobody', 'knows'));
      expect(res.status).toBe(404);
      expectValidEsrp(res.body);
      expect(res.body['error']).toMatchObject({
        code: 'INVALID_INPUT_SEMANTIC',
        details: { plexus_code: 'UNKNOWN_VERB' },
      });
      await expectAlive(node);
    });

    it('answers broken JSON with 400 INVALID_INPUT_SCHEMA naming line and column', async () => {
      const res = await post(`${node.base}/v1/execute`, '{\n  "esrp_version": "1.0",\n  "request_id": }');
      expect(res.status).toBe(400);
      expectValidEsrp(res.body);
      expect(res.body['request_id']).toBe(NIL_REQUEST_ID);
      const error = res.body['error'] as JsonObject;
      expect(error['code']).toBe('INVALID_INPUT_SCHEMA');
      expect(error['message']).toMatch(/line 3, column/);
      expect(error['details']).toMatchObject({ plexus_code: 'PARSE_ERROR', line: 3 });
      await expectAlive(node);
    });

    it('answers an empty body with 400', async () => {
      const res = await post(`${node.base}/v1/execute`, '');
      expect(res.status).toBe(400);
      expect((res.body['error'] as JsonObject)['code']).toBe('INVALID_INPUT_SCHEMA');
      await expectAlive(node);
    });

    it('answers wrong types with 400 listing every problem with its pointer', async () => {
      const request = esrpRequest('demo', 'echo');
      const res = await post(`${node.base}/v1/execute`, {
        ...request,
        caller: 'me',
        target: { service: 7, operation: 'echo' },
        inputs: [{ name: 'text', content_type: 'text/plain', data: 3, encoding: 'utf-8' }],
      });
      expect(res.status).toBe(400);
      expectValidEsrp(res.body);
      expect(res.body['request_id']).toBe(request['request_id']);
      const error = res.body['error'] as JsonObject;
      expect(error['code']).toBe('INVALID_INPUT_SCHEMA');
      const problems = (error['details'] as JsonObject)['problems'] as JsonObject[];
      const pointers = problems.map((p) => p['pointer']);
      expect(pointers).toEqual(expect.arrayContaining(['/caller', '/target/service', '/inputs/0/data']));
      await expectAlive(node);
    });

    it('refuses a non-integer number judged on its source text', async () => {
      const text = JSON.stringify(esrpRequest('demo', 'echo')).replace(
        '"params":null',
        '"params":{"speed":56.0}',
      );
      const res = await post(`${node.base}/v1/execute`, text);
      expect(res.status).toBe(400);
      const problems = ((res.body['error'] as JsonObject)['details'] as JsonObject)[
        'problems'
      ] as JsonObject[];
      expect(problems.map((p) => p['pointer'])).toContain('/params/speed');
      await expectAlive(node);
    });

    it('reads the body as JSON whatever the content type says', async () => {
      const res = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'echo'), {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(200);
      expect(res.body['status']).toBe('succeeded');
    });

    it('treats mode async on /v1/execute as a submission (202 accepted)', async () => {
      const request = esrpRequest(
        'demo',
        'slow',
        { steps: 1, stepMs: 1 },
        { mode: { type: 'async', timeout_ms: 60000 } },
      );
      const res = await post(`${node.base}/v1/execute`, request);
      expect(res.status).toBe(202);
      expectValidEsrp(res.body);
      expect(res.body['status']).toBe('accepted');
    });
  });

  describe('jobs', () => {
    it('submits a job (202), shows it with GET, and shows the result when done', async () => {
      const request = esrpRequest('demo', 'slow', { steps: 2, stepMs: 5 });
      const res = await post(`${node.base}/v1/jobs`, request);
      expect(res.status).toBe(202);
      expectValidEsrp(res.body);
      const job = res.body['job'] as JsonObject;
      expect(job['state']).toBe('queued');
      const id = job['job_id'] as string;
      expect(res.headers.get('location')).toBe(`/v1/jobs/${id}`);
      expect((res.body['timing'] as JsonObject)['accepted_at']).toEqual(expect.any(String));

      const now = await get(`${node.base}/v1/jobs/${id}`);
      expect(now.status).toBe(200);
      expectValidEsrp(now.body);
      expect(['accepted', 'succeeded']).toContain(now.body['status']);

      let done: JsonObject = {};
      await until(async () => {
        done = (await get(`${node.base}/v1/jobs/${id}`)).body;
        return done['status'] !== 'accepted';
      });
      expectValidEsrp(done);
      expect(done['status']).toBe('succeeded');
      expect(done['request_id']).toBe(request['request_id']);
      expect(done['job']).toEqual({ job_id: id, state: 'succeeded' });
      const output = (done['outputs'] as JsonObject[])[0];
      expect(JSON.parse(output?.['data'] as string)).toEqual({ steps: 2 });
    });

    it('cancels a running job with DELETE', async () => {
      const res = await post(
        `${node.base}/v1/jobs`,
        esrpRequest('demo', 'slow', { steps: 10000, stepMs: 20 }),
      );
      const id = (res.body['job'] as JsonObject)['job_id'] as string;
      await until(
        async () =>
          ((await get(`${node.base}/v1/jobs/${id}`)).body['job'] as JsonObject)['state'] === 'started',
      );
      const cancelled = await get(`${node.base}/v1/jobs/${id}`, {}, 'DELETE');
      expect(cancelled.status).toBe(200);
      expectValidEsrp(cancelled.body);
      expect(cancelled.body['status']).toBe('failed');
      expect(cancelled.body['job']).toEqual({ job_id: id, state: 'cancelled' });
      expect((cancelled.body['error'] as JsonObject)['details']).toMatchObject({ plexus_code: 'CANCELLED' });
      const after = await get(`${node.base}/v1/jobs/${id}`);
      expect((after.body['job'] as JsonObject)['state']).toBe('cancelled');
    });

    it('answers an unknown job with a 404 ESRP error', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await get(`${node.base}/v1/jobs/no-such-job`, {}, method);
        expect(res.status).toBe(404);
        expectValidEsrp(res.body);
        expect(res.body['request_id']).toBe(NIL_REQUEST_ID);
        expect(res.body['error']).toMatchObject({
          code: 'INVALID_INPUT_SEMANTIC',
          details: { plexus_code: 'NOT_FOUND' },
        });
      }
      await expectAlive(node);
    });

    it('submits a duplicate once: the second submission names the same job', async () => {
      const request = esrpRequest('demo', 'slow', { steps: 1, stepMs: 1, dup: true });
      const before = node.calls.get('demo.slow') ?? 0;
      const a = await post(`${node.base}/v1/jobs`, request);
      const b = await post(`${node.base}/v1/jobs`, request);
      expect((b.body['job'] as JsonObject)['job_id']).toBe((a.body['job'] as JsonObject)['job_id']);
      const id = (a.body['job'] as JsonObject)['job_id'] as string;
      await until(async () => (await get(`${node.base}/v1/jobs/${id}`)).body['status'] === 'succeeded');
      expect(node.calls.get('demo.slow')).toBe(before + 1);
    });
  });

  describe('unknown routes', () => {
    it('answers an unknown ESRP route with an ESRP 404', async () => {
      const res = await get(`${node.base}/v1/jobs/some-job/nowhere`); // GET /v1/jobs lists jobs
      expect(res.status).toBe(404);
      expectValidEsrp(res.body);
    });

    it('answers any other unknown route with a JSON 404', async () => {
      const res = await get(`${node.base}/nowhere`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    });
  });
});
