/**
 * The status order of the job listing (docs/decisions/job-listing.md JL-11…JL-13), as a
 * property over job event histories written straight into the log (memory and SQLite): pages of
 * one listing never repeat a job while jobs keep changing, and once the log is quiet a listing
 * shows every job exactly once, by its latest status event, newest first — whatever the page
 * size, the projection's retention and the bounds on a page's log work.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canTransition, type JobState } from '../../src/core/records/job.js';
import { listJobs, type JobListingLimits } from '../../src/runtime/jobs/job-listing.js';
import type { JobListQuery } from '../../src/runtime/jobs/job-list-query.js';
import { jobsProjectionWith } from '../../src/runtime/jobs/jobs-projection.js';
import { openEventLog, projectionView } from '../../src/store/index.js';
import { LOG_BACKENDS } from './helpers.js';

/** The job events an operation may write; the model decides which ones change the job's state. */
const KINDS = [
  'job.started',
  'job.progress',
  'job.retried',
  'job.input_required',
  'job.input_provided',
  'job.completed',
  'job.failed',
  'job.canceled',
  'job.rejected',
] as const;
type Kind = (typeof KINDS)[number];

/** The state each status event moves a job to (progress and retries move none). */
const TO: Partial<Record<Kind, JobState>> = {
  'job.started': 'WORKING',
  'job.input_required': 'INPUT_REQUIRED',
  'job.input_provided': 'WORKING',
  'job.completed': 'COMPLETED',
  'job.failed': 'FAILED',
  'job.canceled': 'CANCELED',
  'job.rejected': 'REJECTED',
};

type Op =
  | { readonly op: 'new'; readonly tenant: boolean }
  | { readonly op: 'event'; readonly job: number; readonly kind: Kind }
  | { readonly op: 'page' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('new' as const), tenant: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('event' as const),
      job: fc.nat({ max: 1000 }),
      kind: fc.constantFrom(...KINDS),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('page' as const) }) },
);

const caseArb = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 60 }),
  retain: fc.integer({ min: 1, max: 4 }),
  limit: fc.integer({ min: 1, max: 4 }),
  examined: fc.integer({ min: 1, max: 30 }),
  loadedPerItem: fc.integer({ min: 1, max: 3 }),
});

/** What the test expects of one job: its state and the `seq` of its latest status event. */
interface ModelJob {
  readonly id: string;
  readonly tenant: boolean;
  state: JobState;
  statusSeq: number;
}

function eventData(kind: Kind, id: string): Record<string, unknown> {
  switch (kind) {
    case 'job.input_required':
      return { id, prompt: 'more?' };
    case 'job.input_provided':
      return { id, input: { more: true } };
    case 'job.completed':
      return { id, outputs: { ok: true } };
    case 'job.failed':
    case 'job.canceled':
    case 'job.rejected':
      return { id, error: { code: 'INTERNAL', message: kind } };
    case 'job.started':
      return { id, route: 'local', agents: ['echo'] };
    default:
      return { id };
  }
}

for (const backend of LOG_BACKENDS) {
  describe(`the job listing's status order (${backend.name} log)`, () => {
    it('never repeats a job across pages while jobs change, and lists a quiet log once, in order', async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async ({ ops, retain, limit, examined, loadedPerItem }) => {
          const under = await backend.make();
          const log = openEventLog(under.log);
          await log.start();
          const jobs = projectionView({
            log,
            projection: jobsProjectionWith({ retainFinishedJobs: retain }),
          });
          await jobs.start();
          const limits: JobListingLimits = { examined, loadedPerItem };
          const list = (query: JobListQuery) => listJobs({ log: under.log, jobs }, query, { limits });
          try {
            const model: ModelJob[] = [];
            let seen = new Set<string>();
            let cursor: string | undefined;
            for (const o of ops) {
              if (o.op === 'new') {
                const id = `job-${model.length}`;
                const event = await log.append({
                  type: 'job.submitted',
                  causation: id,
                  ...(o.tenant ? { tenant: 'acme' } : {}),
                  data: {
                    id,
                    verb: 'demo.echo',
                    caller: 'test',
                    payloadHash: 'a'.repeat(64),
                    key: `|${id}`,
                    correlationId: id,
                    mode: 'async',
                    to: 'capability:demo.echo',
                    timeoutMs: 60_000,
                    deadline: '2099-01-01T00:00:00.000Z',
                    windowMs: 60_000,
                    face: 'test',
                    ...(o.tenant ? { tenantId: 'acme' } : {}),
                  },
                });
                model.push({ id, tenant: o.tenant, state: 'SUBMITTED', statusSeq: event.seq });
              } else if (o.op === 'event') {
                const job = model[o.job % Math.max(1, model.length)];
                if (job === undefined) continue;
                const event = await log.append({
                  type: o.kind,
                  causation: job.id,
                  ...(job.tenant ? { tenant: 'acme' } : {}), // every job event carries its tenant
                  data: eventData(o.kind, job.id),
                });
                const to = TO[o.kind];
                const applies =
                  to !== undefined &&
                  canTransition(job.state, to) &&
                  (o.kind !== 'job.input_provided' || job.state === 'INPUT_REQUIRED');
                if (applies) {
                  job.state = to;
                  job.statusSeq = event.seq;
                }
              } else {
                // one more page of the listing under way (a new listing once it has ended)
                const page = await list({ limit, ...(cursor === undefined ? {} : { cursor }) });
                for (const listed of page.jobs) {
                  expect(seen.has(listed.id), `${listed.id} listed twice`).toBe(false);
                  seen.add(listed.id);
                }
                cursor = page.nextCursor;
                if (cursor === undefined) seen = new Set();
              }
            }
            // the log is quiet: every job once, by its latest status event, newest first
            const expected = [...model].sort((a, b) => b.statusSeq - a.statusSeq);
            const listAll = async (query: JobListQuery) => {
              const out: { id: string; state: JobState }[] = [];
              let next: string | undefined;
              for (let pages = 0; ; pages++) {
                expect(pages).toBeLessThan(1000);
                const page = await list({ ...query, limit, ...(next === undefined ? {} : { cursor: next }) });
                out.push(...page.jobs.map((j) => ({ id: j.id, state: j.state })));
                next = page.nextCursor;
                if (next === undefined) return out;
              }
            };
            const shown = (jobs: readonly ModelJob[]) => jobs.map((j) => ({ id: j.id, state: j.state }));
            expect(await listAll({})).toEqual(shown(expected));
            // one tenant's listing, and a state filter: the same order, filtered
            expect(await listAll({ tenant: 'acme' })).toEqual(shown(expected.filter((j) => j.tenant)));
            expect(await listAll({ states: ['WORKING', 'COMPLETED'] })).toEqual(
              shown(expected.filter((j) => j.state === 'WORKING' || j.state === 'COMPLETED')),
            );
          } finally {
            await jobs.stop();
            await log.stop();
            await under.cleanup();
          }
        }),
        {
          numRuns: backend.name === 'memory' ? 100 : 15,
          examples: [
            [
              {
                // a retried job does not move: B's start stays above A's (JL-11)
                ops: [
                  { op: 'new', tenant: false },
                  { op: 'new', tenant: false },
                  { op: 'event', job: 0, kind: 'job.started' },
                  { op: 'event', job: 1, kind: 'job.started' },
                  { op: 'event', job: 0, kind: 'job.retried' },
                  { op: 'event', job: 1, kind: 'job.progress' },
                ],
                retain: 1,
                limit: 1,
                examined: 5,
                loadedPerItem: 1,
              },
            ],
          ],
        },
      );
    }, 120_000);
  });
}
