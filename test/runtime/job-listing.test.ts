import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import type { Job } from '../../src/core/records/job.js';
import { visibleToTenant } from '../../src/runtime/pipeline/tenancy.js';
import { listJobs, type JobListingLimits } from '../../src/runtime/jobs/job-listing.js';
import { listTenantOf, type JobListQuery } from '../../src/runtime/jobs/job-list-query.js';
import type { Principal } from '../../src/runtime/context.js';
import {
  LOG_BACKENDS,
  agent,
  gate,
  request,
  startRuntime,
  type Harness,
  type LogUnderTest,
} from './helpers.js';

const done = gate();

/** Agents: echo (succeeds), boom (fails), slow (waits for `done`). */
function agents() {
  return [
    agent('echo', {
      'demo.echo': (input: JsonValue) => input,
      'demo.other': (input: JsonValue) => input,
      'misc.thing': (input: JsonValue) => input,
    }),
    agent('boom', {
      'demo.boom': () => {
        throw new Error('boom on purpose');
      },
    }),
    agent('slow', { 'demo.slow': async () => done.promise.then(() => ({ slow: true })) }),
  ];
}

const VERBS = ['demo.echo', 'demo.other', 'misc.thing', 'demo.boom'] as const;

/** Every page of a listing, following the cursor (bounded). */
async function allPages(
  h: Harness,
  query: JobListQuery,
  limits?: JobListingLimits,
): Promise<{ jobs: Job[]; pages: number }> {
  const jobs: Job[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 200; pages++) {
    const page = await listJobs(
      { log: h.log, jobs: h.runtime.views.jobs },
      { ...query, ...(cursor === undefined ? {} : { cursor }) },
      limits === undefined ? {} : { limits },
    );
    jobs.push(...page.jobs);
    if (page.nextCursor === undefined) return { jobs, pages };
    cursor = page.nextCursor;
  }
  throw new Error('the listing did not end');
}

