/**
 * The dashboard's job routes (issue 16 item 4): compact job rows for the live list, one job's
 * detail, and the live feed of every job event. The caller sees only its own tenant's jobs,
 * exactly as on `GET /v1/jobs` (docs/decisions/job-listing.md).
 *
 * - `GET /ui/api/jobs?state=&verb=&since=&limit=&cursor=` → `{jobs: UiJobRow[], next_cursor}`
 *   (the query of `GET /v1/jobs`, the same errors).
 * - `GET /ui/api/jobs/{id}` → `{job: UiJobRow, esrp, input, events}`: the ESRP job form (its
 *   outputs, its error with the recovery hints), the request's input, and the job's events in
 *   log order.
 * - `GET /ui/api/jobs/events` → SSE: one `job` event (`id:` = log seq, `data:` = the job's row
 *   after it) per job event committed after the request (or after `Last-Event-ID`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { JOB_STATE_TO_ESRP, type Job } from '../../core/records/job.js';
import { isTenantBound, visibleToTenant } from '../../runtime/pipeline/tenancy.js';
import { listTenantOf } from '../../runtime/jobs/job-list-query.js';
import { toJobEvent, type JobEvent } from '../../runtime/jobs/job-events.js';
import { esrpJobAnswer } from '../http/esrp-answer.js';
import { lastEventIdOf } from '../http/esrp-events.js';
import { jobListQueryOf } from '../http/esrp-job-list.js';
import { visibleJob } from '../http/esrp-routes.js';
import { SERVER_CLOSING, type FaceScope } from '../http/face-scope.js';
import type { FaceRouteConfig } from '../http/faces.js';

/** The route config: failures answer in the plain `{error: {code, message}}` form. */
const ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

/** The most job ids whose tenant verdict the live feed remembers per stream. */
const VERDICT_CACHE = 10_000;

/** One job as the dashboard lists it. */
export interface UiJobRow extends JsonObject {
  readonly id: string;
  readonly verb: string;
  /** The ESRP status: queued, started, succeeded, failed, cancelled. */
  readonly state: string;
  readonly tenant: string | null;
  readonly created: string;
  readonly started: string | null;
  readonly finished: string | null;
  /** Finished − started (or − created when it never started), ms; null while running. */
  readonly duration_ms: number | null;
  readonly attempts: number;
  /** The error's Plexus code, for failed and cancelled jobs. */
  readonly error: string | null;
}

/** The dashboard row of `job`. */
export function uiJobRow(job: Job): UiJobRow {
  const { createdAt, startedAt, finishedAt } = job.timing;
  const from = Date.parse(startedAt ?? createdAt);
  const to = finishedAt === undefined ? NaN : Date.parse(finishedAt);
  return {
    id: job.id,
    verb: job.verb,
    state: JOB_STATE_TO_ESRP[job.state],
    tenant: job.tenantId ?? null,
    created: createdAt,
    started: startedAt ?? null,
    finished: finishedAt ?? null,
    duration_ms: Number.isFinite(to) && Number.isFinite(from) ? Math.max(0, to - from) : null,
    attempts: job.attempts,
    error: job.error?.code ?? null,
  };
}

/** The input of a job's `job.submitted` event data (its request envelope's `data`), else null. */
function inputOf(events: readonly JobEvent[]): JsonValue {
  const submitted = events.find((e) => e.type === 'job.submitted');
  const data = submitted?.data;
  const request = isJsonObject(data) ? data['request'] : undefined;
  return isJsonObject(request) ? (request['data'] ?? null) : null;
}

/**
 * What the detail shows of one event's data: the submitted event without its request envelope
 * (which may carry a credential; its input is shown on its own), the others as recorded.
 */
function shownData(event: JobEvent): JsonValue {
  if (event.type !== 'job.submitted' || !isJsonObject(event.data)) return event.data;
  const shown: JsonObject = { ...event.data };
  delete shown['request'];
  delete shown['key'];
  return shown;
}

/** The `{id}` of a `/ui/api/jobs/{id}…` route. @throws PlexusError `INVALID_PARAMS` when it names none. */
export function jobIdOf(request: FastifyRequest): string {
  const { id } = request.params as { id?: unknown };
  if (typeof id !== 'string' || id === '' || id.length > 200) {
    throw new PlexusError('INVALID_PARAMS', 'the URL names no job id: use /ui/api/jobs/{job_id}');
  }
  return id;
}

/** Registers the dashboard's job routes on `app`. */
export function registerUiJobRoutes(app: FastifyInstance, scope: FaceScope): void {
  const { runtime, log } = scope.components;

  app.get('/ui/api/jobs', ROUTE, async (request, reply) => {
    const query = jobListQueryOf(request.query);
    const tenant = listTenantOf(scope.principalOf(request));
    const page = await runtime.jobs.list(tenant === undefined ? query : { ...query, tenant });
    return reply.send({ jobs: page.jobs.map(uiJobRow), next_cursor: page.nextCursor ?? null });
  });

  app.get('/ui/api/jobs/events', ROUTE, async (request, reply) => {
    const resume = lastEventIdOf(request);
    const after = resume > 0 ? resume : (await log.head()).seq;
    const principal = scope.principalOf(request);
    const bound = isTenantBound(principal);
    const verdicts = new Map<string, boolean>();
    const visible = async (jobId: string): Promise<Job | undefined> => {
      const job = await runtime.jobs.get(jobId).catch(() => undefined);
      if (job === undefined) return undefined;
      if (!bound) return job;
      const known = verdicts.get(jobId);
      const ok = known ?? visibleToTenant(job.tenantId, principal);
      if (known === undefined) {
        if (verdicts.size >= VERDICT_CACHE) verdicts.delete(verdicts.keys().next().value as string);
        verdicts.set(jobId, ok);
      }
      return ok ? job : undefined;
    };
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`: job feed after seq ${after}\n\n`);
    const controller = scope.openStream();
    const stop = (): void => {
      controller.abort();
    };
    res.on('close', stop);
    const heartbeat = setInterval(() => {
      if (!res.writableEnded) res.write(': heartbeat\n\n');
    }, scope.settings.heartbeatMs);
    heartbeat.unref();
    try {
      const events = log.subscribe(after, { typePrefix: 'job.' }, { signal: controller.signal });
      for await (const event of events) {
        const jobEvent = toJobEvent(event);
        if (jobEvent === undefined) continue;
        const job = await visible(jobEvent.jobId);
        if (job === undefined || controller.signal.aborted) continue;
        const row = uiJobRow(job);
        res.write(
          `event: job\nid: ${jobEvent.seq}\ndata: ${JSON.stringify({ ...row, event: jobEvent.name })}\n\n`,
        );
      }
    } catch (error) {
      if (!controller.signal.aborted) {
        scope.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'dashboard job feed ended by an error',
        );
      }
    } finally {
      clearInterval(heartbeat);
      res.off('close', stop);
      const closing = controller.signal.reason === SERVER_CLOSING;
      controller.abort();
      const socket = res.socket;
      if (!res.writableEnded) res.end();
      if (closing) socket?.end();
    }
  });

  app.get('/ui/api/jobs/:id', ROUTE, async (request, reply) => {
    const job = await visibleJob(scope, request, jobIdOf(request));
    const events = await runtime.jobs.events(job.id, { limit: 1000 });
    return reply.send({
      job: uiJobRow(job),
      esrp: esrpJobAnswer(job, runtime.agents.registry).body,
      input: inputOf(events),
      events: events.map((e) => ({
        seq: e.seq,
        type: e.type,
        name: e.name,
        time: e.time,
        data: shownData(e),
      })),
    });
  });
}
