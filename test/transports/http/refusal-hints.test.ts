/**
 * On the HTTP faces: a refusal (seed 002 §8.3) is a successful answer whose body is the
 * refusal; a retryable error carries `Retry-After` and its recovery fields (§8.2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { validateEsrpResponse } from '../../../src/core/esrp/response.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { emergence, esrpRequest, post, startNode, type TestNode } from './helpers.js';

let node: TestNode;
const REFUSAL = {
  $refusal: {
    reason: 'the owner has not agreed to share memories',
    consentRequired: 'memory/share',
    appealTo: 'owner@example.test',
    overrideCostMicros: 2_500_000,
  },
};
const SEED_REFUSAL = {
  verb: 'consent.share',
  reason: 'the owner has not agreed to share memories',
  consent_required: 'memory/share',
  override_cost_micros: 2_500_000,
  appeal_to: 'owner@example.test',
};

beforeAll(async () => {
  node = await startNode();
  await node.runtime.agents.add(
    defineAgent({
      card: {
        id: 'consent',
        name: 'Consent',
        version: '1',
        tier: 'L3',
        capabilities: [{ verb: 'consent.share', input: true, output: true }],
      },
      create: () => ({ 'consent.share': () => REFUSAL }),
    }),
  );
});

afterAll(async () => {
  await node.close();
});

describe('a refusal is a result', () => {
  it('ESRP: succeeded (200), the refusal as the result, its seed form in the output metadata', async () => {
    const res = await post(`${node.base}/v1/execute`, esrpRequest('consent', 'share'));
    expect(res.status).toBe(200);
    expect(validateEsrpResponse(res.body)).toEqual([]);
    expect(res.body['status']).toBe('succeeded');
    const output = (res.body['outputs'] as JsonObject[])[0] as JsonObject;
    expect(JSON.parse(output['data'] as string)).toEqual(REFUSAL);
    expect(output['metadata']).toEqual({ refusal: SEED_REFUSAL });
    expect(res.body['error']).toBeUndefined();
  });

  it('Emergence: DONE (200) with the refusal as result and _x_refusal in seed form', async () => {
    const res = await post(
      `${node.base}/emergence`,
      emergence('HELP', { verb: 'consent.share', input: null }, 'consent'),
    );
    expect(res.status).toBe(200);
    expect(res.body['verb']).toBe('DONE');
    expect(res.body['data']).toEqual({ result: REFUSAL });
    expect(res.body['_x_refusal']).toEqual(SEED_REFUSAL);
  });
});

describe('recovery hints of a retryable error', () => {
  it('ESRP: Retry-After, retry_after_ms and the recovery fields in details', async () => {
    const res = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'fail'));
    expect(res.status).toBe(503);
    expect(validateEsrpResponse(res.body)).toEqual([]);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body['error']).toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      retryable: true,
      retry_after_ms: 1000,
      details: { plexus_code: 'UNAVAILABLE', category: 'unavailable', retry_after: 1, verb: 'demo.fail' },
    });
  });

  it('Emergence: Retry-After and the _x_ recovery keys', async () => {
    const res = await post(
      `${node.base}/emergence`,
      emergence('HELP', { verb: 'demo.fail', input: null }, 'failing'),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({
      verb: 'ERROR',
      _x_category: 'unavailable',
      _x_retry_after: 1,
      _x_verb: 'demo.fail',
    });
  });

  it('a non-retryable error gets no Retry-After', async () => {
    const res = await post(`${node.base}/v1/execute`, esrpRequest('nobody', 'here'));
    expect(res.status).toBe(404);
    expect(res.headers.get('retry-after')).toBeNull();
    expect((res.body['error'] as JsonObject)['retry_after_ms']).toBeUndefined();
    expect((res.body['error'] as JsonObject)['details']).toMatchObject({ category: 'not_found' });
  });
});
