import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonObject } from '../../../src/core/json.js';
import {
  LEARNING_PROJECTIONS,
  REFLECTOR_SYSTEM_PROMPT,
  learningPrimitive,
  openAiChatReflector,
  type ReflectionRequest,
} from '../../../src/primitives/learning/index.js';
import { startPrimitive, text } from './harness.js';
import { until } from '../../support/until.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: JsonObject;
}

type Reply = (seen: Seen, res: ServerResponse) => void;

/** A local server speaking the OpenAI chat-completions shape. */
async function chatServer(
  reply: Reply,
): Promise<{ baseUrl: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject,
      };
      seen.push(s);
      open.add(res);
      res.on('close', () => open.delete(res));
      reply(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const completion = (content: string): string =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

const json =
  (status: number, body: string): Reply =>
  (_s, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };

const request: ReflectionRequest = {
  playbookId: 'web-research-v3',
  execution: {
    input: { query: 'quantum computing market size 2026' },
    steps: [{ action: 'search', tool: 'web-search', duration: 340 }],
    outcome: 'success',
    reward: 0.92,
  },
  bullets: [
    { id: 'mis-00018', section: 'mis', content: 'Never use news.', helpfulCount: 0, harmfulCount: 2 },
  ],
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function server(reply: Reply) {
  const s = await chatServer(reply);
  cleanup.push(s.close);
  return s;
}

async function failure(promise: Promise<unknown>): Promise<PlexusError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('openAiChatReflector', () => {
  it('posts a chat completion and returns the checked proposal', async () => {
    const s = await server(
      json(
        200,
        completion(
          '```json\n{"newBullets":[{"section":"str","content":"For market-size queries, prioritize analyst reports."}],"prune":["mis-00018"]}\n```',
        ),
      ),
    );
    const reflector = openAiChatReflector({ baseUrl: s.baseUrl, model: 'test-model', apiKey: 'sk-test' });
    const proposal = await reflector.reflect(request);
    expect(proposal).toEqual({
      newBullets: [{ section: 'str', content: 'For market-size queries, prioritize analyst reports.' }],
      prune: ['mis-00018'],
    });
    const [seen] = s.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/chat/completions');
    expect(seen?.headers['authorization']).toBe('Bearer sk-test');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.body['model']).toBe('test-model');
    expect(seen?.body['temperature']).toBe(0);
    expect(seen?.body['response_format']).toEqual({ type: 'json_object' });
    const messages = seen?.body['messages'] as JsonObject[];
    expect(messages[0]).toEqual({ role: 'system', content: REFLECTOR_SYSTEM_PROMPT });
    expect(messages[1]?.['role']).toBe('user');
    expect(text(messages[1]?.['content'])).toContain('[mis-00018] (helpful 0, harmful 2) Never use news.');
    expect(text(messages[1]?.['content'])).toContain('"query":"quantum computing market size 2026"');
    expect(reflector.name).toBe('openai-chat:test-model');
  });

  it('sends no key and no response_format when not asked to', async () => {
    const s = await server(json(200, completion('{"newBullets":[]}')));
    const reflector = openAiChatReflector({ baseUrl: `${s.baseUrl}/`, model: 'm', jsonMode: false });
    expect(await reflector.reflect(request)).toEqual({ newBullets: [], prune: [] });
    expect(s.seen[0]?.url).toBe('/v1/chat/completions');
    expect(s.seen[0]?.headers['authorization']).toBeUndefined();
    expect(s.seen[0]?.body['response_format']).toBeUndefined();
  });

  it('reports a refused key as PEER_UNAVAILABLE, not retryable, with the endpoint message', async () => {
    const s = await server(json(401, JSON.stringify({ error: { message: 'Incorrect API key provided' } })));
    const error = await failure(
      openAiChatReflector({ baseUrl: s.baseUrl, model: 'm', apiKey: 'bad' }).reflect(request),
    );
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('HTTP 401 (check apiKey): Incorrect API key provided');
    expect(error.details).toMatchObject({ status: 401, endpoint: `${s.baseUrl}/chat/completions` });
  });

  it('reports a server error as retryable', async () => {
    const s = await server(json(503, 'overloaded'));
    const error = await failure(openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }).reflect(request));
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 503: overloaded');
  });

  it('hints at the base URL on 404', async () => {
    const s = await server(json(404, '{"error":"no route"}'));
    const error = await failure(openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }).reflect(request));
    expect(error.message).toContain('check baseUrl');
    expect(error.message).toContain('no route');
  });

  it.each([
    ['not JSON', 'hello', 'the answer is not JSON'],
    ['no choices', '{"object":"chat.completion"}', 'no choices[0].message.content'],
    ['prose instead of JSON', completion('I think you should search more.'), 'not the JSON object asked for'],
    [
      'a bad section',
      completion('{"newBullets":[{"section":"tips","content":"x"}]}'),
      'newBullets/0/section',
    ],
  ])('reports %s as a bad response', async (_what, body, message) => {
    const s = await server(json(200, body));
    const error = await failure(openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }).reflect(request));
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.retryable).toBe(false);
    expect(error.details?.['reason']).toBe('bad_response');
    expect(error.message).toContain(message);
  });

  it('refuses an answer larger than maxResponseBytes', async () => {
    const s = await server(json(200, completion(`{"newBullets":[],"pad":"${'x'.repeat(5000)}"}`)));
    const error = await failure(
      openAiChatReflector({ baseUrl: s.baseUrl, model: 'm', maxResponseBytes: 1000 }).reflect(request),
    );
    expect(error.details?.['reason']).toBe('bad_response');
    expect(error.message).toContain('larger than 1000 bytes');
  });

  it('times out with TIMEOUT when the endpoint does not answer', async () => {
    const s = await server(() => undefined); // holds the request open
    const error = await failure(
      openAiChatReflector({ baseUrl: s.baseUrl, model: 'm', timeoutMs: 100 }).reflect(request),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toMatchObject({ timeoutMs: 100 });
  });

  it('is cancelled by the caller signal', async () => {
    const s = await server(() => undefined);
    const controller = new AbortController();
    const pending = openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }).reflect(request, {
      signal: controller.signal,
    });
    await until(() => s.seen.length > 0, { what: 'the request to reach the server' });
    expect(s.seen).toHaveLength(1);
    controller.abort();
    expect((await failure(pending)).code).toBe('CANCELLED');
  });

  it('reports a closed port as PEER_UNAVAILABLE unreachable (retryable)', async () => {
    const s = await chatServer(json(200, '{}'));
    await s.close();
    const error = await failure(openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }).reflect(request));
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.details?.['reason']).toBe('unreachable');
  });

  it.each([
    [{ baseUrl: 'not a url', model: 'm' }, 'baseUrl'],
    [{ baseUrl: 'ftp://x/v1', model: 'm' }, 'baseUrl'],
    [{ baseUrl: 'http://127.0.0.1/v1', model: ' ' }, 'model'],
    [{ baseUrl: 'http://api.example.com/v1', model: 'm', apiKey: 'k' }, 'apiKey'],
    [{ baseUrl: 'http://127.0.0.1/v1', model: 'm', timeoutMs: 0 }, 'timeoutMs'],
  ])('refuses init %j naming %s', (init, field) => {
    expect(() => openAiChatReflector(init)).toThrow(field);
  });
});

