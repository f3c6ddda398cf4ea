import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { emergence, expectAlive, get, post, startNode, type TestNode } from './helpers.js';

describe('discovery', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode();
    await post(
      `${node.base}/emergence`,
      emergence('HELLO', { capabilities: ['demo.echo'] }, 'did:key:z6MkTestNode', 'far_away'),
    );
  });
  afterAll(async () => {
    await node.close();
  });

  const ids = (body: JsonObject): string[] => (body['agents'] as JsonObject[]).map((c) => c['id'] as string);

  it('lists every card, sorted by id', async () => {
    const res = await get(`${node.base}/agents`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['echo', 'failing', 'far_away', 'multi', 'slow', 'translator', 'tts']);
  });

  it('filters by capability and by origin', async () => {
    expect(ids((await get(`${node.base}/agents?capability=demo.echo`)).body)).toEqual(['echo', 'far_away']);
    expect(ids((await get(`${node.base}/agents?capability=demo.echo&origin=local`)).body)).toEqual(['echo']);
    expect(ids((await get(`${node.base}/agents?origin=remote`)).body)).toEqual(['far_away']);
    expect(ids((await get(`${node.base}/agents?capability=no.such`)).body)).toEqual([]);
  });

  it('refuses a bad filter with 400 in the plain error form', async () => {
    const res = await get(`${node.base}/agents?origin=mars`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_PARAMS' } });
    const twice = await get(`${node.base}/agents?capability=a.b&capability=c.d`);
    expect(twice.status).toBe(400);
  });

  it('shows one card and its capabilities', async () => {
    const card = await get(`${node.base}/agents/tts`);
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({ id: 'tts', origin: 'local', revision: 1 });
    const caps = await get(`${node.base}/agents/tts/capabilities`);
    expect(caps.body).toEqual({
      id: 'tts',
      revision: 1,
      capabilities: [{ verb: 'tts.synthesize', input: true, output: true }],
    });
  });

  it('answers an unknown agent with 404 {error}', async () => {
    for (const path of ['/agents/ghost', '/agents/ghost/capabilities']) {
      const res = await get(`${node.base}${path}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
    await expectAlive(node);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz while running, /readyz 503 when not ready', async () => {
    let ready = true;
    const node = await startNode({ init: { ready: () => ready } });
    try {
      expect(await get(`${node.base}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await get(`${node.base}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
      ready = false;
      const draining = await get(`${node.base}/readyz`);
      expect(draining.status).toBe(503);
      expect(draining.body).toMatchObject({ status: 'unavailable' });
      ready = true;
      await node.runtime.stop({ drainMs: 0 });
      const stopped = await get(`${node.base}/readyz`);
      expect(stopped).toMatchObject({ status: 503, body: { reason: 'the runtime is not started' } });
      await node.log.stop();
      const closed = await get(`${node.base}/readyz`);
      expect(closed).toMatchObject({ status: 503, body: { reason: 'the event log is not open' } });
      await expectAlive(node);
    } finally {
      await node.close();
    }
  });
});
