/**
 * The dashboard's trace route (issue 16 item 4, "the trace waterfall of its spans"): the spans
 * of the trace a job belongs to, rebuilt from the log exactly as `plexus trace` does
 * (src/observability/trace-spans.ts), so the job page draws the call tree it sits in.
 *
 * - `GET /ui/api/jobs/{id}/trace` → `{trace: TraceView | null, note?}`: `null` when the job's
 *   request carried no W3C trace, or (with `note`) when the trace is too large to draw.
 *
 * The job itself is checked like its detail (another tenant's is a 404), and a tenant-bound
 * caller sees only its own tenant's jobs and events of the trace: a call that crossed tenants
 * shows the caller's part only.
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { Event } from '../../core/records/event.js';
import { buildTrace } from '../../observability/trace-spans.js';
import { visibleToTenant } from '../../runtime/pipeline/tenancy.js';
import { readTraceEvents } from '../../store/trace-events.js';
import { parseTraceparent } from '../../wire/agentese/traceparent.js';
import { visibleJob } from '../http/esrp-routes.js';
import type { FaceScope } from '../http/face-scope.js';
import type { FaceRouteConfig } from '../http/faces.js';
import { jobIdOf } from './ui-jobs.js';

/** The route config: failures answer in the plain `{error: {code, message}}` form. */
const ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

/** The most jobs of one trace the dashboard draws (a page, not a report: `plexus trace` has no such cap). */
export const UI_TRACE_MAX_JOBS = 500;

/** Registers `GET /ui/api/jobs/{id}/trace` on `app`. */
export function registerUiTraceRoute(app: FastifyInstance, scope: FaceScope): void {
  const { log } = scope.components;
  app.get('/ui/api/jobs/:id/trace', ROUTE, async (request, reply) => {
    const job = await visibleJob(scope, request, jobIdOf(request));
    const [submitted] = await log.read({ causation: job.id, type: 'job.submitted', limit: 1 });
    const traceId = submitted?.trace === undefined ? undefined : parseTraceparent(submitted.trace)?.traceId;
    if (traceId === undefined) return reply.send({ trace: null });
    let events: { jobEvents: Event[]; otherEvents: Event[] };
    try {
      events = await readTraceEvents(log, traceId, { maxJobs: UI_TRACE_MAX_JOBS });
    } catch (error) {
      if (error instanceof PlexusError && error.code === 'INVALID_PARAMS') {
        return reply.send({ trace: null, note: `${error.message}; draw it with plexus trace ${traceId}` });
      }
      throw error;
    }
    const principal = scope.principalOf(request);
    const mine = (e: Event): boolean => visibleToTenant(e.tenant, principal);
    const view = buildTrace(traceId, events.jobEvents.filter(mine), events.otherEvents.filter(mine));
    return reply.send({ trace: view ?? null });
  });
}
