/**
 * The `queue-for-sync` fallback step (seed 002 §6.3, §9.3): the request is submitted again as
 * an async job of this node (face `internal`, idempotency key `queue-for-sync:<request id>`,
 * extension `_x_plexus_sync`, target = where it was meant to go, timeout `maxWaitMs`), and the
 * caller gets that job's id at once. When the job runs, the router hands it to `deliver`:
 * forwarded without fallbacks, waiting between delivery failures (from `retryMs`, doubling up to
 * `maxRetryMs`) until the target answers, `maxAttempts` is spent or the job's deadline ends it —
 * the loop always stops by itself. Events: `routing.sync.queued`, `routing.sync.delivered`,
 * `routing.sync.abandoned`.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { RemoteCallContext } from './remote.js';
import type { Runtime } from '../runtime-interface.js';
import type { EventMap } from '../../store/event-map.js';
import { ROUTING_EVENTS, type RoutingEventType } from './answer-cache.js';
import { SYNC_EXTENSION, isDeliveryFailure, outgoing } from './delivery.js';
export { isSyncDelivery } from './delivery.js';
import { queuedAnswer } from './fallback-answers.js';
import { TARGET_EXTENSION, type RouteTarget } from './target.js';

/** Bounds of the `queue-for-sync` delivery loop. */
export interface QueueForSyncInit {
  /** The delivery job's timeout: the longest a request waits for its target, ms. @default 600000 */
  readonly maxWaitMs?: number;
  /** The first wait between delivery attempts, ms (doubles after each). @default 1000 */
  readonly retryMs?: number;
  /** The longest wait between delivery attempts, ms. @default 30000 */
  readonly maxRetryMs?: number;
  /** The most delivery attempts. @default 100 */
  readonly maxAttempts?: number;
}

/** What the queue needs from the router. */
export interface SyncQueueComponents {
  /** Carries one request to `target` (the router's transports). */
  send(target: RouteTarget, envelope: Envelope, card: AgentCard, signal: AbortSignal): Promise<Envelope>;
  /** Appends a routing event about `request` (its trace and tenant), caused by `causation`. */
  record<K extends RoutingEventType>(type: K, request: Envelope, data: EventMap[K], causation?: string): void;
  /** Records a successful answer for `local-cache`. */
  remember(request: Envelope, agent: string, answer: Envelope): void;
  /** The runtime the delivery job is submitted to. */
  readonly runtime: (() => Pick<Runtime, 'submit'>) | undefined;
  /** The `from` of the queued receipt. */
  readonly nodeId: string;
  readonly bounds: QueueForSyncInit | undefined;
  readonly sleep: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  readonly logger: Logger | undefined;
}

/** The queue. */
export interface SyncQueue {
  /**
   * Submits the delivery job and answers with the queued receipt.
   * @throws PlexusError when the job cannot be submitted (the router then tries its next step).
   */
  enqueue(
    request: Envelope,
    target: RouteTarget,
    reason: string,
    context?: RemoteCallContext,
  ): Promise<Envelope>;
  /**
   * Delivers a delivery job's request (one marked `_x_plexus_sync`).
   * @throws PlexusError when the loop gives up, with the last failure's code.
   */
  deliver(
    target: RouteTarget,
    request: Envelope,
    card: AgentCard,
    signal: AbortSignal,
    context?: RemoteCallContext,
  ): Promise<Envelope>;
}

const DEFAULTS = { maxWaitMs: 600_000, retryMs: 1000, maxRetryMs: 30_000, maxAttempts: 100 };

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `queueForSync.${name} must be a whole number ≥ 1, got ${String(value)}`,
    );
  }
  return value;
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(toPlexusError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(toPlexusError(signal.reason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Creates the queue.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bound that is not a whole number ≥ 1.
 */
export function syncQueue(c: SyncQueueComponents): SyncQueue {
  const bounds = {
    maxWaitMs: positive('maxWaitMs', c.bounds?.maxWaitMs ?? DEFAULTS.maxWaitMs),
    retryMs: positive('retryMs', c.bounds?.retryMs ?? DEFAULTS.retryMs),
    maxRetryMs: positive('maxRetryMs', c.bounds?.maxRetryMs ?? DEFAULTS.maxRetryMs),
    maxAttempts: positive('maxAttempts', c.bounds?.maxAttempts ?? DEFAULTS.maxAttempts),
  };
  const sleep = c.sleep ?? sleepFor;
  const now = (): string => new Date().toISOString();

  return {
    async enqueue(request, target, reason, context) {
      if (c.runtime === undefined) {
        throw new PlexusError('UNAVAILABLE', 'this node has no runtime to queue requests on');
      }
      const queued: { -readonly [K in keyof Envelope]: Envelope[K] } = {
        ...request,
        extensions: {
          ...(request.extensions ?? {}),
          [TARGET_EXTENSION]: target.text,
          [SYNC_EXTENSION]: { queuedAt: now(), reason },
        },
      };
      delete queued.signature;
      delete queued.deadline; // the delivery window is the job's own timeout
      const { job } = await c.runtime().submit(queued, {
        face: 'internal',
        idempotencyKey: `queue-for-sync:${request.id}`,
        timeoutMs: bounds.maxWaitMs,
        ...(context?.principal === undefined ? {} : { principal: context.principal }),
      });
      const data = {
        at: now(),
        by: context?.jobId ?? null,
        job: job.id,
        reason,
        request: request.id,
        target: target.text,
        verb: request.verb,
      };
      c.record(ROUTING_EVENTS.syncQueued, request, data, job.id);
      return queuedAnswer(request, c.nodeId, job, reason);
    },

    async deliver(target, request, card, signal, context) {
      const job = context?.jobId;
      let wait = bounds.retryMs;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await c.send(target, outgoing(request, card.id), card, signal);
          const data = {
            at: now(),
            attempts: attempt,
            job: job ?? null,
            kind: answer.kind,
            request: request.id,
          };
          c.record(ROUTING_EVENTS.syncDelivered, request, data, job);
          c.remember(request, card.id, answer);
          return answer;
        } catch (error) {
          const failure = toPlexusError(error);
          if (isDeliveryFailure(failure, signal) && attempt < bounds.maxAttempts) {
            c.logger?.info(
              { job, target: target.text, attempt, retryInMs: wait },
              'queued request not delivered yet',
            );
            try {
              await sleep(wait, signal);
              wait = Math.min(wait * 2, bounds.maxRetryMs);
              continue;
            } catch {
              // the delivery window ended while waiting: give up below
            }
          }
          const why = signal.aborted ? toPlexusError(signal.reason) : failure;
          const data = {
            at: now(),
            attempts: attempt,
            code: why.code,
            job: job ?? null,
            request: request.id,
          };
          c.record(ROUTING_EVENTS.syncAbandoned, request, data, job);
          throw new PlexusError(
            why.code,
            `the queued request for ${target.text} was not delivered after ${String(attempt)} attempt(s): ${why.message}`,
            { retryable: why.retryable, cause: why, details: { target: target.text, attempts: attempt } },
          );
        }
      }
    },
  };
}