for (const backend of LOG_BACKENDS) {
  describe(`Runtime.jobs.list (${backend.name} log)`, () => {
    let h: Harness | undefined;
    let under: LogUnderTest | undefined;
    afterEach(async () => {
      await h?.close();
      await under?.cleanup();
      h = undefined;
      under = undefined;
    });

    /** A runtime keeping `retain` finished jobs, after `n` sync jobs; their ids, oldest first. */
    async function withJobs(n: number, retain: number, tenants: (string | undefined)[] = [undefined]) {
      under = await backend.make();
      h = await startRuntime({ agents: agents(), retainFinishedJobs: retain }, under.log);
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const verb = VERBS[i % VERBS.length] as string;
        const tenantId = tenants[i % tenants.length];
        const { job } = await h.runtime.invoke(
          request(verb, { i }, `capability:${verb}`, tenantId === undefined ? {} : { tenantId }),
          { face: 'test' },
        );
        ids.push(job!.id);
      }
      return ids;
    }

    it('lists every job newest first, past the retention bound, with the records jobs.get gives', async () => {
      const ids = await withJobs(14, 3);
      expect(h!.runtime.views.jobs.state().size).toBe(3);
      const first = await h!.runtime.jobs.list({ limit: 5 });
      expect(first.jobs.map((j) => j.id)).toEqual(ids.slice(-5).reverse());
      expect(first.nextCursor).toBeTypeOf('string');
      const { jobs, pages } = await allPages(h!, { limit: 5 });
      expect(jobs.map((j) => j.id)).toEqual([...ids].reverse());
      expect(pages).toBeGreaterThanOrEqual(3);
      for (const job of jobs) expect(job).toEqual(await h!.runtime.jobs.get(job.id));
      const whole = await h!.runtime.jobs.list({ limit: 500 });
      expect(whole.jobs.map((j) => j.id)).toEqual([...ids].reverse());
      expect(whole.nextCursor).toBeUndefined();
    });

    it('keeps later pages unchanged while new jobs arrive', async () => {
      const ids = await withJobs(10, 2);
      const first = await h!.runtime.jobs.list({ limit: 4 });
      for (let i = 0; i < 5; i++)
        await h!.runtime.invoke(request('demo.echo', { late: i }), { face: 'test' });
      const rest: string[] = [];
      let cursor = first.nextCursor;
      while (cursor !== undefined) {
        const page = await h!.runtime.jobs.list({ limit: 4, cursor });
        rest.push(...page.jobs.map((j) => j.id));
        cursor = page.nextCursor;
      }
      expect([...first.jobs.map((j) => j.id), ...rest]).toEqual([...ids].reverse());
    });

    it('pages from the projection order index as jobs arrive, finish and retire after it was built (OBS-52, JL-11)', async () => {
      const ids = await withJobs(10, 5);
      // the first listing builds the index; everything after is appended to it or retired from it
      expect((await h!.runtime.jobs.list({ limit: 3 })).jobs.map((j) => j.id)).toEqual(
        ids.slice(-3).reverse(),
      );
      const slow = await h!.runtime.submit(request('demo.slow', {}), { face: 'test' });
      for (let i = 0; i < 1100; i++) {
        const verb = VERBS[i % VERBS.length] as string;
        const { job } = await h!.runtime.invoke(request(verb, { late: i }, `capability:${verb}`), {
          face: 'test',
        });
        ids.push(job!.id);
        if (i === 500) {
          // a listing mid-way: many retired ids to skip, then the compaction of the index
          const page = await h!.runtime.jobs.list({ limit: 4 });
          expect(page.jobs.map((j) => j.id)).toEqual(ids.slice(-4).reverse());
        }
      }
      expect(h!.runtime.views.jobs.state().size).toBe(6); // 5 finished + the slow one
      const newest = await h!.runtime.jobs.list({ limit: 6 });
      expect(newest.jobs.map((j) => j.id)).toEqual(ids.slice(-6).reverse());
      const failed = await allPages(h!, { states: ['FAILED'], limit: 50 });
      const boom = ids.filter((_, i) => (i < 10 ? i : i - 10) % VERBS.length === 3); // demo.boom
      expect(failed.jobs.map((j) => j.id)).toEqual([...boom].reverse());
      const unfinished = await h!.runtime.jobs.list({ states: ['SUBMITTED', 'WORKING'] });
      expect(unfinished.jobs.map((j) => j.id)).toEqual([slow.job.id]);
      const { jobs } = await allPages(h!, { limit: 200 });
      expect(jobs).toHaveLength(ids.length + 1);
      expect(jobs.filter((j) => j.id !== slow.job.id).map((j) => j.id)).toEqual([...ids].reverse());
    }, 120_000);

    it('filters by state, verb (exact and prefix) and since, in and beyond the retained jobs', async () => {
      const ids = await withJobs(16, 3);
      const all = await Promise.all(ids.map((id) => h!.runtime.jobs.get(id)));
      expect(new Set(all.map((j) => j.state)).size).toBeGreaterThan(1);
      const newest = [...all].reverse();
      const cases: [JobListQuery, (j: Job) => boolean][] = [
        [{ states: ['COMPLETED'] }, (j) => j.state === 'COMPLETED'],
        [{ states: ['FAILED', 'REJECTED'] }, (j) => j.state === 'FAILED' || j.state === 'REJECTED'],
        [{ verb: 'demo.other' }, (j) => j.verb === 'demo.other'],
        [{ verb: 'demo.*' }, (j) => j.verb.startsWith('demo.')],
        [
          { verb: 'misc.*', states: ['COMPLETED'] },
          (j) => j.verb.startsWith('misc.') && j.state === 'COMPLETED',
        ],
        [
          { since: all[9]!.timing.createdAt },
          (j) => Date.parse(j.timing.createdAt) >= Date.parse(all[9]!.timing.createdAt),
        ],
        [{ verb: 'nothing.here' }, () => false],
      ];
      for (const [query, keep] of cases) {
        const expected = newest.filter(keep).map((j) => j.id);
        const { jobs } = await allPages(h!, { ...query, limit: 2 });
        expect(
          jobs.map((j) => j.id),
          JSON.stringify(query),
        ).toEqual(expected);
      }
    });

    it('lists only the scoped tenant, and no-tenant jobs for the null scope', async () => {
      const ids = await withJobs(12, 2, ['acme', 'globex', undefined]);
      const all = await Promise.all(ids.map((id) => h!.runtime.jobs.get(id)));
      const newest = [...all].reverse();
      for (const tenant of ['acme', 'globex', null, 'nobody'] as const) {
        const { jobs } = await allPages(h!, { tenant, limit: 3 });
        expect(jobs.map((j) => j.id)).toEqual(
          newest.filter((j) => j.tenantId === (tenant ?? undefined)).map((j) => j.id),
        );
      }
      expect((await allPages(h!, { limit: 3 })).jobs).toHaveLength(12);
    });

    it('lists an unfinished job recorded before many finished ones, at its place', async () => {
      under = await backend.make();
      h = await startRuntime({ agents: agents(), retainFinishedJobs: 2 }, under.log);
      await h.runtime.invoke(request('demo.echo', { before: true }), { face: 'test' });
      const slow = await h.runtime.submit(request('demo.slow', {}), { face: 'test' });
      for (let i = 0; i < 6; i++) await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' });
      const working = await h.runtime.jobs.list({ states: ['SUBMITTED', 'WORKING'] });
      expect(working.jobs.map((j) => j.id)).toEqual([slow.job.id]);
      expect(working.nextCursor).toBeUndefined();
      const { jobs } = await allPages(h, { limit: 3 });
      expect(jobs).toHaveLength(8);
      expect(jobs[6]?.id).toBe(slow.job.id);
    });

    it('orders by the latest status event (progress does not move a job), or by submission with order=submitted', async () => {
      const release = gate();
      const started = gate();
      under = await backend.make();
      h = await startRuntime(
        {
          agents: [
            ...agents(),
            agent('waiter', {
              'demo.wait': async (_input: JsonValue, ctx) => {
                started.open();
                await release.promise;
                ctx.progress({ almost: true });
                return { waited: true };
              },
            }),
          ],
          retainFinishedJobs: 2,
        },
        under.log,
      );
      const waiting = await h.runtime.submit(request('demo.wait', {}), { face: 'test' });
      await started.promise;
      const later: string[] = [];
      for (let i = 0; i < 5; i++) {
        later.push((await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' })).job!.id);
      }
      const before = (await allPages(h, { limit: 2 })).jobs.map((j) => j.id);
      expect(before).toEqual([...later].reverse().concat(waiting.job.id)); // WORKING since before them
      release.open();
      const done = await h.runtime.jobs.wait(waiting.job.id);
      expect(done.state).toBe('COMPLETED');
      expect(done.timing.statusAt).toBe(done.timing.finishedAt);
      const byStatus = (await allPages(h, { limit: 2 })).jobs.map((j) => j.id);
      expect(byStatus).toEqual([waiting.job.id, ...[...later].reverse()]);
      const bySubmission = (await allPages(h, { limit: 2, order: 'submitted' })).jobs.map((j) => j.id);
      expect(bySubmission).toEqual([...[...later].reverse(), waiting.job.id]);
    });

    it('ends a page early when its log work is used up, and the next pages carry on (both orders)', async () => {
      const ids = await withJobs(12, 2);
      for (const order of ['status', 'submitted'] as const) {
        const { jobs, pages } = await allPages(h!, { limit: 4, order }, { examined: 2 });
        expect(
          jobs.map((j) => j.id),
          order,
        ).toEqual([...ids].reverse());
        expect(pages).toBeGreaterThan(4);
        const few = await allPages(h!, { limit: 3, order }, { loadedPerItem: 0 }); // ≤ 100 rebuilt a page
        expect(
          few.jobs.map((j) => j.id),
          order,
        ).toEqual([...ids].reverse());
      }
    });
  });
}

describe('Runtime.jobs.list queries', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses bad queries and cursors with INVALID_PARAMS naming the parameter', async () => {
    h = await startRuntime({ agents: agents() });
    for (let i = 0; i < 3; i++) await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' });
    const page = await h.runtime.jobs.list({ limit: 1, verb: 'demo.*' });
    const bad: [JobListQuery, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 501 }, 'limit'],
      [{ limit: 1.5 }, 'limit'],
      [{ states: [] }, 'state'],
      [{ states: ['DONE' as never] }, 'state'],
      [{ verb: 'Demo.Echo' }, 'verb'],
      [{ verb: 'demo.*.x' }, 'verb'],
      [{ since: 'yesterday' }, 'since'],
      [{ cursor: 'garbage' }, 'cursor'],
      [{ cursor: 'j1.bm90LWpzb24' }, 'cursor'],
      [{ cursor: page.nextCursor! }, 'cursor'], // issued for verb demo.*
      [{ tenant: '' }, 'tenant'],
      [{ order: 'recent' as never }, 'order'],
      [{ order: 'submitted', cursor: page.nextCursor! }, 'cursor'], // a status-order cursor
    ];
    for (const [query, parameter] of bad) {
      await expect(h.runtime.jobs.list(query), JSON.stringify(query)).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        details: { parameter },
      });
    }
    const next = await h.runtime.jobs.list({ limit: 1, verb: 'demo.*', cursor: page.nextCursor! });
    expect(next.jobs).toHaveLength(1);
  });

  // Examined log events per page so that page 1 runs out of work at the first old job: the
  // submit order examines one job.submitted per job, the status order the three status events
  // of each of the 3 recent jobs the projection no longer keeps (a sync job writes all three).
  it.each([
    ['submitted', 4],
    ['status', 9],
  ] as const)(
    'stops walking the log at jobs written well before since (%s order)',
    async (order, examined) => {
      let offset = -3 * 3_600_000; // the log's clock: 3 h behind for the first jobs
      const { memoryEventLog } = await import('../../src/store/index.js');
      h = await startRuntime(
        { agents: agents(), retainFinishedJobs: 2 },
        memoryEventLog({ now: () => Date.now() + offset }),
      );
      for (let i = 0; i < 5; i++) await h.runtime.invoke(request('demo.echo', { old: i }), { face: 'test' });
      offset = 0;
      const recent: string[] = [];
      for (let i = 0; i < 5; i++) {
        recent.push((await h.runtime.invoke(request('demo.echo', { i }), { face: 'test' })).job!.id);
      }
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const { jobs, pages } = await allPages(h, { since, order }, { examined });
      expect(jobs.map((j) => j.id)).toEqual(recent.reverse());
      // Page 1 runs out of work at the first old job; page 2 stops there instead of walking on.
      expect(pages).toBe(2);
    },
  );

  it('refuses to list before start', async () => {
    const { createRuntime } = await import('../../src/runtime/index.js');
    const { memoryEventLog } = await import('../../src/store/index.js');
    const log = memoryEventLog();
    await log.start();
    const runtime = createRuntime({ log });
    await expect(runtime.jobs.list()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await log.stop();
  });

  it('scopes callers to tenants exactly as visibleToTenant shows single jobs', () => {
    const principals: (Principal | undefined)[] = [
      undefined,
      { id: 'dev', kind: 'anonymous', scopes: [] },
      { id: 'peer', kind: 'peer', scopes: [] },
      { id: 'alice', kind: 'api-key', scopes: [], tenantId: 'acme' },
      { id: 'ops', kind: 'api-key', scopes: [] },
    ] as Principal[];
    for (const principal of principals) {
      const scope = listTenantOf(principal);
      for (const tenantId of ['acme', 'globex', undefined]) {
        const listed = scope === undefined || (scope ?? undefined) === tenantId;
        expect(listed, `${principal?.id}/${tenantId}`).toBe(visibleToTenant(tenantId, principal));
      }
    }
  });
});
