/**
 * The event log's write health, for `/readyz`: a wrapper around an {@link EventLog} that
 * watches every `append`. An append that fails because the storage failed (the writer
 * stopped, a commit failed, another writer moved the stored head, a bug) makes the log
 * unhealthy with that reason; the next append that succeeds makes it healthy again.
 * Refusals of the caller's input (`INVALID_PARAMS`, …) and cancelled appends say nothing
 * about the storage and leave the health as it is.
 */
import { PlexusError, type PlexusErrorCode } from '../core/errors.js';
import type { EventLog } from '../store/index.js';

/** The codes of a failed append that mean the storage cannot be written. */
const STORAGE_FAILURES: ReadonlySet<PlexusErrorCode> = new Set<PlexusErrorCode>([
  'UNAVAILABLE',
  'CONFLICT',
  'INTERNAL',
]);

/** A log whose write health is tracked. */
export interface HealthTrackedLog {
  /** The log to use in its place: the same log, its appends watched. */
  readonly log: EventLog;
  /** Why the log cannot be written, or `undefined` while the last storage outcome was a success. */
  readonly unwritableReason: () => string | undefined;
}

function storageFailure(error: unknown): string | undefined {
  if (!(error instanceof PlexusError)) {
    return error instanceof Error ? error.message : String(error);
  }
  return STORAGE_FAILURES.has(error.code) ? error.message : undefined;
}

/**
 * Wraps `log` so its write health can be read. Every other member is the log's own.
 *
 * @example
 * const tracked = trackLogHealth(sqliteEventLog({ dir }));
 * tracked.unwritableReason(); // undefined, or e.g. "events.db: commit failed: disk I/O error"
 */
export function trackLogHealth(log: EventLog): HealthTrackedLog {
  let reason: string | undefined;
  const watch = <T>(outcome: Promise<T>): Promise<T> =>
    outcome.then(
      (value) => {
        reason = undefined;
        return value;
      },
      (error: unknown) => {
        const failure = storageFailure(error);
        if (failure !== undefined) reason = `the event log cannot be written: ${failure}`;
        throw error;
      },
    );
  const append = ((events: Parameters<EventLog['append']>[0], options?: Parameters<EventLog['append']>[1]) =>
    watch(log.append(events as never, options) as Promise<unknown>)) as EventLog['append'];
  const tracked = new Proxy(log, {
    get(target, property) {
      // The logs are closures (no `this`), and some members are read-only symbols (the live
      // tap): everything but `append` is handed out exactly as the log has it.
      return property === 'append' ? append : (Reflect.get(target, property, target) as unknown);
    },
  });
  return { log: tracked, unwritableReason: () => reason };
}
