import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonObject } from '../../../src/core/json.js';
import {
  dotAt,
  encodeVector,
  hashedEmbedder,
  idfWeight,
  openAiEmbedder,
  tokenize,
} from '../../../src/primitives/memory/index.js';
import { scoreHeap } from '../../../src/primitives/memory/score-heap.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { startMemoryCore, type MemoryCore } from './memory-harness.js';

const cos = (a: Float32Array, b: Float32Array): number => dotAt(a, 0, b, 0, a.length);

describe('hashedEmbedder', () => {
  const e = hashedEmbedder();
  const v = (t: string): Float32Array => e.embedSync!(t);

  it('is deterministic, 256-dimensional and L2-normalised', async () => {
    expect([e.id, e.dimensions, e.deterministic]).toEqual(['hashed-ngram-v1/256', 256, true]);
    const a = v('Exponential backoff with jitter');
    expect(a).toEqual(v('Exponential backoff with jitter'));
    expect(cos(a, a)).toBeCloseTo(1, 5);
    expect((await e.embed(['Exponential backoff with jitter']))[0]).toEqual(a);
  });

  it('scores shared words and word forms above unrelated text', () => {
    const q = v('rate limited API requests');
    const near = cos(q, v('Requests to a rate-limited API need backoff'));
    const forms = cos(v('limits'), v('limited'));
    const far = cos(q, v('Sourdough bread needs a warm kitchen'));
    expect(near).toBeGreaterThan(0.4);
    expect(forms).toBeGreaterThan(0.1); // shared trigrams: <li lim imi mit
    expect(far).toBeLessThan(0.2);
    expect(near).toBeGreaterThan(far + 0.3);
    expect(cos(v('The API'), v('API'))).toBeGreaterThan(0.9); // function words weigh little
  });

  it('ignores case and Unicode compatibility forms; an empty text is the zero vector', () => {
    expect(v('ＡＰＩ Limits')).toEqual(v('api limits'));
    expect(tokenize('Hello, wörld-42!')).toEqual(['hello', 'wörld', '42']);
    expect([...v('  ... ')].every((x) => x === 0)).toBe(true);
    expect([idfWeight('the'), idfWeight('use'), idfWeight('2026'), idfWeight('jitter')]).toEqual([
      0.1, 0.35, 0.5, 1,
    ]);
  });

  it('always yields a unit or zero vector of the right size (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const x = v(text);
        expect(x).toHaveLength(256);
        const n = cos(x, x);
        expect(n === 0 || Math.abs(n - 1) < 1e-4).toBe(true);
      }),
    );
  });

  it('rejects dimensions out of range', () => {
    expect(() => hashedEmbedder({ dimensions: 8 })).toThrow(/16…4096/);
    expect(hashedEmbedder({ dimensions: 64 }).id).toBe('hashed-ngram-v1/64');
  });
});

describe('scoreHeap', () => {
  it('pops in descending score order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 })), (xs) => {
        const h = scoreHeap(2);
        xs.forEach((x, i) => {
          h.push(x, i);
        });
        const out: number[] = [];
        while (h.size > 0) {
          out.push(h.topScore());
          h.pop();
        }
        // Scores compare by value: 0 and -0 are the same score, in either order.
        const byValue = (ys: number[]): number[] => ys.map((y) => y + 0);
        expect(byValue(out)).toEqual(byValue([...xs].sort((a, b) => b - a)));
        expect(h.pop()).toBe(-1);
      }),
    );
  });
});

/** A local OpenAI-compatible embeddings server: vectors from the hashed embedder, shuffled order. */
interface FakeApi {
  readonly url: string;
  readonly requests: JsonObject[];
  mode: 'ok' | 'base64' | 'unauthorized' | 'server-error' | 'hang' | 'not-json' | 'short' | 'wrong-size';
  close(): Promise<void>;
}

const read = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
};

