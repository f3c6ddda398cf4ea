// Issue 11 item 7: failures fastify answers itself (a bad URL, an over-long path parameter,
// content-type, body and method trouble) come back in the form of the face the URL belongs
// to, with a 4xx status — never fastify's own body (`FST_ERR_BAD_URL`, `FST_ERR_MAX_PARAM_LENGTH`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlexusErrorCode } from '../../src/core/errors.js';
import { validateEsrpResponse } from '../../src/core/esrp/response.js';
import { createNode, type Node } from '../../src/node/index.js';
import { validateEmergence } from '../../src/wire/emergence/validate.js';

let node: Node;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-fwerr-'));
  node = createNode({ dataDir: dir, port: 0, dev: true, store: 'memory', demo: true, bodyLimitBytes: 4096 });
  await node.start();
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Face = 'esrp' | 'emergence' | 'peer' | 'discovery';

/** Asserts `body` is `face`'s own error form for `status`. */
function expectFaceForm(face: Face, status: number, body: unknown): void {
  const b = body as Record<string, unknown>;
  switch (face) {
    case 'esrp':
    case 'peer': // the peer route refuses with the ESRP failed response (issue 11 item 1)
      expect(validateEsrpResponse(body)).toEqual([]);
      expect(b['status']).toBe('failed');
      if (face === 'peer') {
        const details = (b['error'] as { details: { plexus_code: unknown; retryable?: unknown } }).details;
        expect(isPlexusErrorCode(details.plexus_code)).toBe(true);
      }
      return;
    case 'emergence':
      expect(validateEmergence(body)).toEqual([]);
      expect(b['verb']).toBe('ERROR');
      expect((b['data'] as { code: number }).code).toBe(status);
      return;
    case 'discovery': {
      expect(Object.keys(b)).toEqual(['error']);
      const error = b['error'] as { code: unknown; message: unknown; retryable?: unknown };
      expect(isPlexusErrorCode(error.code)).toBe(true);
      expect(typeof error.message).toBe('string');
    }
  }
}

const json = { 'content-type': 'application/json' };
const long = 'a'.repeat(300);

/** Each face: where it lives, and its route with a path parameter (if it has one). */
const FACES: readonly { face: Face; post?: string; param?: string; base: string }[] = [
  { face: 'esrp', post: '/v1/execute', param: '/v1/jobs/', base: '/v1/jobs' },
  { face: 'emergence', post: '/emergence', base: '/emergence' },
  { face: 'peer', post: '/v1/peer/invoke', base: '/v1/peer/invoke' },
  { face: 'discovery', param: '/agents/', base: '/agents' },
];

interface Case {
  readonly name: string;
  /** The request for a face, or undefined when the face has no such route. */
  readonly request: (f: (typeof FACES)[number]) => [string, RequestInit] | undefined;
}

const CASES: readonly Case[] = [
  { name: 'bad URL encoding', request: (f) => [`${f.base}/%ff`, { method: 'GET' }] },
  {
    name: 'bad URL encoding in a parameter',
    request: (f) => (f.param ? [`${f.param}%ff%fe`, {}] : undefined),
  },
  { name: 'over-long path parameter', request: (f) => (f.param ? [`${f.param}${long}`, {}] : undefined) },
  {
    name: 'bad content type',
    request: (f) =>
      f.post
        ? [f.post, { method: 'POST', body: '{}', headers: { 'content-type': ';;; not a type' } }]
        : undefined,
  },
  {
    name: 'body too large',
    request: (f) =>
      f.post ? [f.post, { method: 'POST', body: `"${'x'.repeat(9000)}"`, headers: json }] : undefined,
  },
  {
    name: 'invalid JSON',
    request: (f) => (f.post ? [f.post, { method: 'POST', body: '{"id": ', headers: json }] : undefined),
  },
  {
    name: 'empty body with a JSON content type',
    request: (f) => (f.post ? [f.post, { method: 'POST', body: '', headers: json }] : undefined),
  },
  {
    name: 'unsupported method',
    request: (f) => [f.post ?? `${f.param ?? '/'}x`, { method: 'PUT', body: '{}', headers: json }],
  },
];

describe('framework-level failures on every HTTP face', () => {
  for (const f of FACES) {
    for (const c of CASES) {
      const req = c.request(f);
      if (req === undefined) continue;
      it(`${f.face}: ${c.name} is answered in the face's form with a 4xx`, async () => {
        const [path, init] = req;
        const res = await fetch(`${node.url}${path}`, init);
        const text = await res.text();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('retry-after')).toBeNull();
        expect(text).not.toMatch(/FST_ERR|statusCode/);
        expectFaceForm(f.face, res.status, JSON.parse(text));
      });
    }
  }

  it('names what is wrong with a bad URL and a long parameter', async () => {
    const bad = (await (await fetch(`${node.url}/v1/jobs/%ff`)).json()) as { error: { message: string } };
    expect(bad.error.message).toMatch(/is not valid.*percent-encode/);
    const tooLong = await fetch(`${node.url}/agents/${long}`);
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toMatch(/longer than/);
  });

  it('keeps serving after the table', async () => {
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });
});
