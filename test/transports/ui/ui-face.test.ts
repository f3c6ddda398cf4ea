/**
 * The dashboard face on a real node (in process, real HTTP on 127.0.0.1, the SQLite log): its
 * static files (no credential, strict CSP, no path escapes), and its JSON routes behind the
 * node's auth, tenant by tenant — the job rows, a job's detail, the live job feed and the
 * metrics as JSON. The browser test is test/e2e/ui-dashboard.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { createNode, type Node } from '../../../src/node/index.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { ROOT } from '../../e2e/harness.js';

const acme = generateApiKey();
const globex = generateApiKey();
const A = { authorization: `Bearer ${acme.key}` };
const G = { authorization: `Bearer ${globex.key}` };

const calc = defineAgent({
  card: {
    id: 'calc',
    name: 'Calc',
    version: '1.0.0',
    tier: 'L3',
    capabilities: ['calc.ok', 'calc.fail'].map((verb) => ({ verb, input: {}, output: {} })),
  },
  create: () => ({
    'calc.ok': (input) => ({ echoed: input }),
    'calc.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'calc.fail always fails');
    },
  }),
});

function esrp(operation: string, data: unknown): string {
  return JSON.stringify({
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'test' },
    target: { service: 'calc', operation },
    inputs: [
      { name: 'input', content_type: 'application/json', data: JSON.stringify(data), encoding: 'utf-8' },
    ],
    params: null,
    mode: { type: 'sync', timeout_ms: 30_000 },
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the bodies freely
type Body = Record<string, any>;
/** One message of an SSE stream. */
interface Message {
  readonly id: string;
  readonly data: Body;
}

let node: Node;
let dataDir: string;

async function call(operation: string, data: unknown, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${node.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: esrp(operation, data),
  });
  const body = (await res.json()) as { job: { job_id: string } };
  return body.job.job_id;
}

async function get(path: string, headers: Record<string, string> = A) {
  const res = await fetch(`${node.url}${path}`, { headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => JSON.parse(text) as Body,
  };
}

/**
 * Reads the SSE stream at `path` until `until` holds for the messages read (bounded by
 * `maxMessages`), then closes it.
 */
async function readFeed(
  path: string,
  headers: Record<string, string>,
  until: (messages: readonly Message[]) => boolean,
  onOpen: () => Promise<void> = () => Promise.resolve(),
  maxMessages = 200,
): Promise<Message[]> {
  const controller = new AbortController();
  const res = await fetch(`${node.url}${path}`, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: Message[] = [];
  let buffer = '';
  await onOpen();
  try {
    while (messages.length < maxMessages) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id !== undefined && data !== undefined) messages.push({ id, data: JSON.parse(data) as Body });
      }
      if (until(messages)) break;
    }
  } finally {
    controller.abort();
  }
  return messages;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'plexus-ui-'));
  node = createNode({
    primitives: false,
    demo: false,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    dev: false,
    apiKeys: [
      { hash: acme.hash, subject: 'alice', tenant: 'acme' },
      { hash: globex.hash, subject: 'bob', tenant: 'globex' },
    ],
    agents: [calc],
  });
  await node.start();
});

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  await rm(dataDir, { recursive: true, force: true });
});

