/**
 * Delivers A2A push notifications (issue 14 item 2, docs/decisions/a2a.md A2A-12): the face
 * follows the log's job events from the moment it starts; each event of a task that has push
 * configs becomes the same `StreamResponse` updates a stream would carry, POSTed as JSON to
 * every config's URL with its token (`X-A2A-Notification-Token`) and authentication
 * (`Authorization`). At least once: an attempt that fails (network, timeout, a status other
 * than 2xx) is retried with exponential back-off, up to `attempts` times; one task's
 * notifications go out in order.
 */
import { StreamResponse as StreamResponseCodec, type StreamResponse } from '@a2a-js/sdk';
import type { Job, JobState } from '../../core/records/job.js';
import type { Logger } from '../../core/logger.js';
import type { Runtime } from '../../runtime/index.js';
import { toJobEvent } from '../../runtime/jobs/job-events.js';
import type { EventLog } from '../../store/index.js';
import type { PushConfig, PushConfigs } from './push-configs.js';
import { jobStateOfEvent, taskUpdates } from './task-updates.js';

/** The header carrying a config's token. */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** Options of {@link followPushNotifications}. */
export interface PushDeliveryInit {
  readonly runtime: Runtime;
  readonly log: EventLog;
  readonly configs: PushConfigs;
  readonly logger: Logger;
  /** Attempts per notification. @default 5 */
  readonly attempts?: number;
  /** First back-off, ms (doubling). @default 250 */
  readonly backoffMs?: number;
  /** Per-attempt timeout, ms. @default 5000 */
  readonly timeoutMs?: number;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function deliver(
  init: PushDeliveryInit,
  config: PushConfig,
  update: StreamResponse,
  signal: AbortSignal,
): Promise<void> {
  const attempts = init.attempts ?? 5;
  const body = JSON.stringify(StreamResponseCodec.toJSON(update));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.token !== undefined) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  if (config.authentication !== undefined) {
    headers['authorization'] = `${config.authentication.scheme} ${config.authentication.credentials}`;
  }
  for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
    try {
      const res = await fetch(config.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'error', // a redirect could leave the allowed host
        signal: AbortSignal.any([signal, AbortSignal.timeout(init.timeoutMs ?? 5000)]),
      });
      await res.body?.cancel();
      if (res.ok) return;
      init.logger.warn(
        { task: config.taskId, url: config.url, status: res.status, attempt },
        'a2a: push refused',
      );
    } catch (error) {
      init.logger.warn(
        { task: config.taskId, url: config.url, error: String(error), attempt },
        'a2a: push failed',
      );
    }
    if (attempt < attempts) await wait((init.backoffMs ?? 250) * 2 ** (attempt - 1), signal);
  }
}

/** Follows the log until `signal` aborts, delivering the notifications of tasks with configs. */
export async function followPushNotifications(init: PushDeliveryInit, signal: AbortSignal): Promise<void> {
  const { runtime, log, configs } = init;
  const states = new Map<string, { job: Job; state: JobState }>();
  const queues = new Map<string, Promise<void>>();
  try {
    const { seq } = await log.head({ signal });
    for await (const event of log.subscribe(seq, { typePrefix: 'job.' }, { signal })) {
      if (configs.empty) continue;
      const jobEvent = toJobEvent(event);
      if (jobEvent === undefined) continue;
      const targets = configs.of(jobEvent.jobId);
      if (targets.length === 0) continue;
      let known = states.get(jobEvent.jobId);
      if (known === undefined) {
        const job = await runtime.jobs.get(jobEvent.jobId, { signal });
        known = { job, state: jobStateOfEvent(jobEvent) === 'WORKING' ? 'SUBMITTED' : job.state };
      }
      const next = await taskUpdates(runtime, known.job, jobEvent, known.state, signal);
      if (jobEvent.terminal) states.delete(jobEvent.jobId);
      else states.set(jobEvent.jobId, { job: next.job, state: next.state });
      if (next.updates.length === 0) continue;
      const previous = queues.get(jobEvent.jobId) ?? Promise.resolve();
      const queued = previous.then(async () => {
        for (const update of next.updates) {
          await Promise.all(targets.map((config) => deliver(init, config, update, signal)));
        }
      });
      queues.set(jobEvent.jobId, queued);
      void queued.finally(() => {
        if (queues.get(jobEvent.jobId) === queued) queues.delete(jobEvent.jobId);
      });
    }
  } catch (error) {
    if (!signal.aborted) init.logger.warn({ error: String(error) }, 'a2a: push notifications stopped');
  }
}
