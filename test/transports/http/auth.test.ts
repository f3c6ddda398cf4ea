import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { generateKeyPair, issueToken } from '../../../src/security/index.js';
import { validateEmergence } from '../../../src/wire/emergence/validate.js';
import {
  emergence,
  esrpRequest,
  expectAlive,
  get,
  post,
  readSse,
  startNode,
  type TestNode,
} from './helpers.js';

describe('HTTP faces with auth on', () => {
  let node: TestNode;
  let good: string;
  beforeAll(async () => {
    node = await startNode({ auth: 'jwt' });
    good = (await issueToken({ key: node.key, subject: 'alice', scopes: ['jobs:run'] })).token;
  });
  afterAll(async () => {
    await node.close();
  });

  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

  async function expectRefusedEverywhere(
    headers: Record<string, string>,
    invalidToken: boolean,
  ): Promise<void> {
    const esrp = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'echo'), headers);
    expect(esrp.status).toBe(401);
    const challenge = esrp.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer realm="plexus"/);
    expect(challenge.includes('error="invalid_token"')).toBe(invalidToken);
    expect(esrp.body['status']).toBe('failed');
    expect(esrp.body['error']).toMatchObject({
      code: 'INVALID_INPUT_SEMANTIC',
      details: { plexus_code: 'UNAUTHORIZED' },
    });

    const em = await post(`${node.base}/emergence`, emergence('HELP', {}, 'echo'), headers);
    expect(em.status).toBe(401);
    expect(em.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(validateEmergence(em.body)).toEqual([]);
    expect(em.body['verb']).toBe('ERROR');
    expect((em.body['data'] as JsonObject)['code']).toBe(401);

    for (const path of ['/agents', '/agents/echo', '/v1/jobs/x', '/v1/jobs/x/events']) {
      const res = await get(`${node.base}${path}`, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    const agents = await get(`${node.base}/agents`, headers);
    expect(agents.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    await expectAlive(node);
  }

  it('refuses requests without a token (401, bare challenge, each face its own form)', async () => {
    await expectRefusedEverywhere({}, false);
    await expectRefusedEverywhere({ authorization: 'Basic dXNlcjpwYXNz' }, false);
  });

  it('refuses a token from another issuer and a tampered signature', async () => {
    const stranger = (await issueToken({ key: generateKeyPair(), subject: 'mallory' })).token;
    await expectRefusedEverywhere(bearer(stranger), true);
    const [header, payload] = good.split('.');
    const forged = `${header ?? ''}.${payload ?? ''}.${stranger.split('.')[2] ?? ''}`;
    await expectRefusedEverywhere(bearer(forged), true);
    await expectRefusedEverywhere(bearer('not-a-token'), true);
  });

  it('refuses an expired token', async () => {
    const expired = (
      await issueToken({ key: node.key, subject: 'alice', ttl: 60, now: () => Date.now() - 3_600_000 })
    ).token;
    await expectRefusedEverywhere(bearer(expired), true);
  });

  it('serves the health probes without a token', async () => {
    expect((await get(`${node.base}/healthz`)).status).toBe(200);
    expect((await get(`${node.base}/readyz`)).status).toBe(200);
  });

  it('accepts a good token on every face and passes the principal to the runtime', async () => {
    const esrp = await post(`${node.base}/v1/execute`, esrpRequest('demo', 'echo'), bearer(good));
    expect(esrp.status).toBe(200);
    const jobId = (esrp.body['job'] as JsonObject)['job_id'] as string;
    const [submitted] = await node.runtime.jobs.events(jobId);
    expect(submitted?.data).toMatchObject({ principal: 'alice', face: 'esrp' });

    const em = await post(`${node.base}/emergence`, emergence('HELP', { hi: 1 }, 'echo'), bearer(good));
    expect(em.status).toBe(200);
    expect((await get(`${node.base}/agents`, bearer(good))).status).toBe(200);
    expect((await get(`${node.base}/v1/jobs/${jobId}`, bearer(good))).status).toBe(200);
    const stream = await readSse(`${node.base}/v1/jobs/${jobId}/events`, bearer(good));
    expect(stream.status).toBe(200);
    expect(stream.events.at(-1)?.event).toBe('job_succeeded');
  });
});