describe('dashboard face: static files', () => {
  it('redirects /ui to /ui/ and serves the page without a credential, with a strict CSP', async () => {
    const bare = await fetch(`${node.url}/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/ui/');
    const page = await get('/ui/', {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script type="module" src="app.js"></script>');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves every module the page imports, as JavaScript, and nothing from a CDN', async () => {
    const files = readdirSync(join(ROOT, 'ui')).filter((f) => f.endsWith('.js'));
    expect(files).toContain('app.js');
    for (const file of files) {
      const source = readFileSync(join(ROOT, 'ui', file), 'utf8');
      expect(source, file).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/); // no remote URL
      for (const [, imported] of source.matchAll(/from '\.\/([a-z0-9-]+\.js)'/g)) {
        const res = await get(`/ui/${imported}`, {});
        expect(res.status, `${file} imports ${imported}`).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      }
    }
    expect((await get('/ui/app.css', {})).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers 404 in the plain form for unknown files and path escapes', async () => {
    for (const path of ['/ui/nope.js', '/ui/..%2Fpackage.json', '/ui/%2e%2e%2fpackage.json', '/ui/APP.JS']) {
      const res = await get(path, {});
      expect(res.status, path).toBe(404);
      expect(res.json()['error']['code']).toBe('NOT_FOUND');
      expect(res.text).not.toContain('"name": "plexus"');
    }
  });
});

describe('dashboard face: JSON routes', () => {
  let acmeOk = '';
  let acmeFail = '';
  let globexOk = '';

  beforeAll(async () => {
    acmeOk = await call('ok', { n: 1 }, A);
    acmeFail = await call('fail', { n: 2 }, A);
    globexOk = await call('ok', { secret: 'globex' }, G);
  });

  it('asks for a credential on every API route (401 with WWW-Authenticate), never a 500', async () => {
    for (const path of [
      '/ui/api/jobs',
      `/ui/api/jobs/${acmeOk}`,
      '/ui/api/jobs/events',
      '/ui/api/metrics',
      '/ui/api/node',
    ]) {
      const res = await get(path, {});
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.json()['error']['code']).toBe('UNAUTHORIZED');
      const forged = await get(path, { authorization: `Bearer ${generateApiKey().key}` });
      expect(forged.status, path).toBe(401);
    }
  });

  it('lists the caller tenant’s jobs only, newest first, with verb, tenant, state and duration', async () => {
    const rows = (await get('/ui/api/jobs')).json()['jobs'] as Record<string, unknown>[];
    expect(rows.map((r) => r['id'])).toEqual([acmeFail, acmeOk]);
    expect(rows[0]).toMatchObject({
      verb: 'calc.fail',
      state: 'failed',
      tenant: 'acme',
      error: 'PRECONDITION_FAILED',
    });
    expect(rows[1]).toMatchObject({ verb: 'calc.ok', state: 'succeeded', tenant: 'acme', error: null });
    expect(typeof rows[1]?.['duration_ms']).toBe('number');
    const theirs = (await get('/ui/api/jobs', G)).json()['jobs'] as Record<string, unknown>[];
    expect(theirs.map((r) => r['id'])).toEqual([globexOk]);
    const failed = (await get('/ui/api/jobs?state=failed&verb=calc.*')).json()['jobs'] as unknown[];
    expect(failed).toHaveLength(1);
  });

  it('refuses bad list parameters with a 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=x', 'limit'],
      ['state=nope', 'state'],
      ['cursor=garbage', 'cursor'],
      ['bogus=1', 'bogus'],
    ] as const) {
      const res = await get(`/ui/api/jobs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json()['error']['details']['parameter']).toBe(parameter);
    }
  });

  it('shows a job’s input, events in order and its error with the recovery hint; no request envelope', async () => {
    const detail = (await get(`/ui/api/jobs/${acmeFail}`)).json();
    expect(detail['job']).toMatchObject({ id: acmeFail, state: 'failed' });
    // the input as the handler received it (calc takes any input, so the ESRP data itself)
    expect(detail['input']['inputs'][0]['data']).toBe('{"n":2}');
    const events = detail['events'] as { seq: number; name: string; data: Record<string, unknown> }[];
    expect(events.map((e) => e.name)).toEqual(['job_queued', 'job_started', 'job_failed']);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(events[0]?.data['request']).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain('authorization');
    const error = detail['esrp']['error'];
    expect(error['details']['plexus_code']).toBe('PRECONDITION_FAILED');
    expect(typeof error['details']['suggested_action']).toBe('string');
  });

  it('answers another tenant’s job exactly like a missing one', async () => {
    const theirs = await get(`/ui/api/jobs/${globexOk}`);
    const missing = await get(`/ui/api/jobs/01a00000-0000-7000-8000-000000000000`);
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(theirs.json()['error']['code']).toBe(missing.json()['error']['code']);
  });

  it('draws the trace a job belongs to: its tenant’s jobs of that trace only, each with its status', async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const traced = (tenant: Record<string, string>) => ({
      ...tenant,
      traceparent: `00-${traceId}-${randomUUID().replace(/-/g, '').slice(0, 16)}-01`,
    });
    const first = await call('ok', { t: 1 }, traced(A));
    const second = await call('fail', { t: 2 }, traced(A));
    const theirs = await call('ok', { t: 3 }, traced(G));
    const mine = (await get(`/ui/api/jobs/${first}/trace`)).json()['trace'] as Body;
    expect(mine['traceId']).toBe(traceId);
    const spans = mine['spans'] as { jobId: string; verb: string; status: string; depth: number }[];
    expect(spans.map((s) => [s.jobId, s.verb, s.status])).toEqual([
      [first, 'calc.ok', 'ok'],
      [second, 'calc.fail', 'failed'],
    ]);
    // the other tenant's job of the same trace is neither drawn nor reachable
    expect((await get(`/ui/api/jobs/${theirs}/trace`)).status).toBe(404);
    const theirView = (await get(`/ui/api/jobs/${theirs}/trace`, G)).json()['trace'] as Body;
    expect((theirView['spans'] as { jobId: string }[]).map((s) => s.jobId)).toEqual([theirs]);
    const missing = await get('/ui/api/jobs/01a00000-0000-7000-8000-000000000000/trace');
    expect(missing.status).toBe(404);
    expect((await get(`/ui/api/jobs/${first}/trace`, {})).status).toBe(401);
  });

  it('feeds new job events live, only the caller tenant’s, and resumes after Last-Event-ID', async () => {
    let mine = '';
    let other = '';
    const messages = await readFeed(
      '/ui/api/jobs/events',
      A,
      (m) => m.some((x) => x.data['id'] === mine && x.data['state'] === 'succeeded'),
      async () => {
        other = await call('ok', { who: 'globex' }, G); // first, so a leak would come first
        mine = await call('ok', { who: 'acme' }, A);
      },
    );
    expect(messages.some((m) => m.data['id'] === other)).toBe(false);
    expect(messages.every((m) => m.data['tenant'] === 'acme')).toBe(true);
    const names = messages.filter((m) => m.data['id'] === mine).map((m) => String(m.data['event']));
    expect(names).toEqual(['job_queued', 'job_started', 'job_succeeded']);
    // resume: after the first event of `mine`, the rest comes again from the log
    const first = messages.find((m) => m.data['id'] === mine)!;
    const resumed = await readFeed('/ui/api/jobs/events', { ...A, 'last-event-id': first.id }, (m) =>
      m.some((x) => x.data['id'] === mine && x.data['event'] === 'job_succeeded'),
    );
    expect(resumed.filter((m) => m.data['id'] === mine).map((m) => String(m.data['event']))).toEqual([
      'job_started',
      'job_succeeded',
    ]);
    const bad = await get('/ui/api/jobs/events', { ...A, 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
  });

  it('gives the node’s figures as JSON: invocations, errors, cumulative duration buckets, shed', async () => {
    const before = (await get('/ui/api/metrics')).json();
    await call('ok', {}, A);
    await call('fail', {}, A);
    const after = (await get('/ui/api/metrics')).json();
    expect(after['invocations'] - before['invocations']).toBe(2);
    expect(after['errors'] - before['errors']).toBe(1);
    const buckets = after['duration']['buckets'] as [number | null, number][];
    expect(buckets.at(-1)?.[0]).toBeNull(); // +Inf
    expect(buckets.at(-1)?.[1]).toBe(after['duration']['count']);
    for (let i = 1; i < buckets.length; i++)
      expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1]);
    expect(after['shed']).toBe(0);
    const info = (await get('/ui/api/node')).json();
    expect(info).toMatchObject({ node_id: node.nodeId, mesh: false, metrics: true });
  });
});
