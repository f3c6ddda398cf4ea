import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEsrpResponse } from '../../../src/core/esrp/response.js';
import type { JsonObject } from '../../../src/core/json.js';
import { httpFacesSettings } from '../../../src/transports/http/index.js';
import { validateEmergence } from '../../../src/wire/emergence/validate.js';
import { emergence, esrpRequest, expectAlive, get, post, startNode, type TestNode } from './helpers.js';

describe('body limit', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode({ init: { bodyLimitBytes: 2048 } });
  });
  afterAll(async () => {
    await node.close();
  });

  it('answers an oversized ESRP request with 413 INVALID_INPUT_SIZE', async () => {
    const res = await post(
      `${node.base}/v1/execute`,
      esrpRequest('demo', 'echo', null, {}, 'x'.repeat(5000)),
    );
    expect(res.status).toBe(413);
    expect(validateEsrpResponse(res.body)).toEqual([]);
    expect(res.body['error']).toMatchObject({
      code: 'INVALID_INPUT_SIZE',
      retryable: false,
      details: { plexus_code: 'INPUT_TOO_LARGE', limitBytes: 2048 },
    });
    await expectAlive(node);
  });

  it('answers an oversized Emergence message with 413 ERROR', async () => {
    const res = await post(`${node.base}/emergence`, emergence('HELP', { text: 'y'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(validateEmergence(res.body)).toEqual([]);
    expect((res.body['data'] as JsonObject)['code']).toBe(413);
    await expectAlive(node);
  });

  it('answers a multi-megabyte body with 413 and keeps serving', async () => {
    const res = await fetch(`${node.base}/v1/jobs`, { method: 'POST', body: 'z'.repeat(4 * 1024 * 1024) });
    expect(res.status).toBe(413);
    await res.arrayBuffer();
    await expectAlive(node);
  });
});

describe('a body limit above fastify default', () => {
  it('accepts bodies up to the configured limit', async () => {
    const node = await startNode({ init: { bodyLimitBytes: 3 * 1024 * 1024 } });
    try {
      const res = await post(
        `${node.base}/v1/execute`,
        esrpRequest('demo', 'echo', null, {}, 'x'.repeat(2 * 1024 * 1024)),
      );
      expect(res.status).toBe(200);
    } finally {
      await node.close();
    }
  });
});

describe('options', () => {
  it('refuses a bad body limit or heartbeat', () => {
    expect(() => httpFacesSettings({ bodyLimitBytes: 0 })).toThrow(/bodyLimitBytes/);
    expect(() => httpFacesSettings({ heartbeatMs: 1.5 })).toThrow(/heartbeatMs/);
    expect(httpFacesSettings()).toMatchObject({
      bodyLimitBytes: 1_048_576,
      heartbeatMs: 15_000,
      fallbackHandlers: true,
    });
  });
});

describe('internal failures', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode({
      patch: (components) => {
        const fail = () => Promise.reject(new Error('secret detail /etc/plexus/key'));
        const registry = new Proxy(components.runtime.agents.registry, {
          get(target, name, r) {
            if (name === 'list') {
              return () => {
                throw new TypeError('secret detail in list');
              };
            }
            return Reflect.get(target, name, r) as unknown;
          },
        });
        const agents = { ...components.runtime.agents, registry };
        const jobs = { ...components.runtime.jobs, get: fail };
        const broken = new Proxy(components.runtime, {
          get(target, key, receiver) {
            if (key === 'invoke') return fail;
            if (key === 'agents') return agents;
            if (key === 'jobs') return jobs;
            return Reflect.get(target, key, receiver) as unknown;
          },
        });
        return { ...components, runtime: broken };
      },
    });
  });
  afterAll(async () => {
    await node.close();
  });

  it('answers 500 in the face form without leaking the error or a stack', async () => {
    const esrp = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'echo'));
    expect(esrp.status).toBe(500);
    expect(validateEsrpResponse(esrp.body)).toEqual([]);
    expect(esrp.body['error']).toMatchObject({ code: 'UNKNOWN', details: { plexus_code: 'INTERNAL' } });
    const agents = await get(`${node.base}/agents`);
    expect(agents.status).toBe(500);
    expect(agents.body).toMatchObject({ error: { code: 'INTERNAL' } });
    const job = await get(`${node.base}/v1/jobs/x`);
    expect(job.status).toBe(500);
    for (const body of [esrp.body, agents.body, job.body]) {
      const text = JSON.stringify(body);
      expect(text).not.toMatch(/secret|stack|at .*\.ts/);
    }
    await expectAlive(node);
  });
});

describe('arbitrary bodies', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode();
  });
  afterAll(async () => {
    await node.close();
  });

  it('always get a 4xx answer in the face form and never stop the server', async () => {
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ esrp_version: '1.0', inputs: v, target: v })),
      fc
        .jsonValue({ maxDepth: 3 })
        .map((v) => JSON.stringify({ id: v, from: v, to: 'echo', verb: 'HELP', data: v })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const esrp = await post(`${node.base}/v1/execute`, text);
        expect(esrp.status).toBeGreaterThanOrEqual(400);
        expect(esrp.status).toBeLessThan(500);
        expect(validateEsrpResponse(esrp.body)).toEqual([]);
        const em = await post(`${node.base}/emergence`, text);
        expect(em.status).toBeGreaterThanOrEqual(400);
        expect(em.status).toBeLessThan(600);
        expect(validateEmergence(em.body)).toEqual([]);
      }),
      { numRuns: 60 },
    );
    await expectAlive(node);
  });
});
