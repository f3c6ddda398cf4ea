/**
 * `GET /v1/jobs/{id}/events`: a job's events as Server-Sent Events (D5).
 *
 * Each event is named `job_queued`, `job_started`, `job_progress`, `job_succeeded`,
 * `job_failed` or `job_cancelled`, carries `id:` = its log `seq`, and `data:` = one line of
 * JSON (see {@link sseEventData}). `Last-Event-ID` (header, or the `last_event_id` query
 * parameter for clients that cannot set headers) resumes after that `seq`: the stored events
 * come first, then new ones as they are committed, without loss or repetition. The stream
 * ends after the job's final event; an idle stream gets a `: heartbeat` comment every
 * `heartbeatMs`. A client that disconnects stops the log subscription.
 */
import { traceResponseHeaders } from '../trace-headers.js';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { EsrpJobStatus } from '../../core/records/job.js';
import type { EsrpJobEventName } from '../../runtime/events.js';
import type { JobEvent } from '../../runtime/jobs/job-events.js';
import { errorDataOf, esrpErrorOf, esrpOutputsOf } from './esrp-answer.js';
import { ESRP_ROUTE, visibleJob } from './esrp-routes.js';
import { credentialStillValid } from '../capability-gate.js';
import { SERVER_CLOSING, type FaceScope } from './face-scope.js';

/** The ESRP job state after each SSE event. */
const STATE_AFTER: Readonly<Record<EsrpJobEventName, EsrpJobStatus>> = {
  job_queued: 'queued',
  job_started: 'started',
  job_progress: 'started',
  job_succeeded: 'succeeded',
  job_failed: 'failed',
  job_cancelled: 'cancelled',
};

/**
 * The `data:` of one SSE event: `{job_id, seq, type, state, time}` plus, by event —
 * `job_queued`: `verb`; `job_started`: `attempt`; `job_progress`: `progress`;
 * `job_succeeded`: ESRP `outputs` and `artifacts`; `job_failed` / `job_cancelled`: the ESRP
 * `error`.
 */
export function sseEventData(event: JobEvent): JsonObject {
  const out: JsonObject = {
    job_id: event.jobId,
    seq: event.seq,
    type: event.type,
    state: STATE_AFTER[event.name],
    time: event.time,
  };
  const data = isJsonObject(event.data) ? event.data : {};
  switch (event.name) {
    case 'job_queued':
      if (typeof data['verb'] === 'string') out['verb'] = data['verb'];
      break;
    case 'job_started':
      if (typeof data['attempt'] === 'number') out['attempt'] = data['attempt'];
      break;
    case 'job_progress':
      out['progress'] = data['progress'] ?? null;
      break;
    case 'job_succeeded': {
      const { outputs, artifacts } = esrpOutputsOf(data['outputs']);
      out['outputs'] = outputs;
      out['artifacts'] = artifacts;
      break;
    }
    case 'job_failed':
    case 'job_cancelled':
      out['error'] = esrpErrorOf(
        data['error'] === undefined
          ? { code: 'CANCELLED', message: 'the job was cancelled', retryable: false }
          : errorDataOf(data['error']),
      );
      break;
  }
  return out;
}

/** One SSE message for `event`. */
export function formatSseEvent(event: JobEvent): string {
  return `event: ${event.name}\nid: ${event.seq}\ndata: ${JSON.stringify(sseEventData(event))}\n\n`;
}

/**
 * The `seq` to resume after, from `Last-Event-ID` (or `?last_event_id=`); 0 when absent.
 *
 * @throws PlexusError `INVALID_PARAMS` when it is not a whole number ≥ 0.
 */
export function lastEventIdOf(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  const query = (request.query as { last_event_id?: unknown } | undefined)?.last_event_id;
  const raw = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
  if (raw === undefined || raw.trim() === '') return 0;
  const text = raw.trim();
  const seq = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `Last-Event-ID must be the id (a whole number) of an event this stream sent, got ${JSON.stringify(text.slice(0, 40))}`,
      { details: { pointer: '/Last-Event-ID' } },
    );
  }
  return seq;
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done);
  });
}

/** Registers `GET /v1/jobs/:id/events` on `app`. */
export function registerEsrpEvents(app: FastifyInstance, scope: FaceScope): void {
  const { runtime } = scope.components;

  app.get('/v1/jobs/:id/events', ESRP_ROUTE, async (request, reply) => {
    const { id } = request.params as { id: string };
    const after = lastEventIdOf(request);
    // NOT_FOUND (also for another tenant's job) before any byte of the stream is sent
    await visibleJob(scope, request, id);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...traceResponseHeaders(request.raw), // a hijacked reply skips the onSend hook
    });
    res.write(': job events\n\n');
    const controller = scope.openStream();
    const stop = (): void => {
      controller.abort();
    };
    res.on('close', stop);
    // A UCAN credential is checked again before each event and each heartbeat: a revoked or
    // expired link ends the stream (a comment says why; reconnect with a valid credential).
    const gate = scope.components.capabilities;
    const container = scope.capabilityOf(request);
    const revoked =
      scope.principalOf(request)?.kind !== 'ucan' || gate === undefined || container === undefined
        ? (): boolean => false
        : (): boolean => !credentialStillValid(gate, container);
    const REVOKED = ': the credential expired or was revoked; reconnect with a valid one\n\n';
    const heartbeat = setInterval(() => {
      if (res.writableEnded) return;
      if (revoked()) {
        res.write(REVOKED);
        controller.abort();
      } else res.write(': heartbeat\n\n');
    }, scope.settings.heartbeatMs);
    heartbeat.unref();
    let last = after;
    try {
      for await (const event of runtime.jobs.watch(id, { afterSeq: after, signal: controller.signal })) {
        if (revoked()) {
          res.write(REVOKED);
          break;
        }
        if (event.seq <= last) continue;
        last = event.seq;
        if (!res.write(formatSseEvent(event))) await drained(res, controller.signal);
        if (event.terminal || controller.signal.aborted) break;
      }
    } catch (error) {
      if (!controller.signal.aborted) {
        scope.logger.warn(
          { job: id, err: error instanceof Error ? error.message : String(error) },
          'SSE stream ended by an error',
        );
      }
    } finally {
      clearInterval(heartbeat);
      res.off('close', stop);
      const closing = controller.signal.reason === SERVER_CLOSING;
      controller.abort();
      // When the server closes, the connection must not linger as an idle keep-alive one.
      const socket = res.socket;
      if (!res.writableEnded) res.end();
      if (closing) socket?.end();
    }
  });
}
