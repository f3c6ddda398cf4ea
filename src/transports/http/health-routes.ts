/**
 * Health probes, served without authentication:
 * - `GET /healthz` → 200 `{status: 'ok'}` while the process serves HTTP;
 * - `GET /readyz` → 200 `{status: 'ready'}` when the event log is open, the runtime is
 *   started, the node names no reason to refuse (`HttpFacesInit.unreadyReason`, e.g. its
 *   event log cannot be written) and its own check (`HttpFacesInit.ready`) passes, else 503
 *   `{status: 'unavailable', reason}`.
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The route config of the health routes. */
export const HEALTH_ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'health' } };

/** A job id no job has: `jobs.get` of it tells a started runtime (NOT_FOUND) from a stopped one. */
const PROBE_JOB_ID = 'plexus-readiness-probe';

/** Why the node is not ready, or `undefined` when it is. */
export async function notReadyReason(scope: FaceScope): Promise<string | undefined> {
  const { log, runtime } = scope.components;
  try {
    await log.head();
  } catch {
    return 'the event log is not open';
  }
  try {
    await runtime.jobs.get(PROBE_JOB_ID);
  } catch (error) {
    if (!(error instanceof PlexusError) || error.code !== 'NOT_FOUND') return 'the runtime is not started';
  }
  const unwritable = scope.settings.unreadyReason?.();
  if (unwritable !== undefined) return unwritable;
  const ready = scope.settings.ready;
  if (ready !== undefined) {
    try {
      if (!(await ready())) return 'the node is starting or draining';
    } catch {
      return 'the node readiness check failed';
    }
  }
  return undefined;
}

/** Registers `GET /healthz` and `GET /readyz` on `app`. */
export function registerHealthRoutes(app: FastifyInstance, scope: FaceScope): void {
  app.get('/healthz', HEALTH_ROUTE, (_request, reply) => reply.send({ status: 'ok' }));

  app.get('/readyz', HEALTH_ROUTE, async (_request, reply) => {
    const reason = await notReadyReason(scope);
    if (reason === undefined) return { status: 'ready' };
    return reply.code(503).send({ status: 'unavailable', reason });
  });
}