describe('learning.reflect through an OpenAI-compatible endpoint', () => {
  it('stores the model bullets in the event, so a rebuild does not call the endpoint', async () => {
    const s = await server(
      json(
        200,
        completion(
          '{"newBullets":[{"section":"str","content":"Prioritize analyst reports for market sizes."}],"prune":["mis-00001"]}',
        ),
      ),
    );
    const p = await startPrimitive((c) =>
      learningPrimitive(c, { reflector: openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }) }),
    );
    cleanup.push(() => p.close());
    await p.ok('learning.addBullet', { playbookId: 'pb', section: 'mis', content: 'Never use news.' });
    const result = await p.ok('learning.reflect', { playbookId: 'pb', execution: request.execution });
    expect(result).toEqual({
      newBullets: [
        { id: 'str-00001', section: 'str', content: 'Prioritize analyst reports for market sizes.' },
      ],
      prunedBullets: ['mis-00001'],
      playbookVersion: 2,
    });
    const [event] = await p.log.read({ type: 'learning.reflected' });
    expect(event?.data).toMatchObject({ reflector: 'openai-chat:m', prunedBullets: ['mis-00001'] });
    expect(s.seen).toHaveLength(1);
    await p.assertReplayEquals(LEARNING_PROJECTIONS);
    expect(s.seen).toHaveLength(1);
  });

  it('fails the call with the adapter error and records nothing', async () => {
    const s = await server(json(500, '{"error":{"message":"boom"}}'));
    const p = await startPrimitive((c) =>
      learningPrimitive(c, { reflector: openAiChatReflector({ baseUrl: s.baseUrl, model: 'm' }) }),
    );
    cleanup.push(() => p.close());
    const error = await p.fail('learning.reflect', { playbookId: 'pb', execution: request.execution });
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.message).toContain('boom');
    expect(await p.log.read({ typePrefix: 'learning.' })).toHaveLength(0);
  });
});