async function fakeApi(): Promise<FakeApi> {
  const local = hashedEmbedder({ dimensions: 64 });
  const requests: JsonObject[] = [];
  const api: { mode: FakeApi['mode'] } = { mode: 'ok' };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await read(req)) as { model: string; input: string[] };
      requests.push({
        ...body,
        path: req.url ?? '',
        auth: req.headers.authorization ?? null,
      });
      const send = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
        send(404, { error: { message: 'no route' } });
        return;
      }
      if (req.headers.authorization !== 'Bearer sk-test' || api.mode === 'unauthorized') {
        send(401, { error: { message: 'Incorrect API key provided' } });
        return;
      }
      if (api.mode === 'server-error') {
        send(503, { error: { message: 'overloaded' } });
        return;
      }
      if (api.mode === 'hang') return; // never answers (the client times out)
      if (api.mode === 'not-json') {
        send(200, '<html>proxy</html>');
        return;
      }
      const inputs = api.mode === 'short' ? body.input.slice(1) : body.input;
      const data = inputs.map((text, index) => {
        let vec = local.embedSync!(text);
        if (api.mode === 'wrong-size') vec = vec.subarray(0, 32);
        return {
          object: 'embedding',
          index,
          embedding: api.mode === 'base64' ? encodeVector(vec) : [...vec],
        };
      });
      send(200, {
        object: 'list',
        data: data.reverse(),
        model: body.model,
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get mode() {
      return api.mode;
    },
    set mode(m) {
      api.mode = m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const failure = async (p: Promise<unknown>): Promise<PlexusError> => {
  try {
    await p;
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

describe('openAiEmbedder (against a local HTTP server)', () => {
  let api: FakeApi;
  beforeAll(async () => {
    api = await fakeApi();
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(() => {
    api.mode = 'ok';
  });

  it('posts {model, input, dimensions} with the bearer key and orders vectors by index', async () => {
    const e = openAiEmbedder({
      baseUrl: `${api.url}/`,
      model: 'nomic-embed-text',
      apiKey: 'sk-test',
      dimensions: 64,
      batchSize: 2,
    });
    expect([e.id, e.deterministic, e.dimensions]).toEqual([
      'openai-compatible:nomic-embed-text/64',
      false,
      64,
    ]);
    const texts = ['alpha beta', 'gamma', 'delta epsilon'];
    const before = api.requests.length;
    const vs = await e.embed(texts);
    const local = hashedEmbedder({ dimensions: 64 });
    vs.forEach((x, i) => {
      expect(x).toEqual(local.embedSync!(texts[i]!));
    });
    const sent = api.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual({
      model: 'nomic-embed-text',
      input: ['alpha beta', 'gamma'],
      dimensions: 64,
      path: '/v1/embeddings',
      auth: 'Bearer sk-test',
    });
    api.mode = 'base64';
    expect((await e.embed(['gamma']))[0]).toEqual(local.embedSync!('gamma'));
  });

  it('learns the size from the first answer when none is configured', async () => {
    const e = openAiEmbedder({ baseUrl: api.url, model: 'm', apiKey: 'sk-test' });
    expect(e.dimensions).toBeUndefined();
    await e.embed(['x']);
    expect(e.dimensions).toBe(64);
    api.mode = 'wrong-size';
    expect((await failure(e.embed(['x']))).message).toMatch(/32 dimensions, expected 64/);
  });

  it('fails clearly: bad key, server error, timeout, non-JSON, short answer, unreachable', async () => {
    const e = openAiEmbedder({ baseUrl: api.url, model: 'm', apiKey: 'sk-test', timeoutMs: 300 });
    const bad = await failure(openAiEmbedder({ baseUrl: api.url, model: 'm', apiKey: 'nope' }).embed(['x']));
    expect([bad.code, bad.retryable]).toEqual(['UNAVAILABLE', false]);
    expect(bad.message).toMatch(/HTTP 401 \(check apiKey\): Incorrect API key provided/);
    expect(bad.details).toMatchObject({ status: 401, model: 'm' });
    api.mode = 'server-error';
    const busy = await failure(e.embed(['x']));
    expect([busy.code, busy.retryable, busy.message]).toEqual([
      'UNAVAILABLE',
      true,
      expect.stringMatching(/HTTP 503: overloaded/),
    ]);
    api.mode = 'hang';
    const slow = await failure(e.embed(['x']));
    expect([slow.code, slow.message]).toEqual(['TIMEOUT', expect.stringMatching(/within 300 ms/)]);
    api.mode = 'not-json';
    expect((await failure(e.embed(['x']))).message).toMatch(/not JSON: <html>/);
    api.mode = 'short';
    expect((await failure(e.embed(['x', 'y']))).message).toMatch(/expected "data" with 2 embeddings, got 1/);
    const missing = await failure(
      openAiEmbedder({ baseUrl: `${api.url}/nowhere`, model: 'm', apiKey: 'sk-test' }).embed(['x']),
    );
    expect(missing.message).toMatch(/HTTP 404 \(check baseUrl and model\)/);
    const dead = await fakeApi();
    await dead.close();
    const unreachable = await failure(openAiEmbedder({ baseUrl: dead.url, model: 'm' }).embed(['x']));
    expect([unreachable.code, unreachable.retryable]).toEqual(['UNAVAILABLE', true]);
    expect(unreachable.message).toMatch(/unreachable/);
    const controller = new AbortController();
    api.mode = 'hang';
    const pending = e.embed(['x'], { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).code).toBe('CANCELLED');
  });

  it('rejects a bad configuration at once', () => {
    expect(() => openAiEmbedder({ baseUrl: 'not a url', model: 'm' })).toThrow(/not a URL/);
    expect(() => openAiEmbedder({ baseUrl: 'ftp://x', model: 'm' })).toThrow(/http\(s\)/);
    expect(() => openAiEmbedder({ baseUrl: api.url, model: '' })).toThrow(/model/);
    expect(() => openAiEmbedder({ baseUrl: api.url, model: 'm', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('stores remote vectors in the events, and a restart rebuilds the index without the network', async () => {
    const log = memoryEventLog();
    await log.start();
    const own = await fakeApi();
    const embedder = openAiEmbedder({ baseUrl: own.url, model: 'm', apiKey: 'sk-test' });
    let core: MemoryCore | undefined = await startMemoryCore({ log, init: { embedder } });
    try {
      const a = await core.ok('memory.store', { content: 'exponential backoff with jitter' });
      await core.ok('memory.store', { content: 'sourdough hydration' });
      const found = await core.ok('memory.search', { query: 'backoff with jitter', limit: 1 });
      expect((found.memories as JsonObject[])[0]?.id).toBe(a.id);
      const events = (await log.read({ afterSeq: 0, limit: 100 })).filter(
        (ev) => ev.type === 'memory.stored',
      );
      expect(events).toHaveLength(2);
      for (const ev of events) expect((ev.data as JsonObject).vector).toMatch(/^[A-Za-z0-9+/]+=*$/);
      await core.stopPrimitive();
      const calls = own.requests.length;
      await own.close(); // the endpoint is gone: the rebuild must not need it
      core = await startMemoryCore({ log, init: { embedder } });
      expect(core.memory.searchIndex()?.size).toBe(2);
      expect(own.requests.length).toBe(calls);
      expect((await core.ok('memory.get', { id: a.id })).content).toBe('exponential backoff with jitter');
      const down = await core.fail('memory.search', { query: 'backoff' });
      expect(down.code).toBe('UNAVAILABLE');
      await core.expectReplayMatches();
    } finally {
      await core.close();
      await log.stop();
    }
  });
});
