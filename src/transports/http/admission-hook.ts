/**
 * Load shedding on the node's HTTP server: one `onRequest` hook, ahead of authentication,
 * body parsing and every route, takes an admission slot for each request (see
 * `../admission.ts`) and gives it back when the response closes. A request beyond the bounds
 * is answered 429 with `Retry-After` in its face's own form — an ESRP response on `/v1/*`,
 * an Emergence ERROR (429) on `/emergence`, the peer refusal body on `/v1/peer/invoke` — and
 * nothing of it runs. Not counted: the health probes (never shed), job event streams
 * (long-lived subscriptions, not work) and the metrics scrape.
 *
 * An asynchronous submission keeps the node's share of its slot until its job ends
 * ({@link keepSlotUntil}), so `POST /v1/jobs` cannot start unbounded work.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { PlexusError } from '../../core/errors.js';
import type { Admission, AdmissionSlot } from '../admission.js';
import { faceOfRequest } from './faces.js';
import { sendErrorForUrl } from './framework-errors.js';

/**
 * Routes whose requests take no slot: the health probes, job event streams (SSE: a job's, and
 * the dashboard's feed of every job, OBS-43) and the metrics scrape (an overloaded node must
 * still be seen: docs/decisions/observability.md OBS-5).
 */
const UNCOUNTED_ROUTES: ReadonlySet<string> = new Set([
  '/healthz',
  '/readyz',
  '/v1/jobs/:id/events',
  '/metrics',
  '/ui/api/jobs/events',
]);

interface HeldSlot {
  readonly slot: AdmissionSlot;
  /** True once the node's share outlives the response (an async job). */
  kept: boolean;
}

const held = new WeakMap<IncomingMessage, HeldSlot>();

/**
 * Keeps the node's share of `request`'s slot until `done` settles (the connection's share is
 * still given back with the response). Nothing when the request took no slot.
 */
export function keepSlotUntil(request: FastifyRequest, done: Promise<unknown>): void {
  const entry = held.get(request.raw);
  if (entry === undefined || entry.kept) return;
  entry.kept = true;
  const release = (): void => {
    entry.slot.release();
  };
  done.then(release, release);
}

/**
 * Adds the admission hook to `app`. Call it before the faces are registered: a root hook
 * covers the routes of every face registered after it.
 */
export function registerAdmission(app: FastifyInstance, gate: Admission, nodeId: string): void {
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && UNCOUNTED_ROUTES.has(route)) {
      done();
      return;
    }
    let slot: AdmissionSlot;
    try {
      slot = gate.admit(request.raw.socket);
    } catch (error) {
      if (!(error instanceof PlexusError)) throw error;
      sendErrorForUrl(request, reply, error, nodeId, faceOfRequest(request));
      return;
    }
    const entry: HeldSlot = { slot, kept: false };
    held.set(request.raw, entry);
    reply.raw.once('close', () => {
      if (entry.kept) slot.releaseConnection();
      else slot.release();
    });
    done();
  });
}
