import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built, cleanup, esrpRequest, startNodeProcess, tenantKeys, type NodeProcess } from './harness.js';

// GET /v1/jobs on a real node process with auth on and API keys bound to tenants: each caller
// lists only its own tenant's jobs, newest first, page by page; bad parameters are 400s in the
// ESRP error form naming the parameter.

const { acme, globex, ops, config: CONFIG } = tenantKeys(); // ops: bound to no tenant

type Key = { key: string } | undefined;

interface ListBody {
  esrp_version?: string;
  jobs?: { status: string; job: { job_id: string; state: string } }[];
  next_cursor?: string | null;
  status?: string;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

let node: NodeProcess;
const ids: Record<'acme' | 'globex' | 'ops', string[]> = { acme: [], globex: [], ops: [] };
let slowId = '';

async function http(method: string, path: string, key: Key, body?: unknown) {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key.key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: JSON.parse(await response.text()) as ListBody & Record<string, unknown>,
  };
}

async function run(key: { key: string }, data: unknown): Promise<string> {
  const reply = await http('POST', '/v1/execute', key, esrpRequest('echo.echo', data));
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body['job'] as { job_id: string }).job_id;
}

/** Every job id a caller lists, following next_cursor (bounded). */
async function listAll(key: Key, query: string): Promise<{ ids: string[]; pages: number }> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= 50; pages++) {
    const sep = query === '' ? '' : '&';
    const path = `/v1/jobs?${query}${cursor === null ? '' : `${sep}cursor=${encodeURIComponent(cursor)}`}`;
    const reply = await http('GET', path, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    out.push(...(reply.body.jobs ?? []).map((j) => j.job.job_id));
    cursor = reply.body.next_cursor ?? null;
    if (cursor === null) return { ids: out, pages };
  }
  throw new Error('the listing did not end');
}

beforeAll(async () => {
  if (!built()) throw new Error('dist/ is missing: build first (npx tsc -b tsconfig.build.json)');
  node = await startNodeProcess({ flags: ['--demo'], config: CONFIG });
  for (let i = 0; i < 3; i++) ids.acme.push(await run(acme, { who: 'acme', i }));
  for (let i = 0; i < 2; i++) ids.globex.push(await run(globex, { who: 'globex', i }));
  ids.ops.push(await run(ops, { who: 'ops' }));
  const slow = await http(
    'POST',
    '/v1/jobs',
    acme,
    esrpRequest('demo.slow', { seconds: 30, steps: 30 }, 'async'),
  );
  expect(slow.status, JSON.stringify(slow.body)).toBe(202);
  slowId = (slow.body['job'] as { job_id: string }).job_id;
  ids.acme.push(slowId);
}, 60_000);

afterAll(async () => {
  if (slowId !== '') await http('DELETE', `/v1/jobs/${slowId}`, acme).catch(() => undefined);
  await cleanup();
});

describe('GET /v1/jobs', () => {
  it("lists the caller's own jobs, newest first, each in the GET /v1/jobs/{id} form", async () => {
    const reply = await http('GET', '/v1/jobs', acme);
    expect(reply.status).toBe(200);
    expect(reply.body.esrp_version).toBe('1.0');
    expect(reply.body.jobs?.map((j) => j.job.job_id)).toEqual([...ids.acme].reverse());
    expect(reply.body.next_cursor).toBeNull();
    const finished = reply.body.jobs?.[1];
    const single = await http('GET', `/v1/jobs/${finished?.job.job_id ?? ''}`, acme);
    expect(finished).toEqual(single.body);
    expect(finished?.status).toBe('succeeded');
  });

  it("never shows another tenant's jobs, and shows a caller bound to no tenant only untenanted jobs", async () => {
    expect((await listAll(globex, '')).ids).toEqual([...ids.globex].reverse());
    expect((await listAll(ops, '')).ids).toEqual(ids.ops);
    for (const key of [globex, ops]) {
      const seen = (await listAll(key, 'limit=500')).ids;
      for (const id of ids.acme) expect(seen).not.toContain(id);
    }
  });

  it('pages with limit and next_cursor', async () => {
    const { ids: listed, pages } = await listAll(acme, 'limit=1');
    expect(listed).toEqual([...ids.acme].reverse());
    expect(pages).toBeGreaterThanOrEqual(4);
  });

  it('filters by ESRP or D8 state names, verb and since', async () => {
    const echo = [...ids.acme.slice(0, 3)].reverse();
    expect((await listAll(acme, 'state=succeeded')).ids).toEqual(echo);
    expect((await listAll(acme, 'state=COMPLETED')).ids).toEqual(echo);
    expect((await listAll(acme, 'state=queued,started')).ids).toEqual([slowId]);
    expect((await listAll(acme, 'state=SUBMITTED,working')).ids).toEqual([slowId]);
    expect((await listAll(acme, 'state=failed,cancelled')).ids).toEqual([]);
    expect((await listAll(acme, 'verb=echo.echo')).ids).toEqual(echo);
    expect((await listAll(acme, 'verb=demo.*')).ids).toEqual([slowId]);
    expect((await listAll(acme, 'since=2999-01-01T00:00:00Z')).ids).toEqual([]);
    expect((await listAll(acme, 'since=2000-01-01T00:00:00%2B02:00')).ids).toEqual([...ids.acme].reverse());
  });

  it('answers bad parameters with 400 in the ESRP error form naming the parameter', async () => {
    const cursor = (await http('GET', '/v1/jobs?limit=1&verb=echo.*', acme)).body.next_cursor ?? '';
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['state=done', 'state'],
      ['state=', 'state'],
      ['verb=Echo', 'verb'],
      ['verb=*', 'verb'],
      ['since=yesterday', 'since'],
      ['cursor=junk', 'cursor'],
      [`cursor=${encodeURIComponent(cursor)}`, 'cursor'], // issued for verb=echo.*
      ['status=succeeded', 'status'],
      ['order=recent', 'order'],
      ['order=status&order=submitted', 'order'],
      [`order=submitted&verb=echo.*&cursor=${encodeURIComponent(cursor)}`, 'cursor'], // a status-order cursor
    ];
    for (const [query, parameter] of cases) {
      const reply = await http('GET', `/v1/jobs?${query}`, acme);
      expect(reply.status, query).toBe(400);
      expect(reply.body.status).toBe('failed');
      expect(reply.body.error?.code).toBe('INVALID_INPUT_SCHEMA');
      expect(reply.body.error?.details?.['parameter'], query).toBe(parameter);
      expect(reply.body.error?.details?.['accepted']).toBeTypeOf('string');
      expect(reply.body.error?.message).toContain(parameter);
    }
  });

  it('refuses a caller without a credential, as the other ESRP routes do', async () => {
    const reply = await http('GET', '/v1/jobs', undefined);
    expect(reply.status).toBe(401);
    expect(reply.body.status).toBe('failed');
    expect((await http('GET', `/v1/jobs/${slowId}`, undefined)).status).toBe(401);
  });

  it('orders by the latest status change by default, by submission with order=submitted (JL-11)', async () => {
    const later = await run(acme, { who: 'acme', later: true });
    const cancelled = await http('DELETE', `/v1/jobs/${slowId}`, acme);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const echo = [...ids.acme.slice(0, 3)].reverse();
    expect((await listAll(acme, 'limit=1')).ids).toEqual([slowId, later, ...echo]);
    expect((await listAll(acme, 'order=status&limit=2')).ids).toEqual([slowId, later, ...echo]);
    expect((await listAll(acme, 'order=submitted&limit=1')).ids).toEqual([later, slowId, ...echo]);
  });
});
