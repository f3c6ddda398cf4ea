/**
 * The retry schedule of node-to-node calls (D4): up to three retries, after 0.5, 1 and 2 s,
 * each spread by a random jitter, with sleeps that end early when the call is cancelled.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { SENT_DETAIL } from '../../runtime/routing/unsent.js';
import { withDetails } from './peer-wire.js';

/** The default delays before each retry, ms (D4). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000];

/** The default jitter: each delay is spread uniformly over ±20 %. */
export const DEFAULT_RETRY_JITTER = 0.2;

/** Options of the retry schedule. */
export interface PeerRetryInit {
  /** The delay before each retry, ms; its length is the number of retries. @default [500, 1000, 2000] */
  readonly delaysMs?: readonly number[];
  /** The fraction each delay is spread by, 0 to 1. @default 0.2 */
  readonly jitter?: number;
}

/** A checked retry schedule. */
export interface RetrySchedule {
  readonly delaysMs: readonly number[];
  readonly jitter: number;
}

/**
 * Checks and fills in a retry schedule.
 *
 * @throws PlexusError `INVALID_PARAMS` when a delay is not a non-negative integer or the
 *   jitter is outside 0…1.
 */
export function retrySchedule(init: PeerRetryInit = {}): RetrySchedule {
  const delaysMs = [...(init.delaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
  for (const delay of delaysMs) {
    if (!Number.isSafeInteger(delay) || delay < 0) {
      throw new PlexusError('INVALID_PARAMS', `retry delays must be whole ms ≥ 0, got ${String(delay)}`);
    }
  }
  const jitter = init.jitter ?? DEFAULT_RETRY_JITTER;
  if (!(jitter >= 0 && jitter <= 1)) {
    throw new PlexusError('INVALID_PARAMS', `retry jitter must be between 0 and 1, got ${String(jitter)}`);
  }
  return { delaysMs, jitter };
}

/** `base` spread by ±`jitter` using `random()` ∈ [0, 1); never negative. */
export function jittered(base: number, jitter: number, random: () => number): number {
  return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
}

/**
 * Resolves after `ms`, or rejects with `CANCELLED` as soon as `signal` aborts.
 *
 * @throws PlexusError `CANCELLED` when `signal` is or becomes aborted.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = (): PlexusError =>
      new PlexusError('CANCELLED', 'the call was cancelled while waiting to retry');
    if (signal.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One attempt's outcome: an answer, a failure that ends the call, or a failure worth retrying
 * (with the far side's own error answer, when it gave one; `unsent` when the request did not
 * leave this node, e.g. the connection was refused).
 */
export type AttemptOutcome =
  | { readonly kind: 'answer'; readonly envelope: Envelope }
  | { readonly kind: 'fail'; readonly error: PlexusError }
  | {
      readonly kind: 'retry';
      readonly error: PlexusError;
      readonly answer?: Envelope;
      readonly unsent?: boolean;
    };

/** How {@link retryAttempts} waits and reports. */
export interface RetryRun {
  readonly schedule: RetrySchedule;
  /** Random numbers in [0, 1) for the jitter. */
  readonly random: () => number;
  /** How to wait between attempts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The error thrown when `signal` is aborted before an attempt. */
  readonly cancelled: () => PlexusError;
  /** Told of each retry before its wait (the callers log it). */
  readonly onRetry: (error: PlexusError, waitMs: number) => void;
}

/**
 * Runs `attempt` until it answers or fails, retrying after each delay of the schedule
 * (jittered). When the retries are spent, the last attempt's own error answer is returned
 * if it gave one, else its error with `details.attempts` (and `details.sent: false` when no
 * attempt sent the request: see `wasNeverSent`).
 *
 * @throws PlexusError the failing attempt's error, `CANCELLED` via `run.cancelled` or
 *   `run.sleep`, or the last retryable error once the retries are spent.
 */
export async function retryAttempts(
  attempt: () => Promise<AttemptOutcome>,
  signal: AbortSignal,
  run: RetryRun,
): Promise<Envelope> {
  let sent = false;
  for (let retries = 0; ; retries++) {
    if (signal.aborted) throw run.cancelled();
    const outcome = await attempt();
    if (outcome.kind === 'answer') return outcome.envelope;
    if (outcome.kind === 'fail') throw outcome.error;
    if (outcome.unsent !== true) sent = true;
    const delay = run.schedule.delaysMs[retries];
    if (delay === undefined) {
      // The last attempt's own error answer (e.g. a 429 with its message) is the most useful answer.
      if (outcome.answer !== undefined) return outcome.answer;
      throw withDetails(
        outcome.error,
        sent ? { attempts: retries + 1 } : { attempts: retries + 1, [SENT_DETAIL]: false },
        `${outcome.error.message} (gave up after ${String(retries + 1)} attempts)`,
      );
    }
    const wait = jittered(delay, run.schedule.jitter, run.random);
    run.onRetry(outcome.error, wait);
    await run.sleep(wait, signal);
  }
}

/** The retry options a remote invoker takes (the Emergence endpoint client, the peer invoker). */
export interface RetryOptions {
  /** The retry schedule. @default { delaysMs: [500, 1000, 2000], jitter: 0.2 } */
  readonly retry?: PeerRetryInit;
  /** Random numbers in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
  /** How to wait between attempts (tests may shorten it). @default an abortable setTimeout */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Where retries are logged. @default silentLogger */
  readonly logger?: Logger;
}

/**
 * Checks `options` once and returns how to make the {@link RetryRun} of one call: each retry
 * is logged as a warning with `fields`, the error's code and the wait, under `message`.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad retry schedule.
 * @example
 * const runOf = retryRunner(init, cancelled);
 * await retryAttempts(attempt, signal, runOf({ peer: url }, 'peer call failed; retrying'));
 */
export function retryRunner(
  options: RetryOptions,
  cancelled: () => PlexusError,
): (fields: Readonly<Record<string, unknown>>, message: string) => RetryRun {
  const schedule = retrySchedule(options.retry);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const logger = options.logger ?? silentLogger;
  return (fields, message) => ({
    schedule,
    random,
    sleep,
    cancelled,
    onRetry: (error, waitMs) => {
      logger.warn({ ...fields, code: error.code, retryInMs: waitMs }, message);
    },
  });
}

/**
 * Checks the longest wait for one attempt.
 *
 * @throws PlexusError `INVALID_PARAMS` unless `ms` is a whole number ≥ 1.
 */
export function checkAttemptTimeout(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `attemptTimeoutMs must be a whole number of ms ≥ 1, got ${String(ms)}`,
    );
  }
  return ms;
}
