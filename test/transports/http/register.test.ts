import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/runtime/index.js';
import { authenticator, envelopeVerifier } from '../../../src/security/index.js';
import { memoryArtifactStore, memoryEventLog, type EventLog } from '../../../src/store/index.js';
import type { FaceComponents } from '../../../src/transports/face-components.js';
import { registerHttpFaces } from '../../../src/transports/http/index.js';

describe('registerHttpFaces', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function components(): Promise<FaceComponents> {
    const log: EventLog = memoryEventLog();
    await log.start();
    const runtime = createRuntime({ log });
    await runtime.start();
    cleanups.push(async () => {
      await runtime.stop({ drainMs: 0 });
      await log.stop();
    });
    return {
      runtime,
      log,
      artifacts: memoryArtifactStore(),
      auth: authenticator({ allowAnonymous: true }),
      verifier: envelopeVerifier(),
      nodeId: 'node-1',
    };
  }

  it("leaves the node's other routes with fastify's JSON parser", async () => {
    const app = Fastify();
    cleanups.push(() => app.close());
    app.post('/other', (request, reply) => reply.send({ got: request.body }));
    await registerHttpFaces(app, await components());
    const res = await app.inject({ method: 'POST', url: '/other', payload: { a: 1 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ got: { a: 1 } });
    const faces = await app.inject({ method: 'GET', url: '/healthz' });
    expect(faces.json()).toEqual({ status: 'ok' });
  });

  it('installs root 404 and error handlers in the face forms (for root routes added after it)', async () => {
    const app = Fastify();
    cleanups.push(() => app.close());
    await registerHttpFaces(app, await components());
    app.get('/boom', async () => {
      await Promise.resolve();
      throw new Error('do not show this');
    });
    const missing = await app.inject({ method: 'GET', url: '/v1/jobs/some-job/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      status: 'failed',
      error: { details: { plexus_code: 'NOT_FOUND' } },
    });
    const wrongMethod = await app.inject({ method: 'GET', url: '/emergence' });
    expect(wrongMethod.statusCode).toBe(404);
    expect(wrongMethod.json()).toMatchObject({ verb: 'ERROR', data: { code: 404 } });
    const boom = await app.inject({ method: 'GET', url: '/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toMatch(/do not show this/);
    expect(boom.json()).toMatchObject({ error: { code: 'INTERNAL' } });
  });

  it('leaves the root handlers to the node with fallbackHandlers: false', async () => {
    const app = Fastify();
    cleanups.push(() => app.close());
    await registerHttpFaces(app, await components(), { fallbackHandlers: false });
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ mine: true }));
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.json()).toEqual({ mine: true });
  });

  it('answers 413 through inject too', async () => {
    const app = Fastify();
    cleanups.push(() => app.close());
    await registerHttpFaces(app, await components(), { bodyLimitBytes: 64 });
    const res = await app.inject({ method: 'POST', url: '/emergence', payload: 'x'.repeat(100) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ verb: 'ERROR', data: { code: 413 }, from: 'node-1', to: 'unknown' });
  });
});
