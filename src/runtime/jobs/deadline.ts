/**
 * Deadlines: a job's timeout from the request (context `timeoutMs`, envelope `deadline`)
 * with a default of 30 s, and racing work against an AbortSignal.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { InvocationContext } from '../context.js';

/** The default job timeout: 30 s (Emergence rulebook). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The default longest timeout a request may ask for: one hour. */
export const DEFAULT_MAX_TIMEOUT_MS = 3_600_000;

/** Limits of {@link resolveTimeout}. */
export interface TimeoutLimits {
  /** Timeout when the request names none. @default 30000 */
  readonly defaultTimeoutMs: number;
  /** Longer requested timeouts are cut to this. @default 3600000 */
  readonly maxTimeoutMs: number;
}

/** A job's timeout and absolute deadline. */
export interface JobDeadline {
  readonly timeoutMs: number;
  /** Unix ms. */
  readonly deadlineAt: number;
}

/**
 * The timeout of a request: the earlier of the context's `timeoutMs` and the envelope's
 * `deadline`, else the default; never more than the maximum.
 *
 * @throws PlexusError `INVALID_PARAMS` when `timeoutMs` is not a whole number ≥ 1 or the
 *   deadline is not a date-time; `TIMEOUT` when the envelope's deadline has already passed.
 */
export function resolveTimeout(
  envelope: Envelope,
  context: InvocationContext,
  now: number,
  limits: TimeoutLimits,
): JobDeadline {
  const candidates: number[] = [];
  if (context.timeoutMs !== undefined) {
    if (!Number.isSafeInteger(context.timeoutMs) || context.timeoutMs < 1) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `timeoutMs must be a whole number of ms ≥ 1, got ${String(context.timeoutMs)}`,
        {
          details: { pointer: '/timeout_ms' },
        },
      );
    }
    candidates.push(context.timeoutMs);
  }
  if (envelope.deadline !== undefined) {
    const at = Date.parse(envelope.deadline);
    if (Number.isNaN(at)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `deadline ${JSON.stringify(envelope.deadline)} is not a date-time`,
        {
          details: { pointer: '/deadline' },
        },
      );
    }
    if (at <= now) {
      throw new PlexusError('TIMEOUT', `the request's deadline ${envelope.deadline} has already passed`, {
        details: { pointer: '/deadline' },
      });
    }
    candidates.push(at - now);
  }
  const asked = candidates.length === 0 ? limits.defaultTimeoutMs : Math.min(...candidates);
  const timeoutMs = Math.min(asked, limits.maxTimeoutMs);
  return { timeoutMs, deadlineAt: now + timeoutMs };
}

/** `thrown` itself when it is an Error, else an Error carrying it (for non-Error throws). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
}

/** The error a signal was aborted with, as a PlexusError (`CANCELLED` when it gave none). */
export function abortError(signal: AbortSignal, what = 'the operation'): PlexusError {
  const reason: unknown = signal.reason;
  if (reason instanceof PlexusError) return reason;
  if (reason === undefined || (reason instanceof Error && reason.name === 'AbortError')) {
    return new PlexusError('CANCELLED', `${what} was cancelled`, { cause: reason });
  }
  return toPlexusError(reason);
}

/**
 * Settles like `work`, or rejects with the signal's reason as soon as the signal aborts.
 * `work` keeps running when the signal wins; its later rejection is handled (never unhandled).
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, what?: string): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(abortError(signal, what));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(asError(error));
      },
    );
  });
}
