/**
 * The storage side of an event log: what a backend (SQLite, memory, later PostgreSQL) must
 * provide. Sequencing, hashing, group commit, subscriptions and lifecycle are shared (see
 * `createEventLog`), so every backend behaves the same by construction; a backend only
 * stores sealed events and reads them back.
 */
import type { Event } from '../core/records/event.js';
import type { EventQuery } from './event-filter.js';
import type { EventLogHead } from './event-log.js';

/** A value or a promise of it: the SQLite and memory backends answer synchronously. */
export type MaybePromise<T> = T | Promise<T>;

/** A stored row that cannot be read back as an Event (for `verifyChain`). */
export interface DamagedRow {
  readonly seq: number;
  readonly damaged: string;
}

/** One entry of a chain scan: an event, or a row too damaged to be one. */
export type ScannedRow = Event | DamagedRow;

/** True when a scanned row is damaged. */
export function isDamagedRow(row: ScannedRow): row is DamagedRow {
  return 'damaged' in row;
}

/** Storage for an event log. Called by one log instance, never concurrently for commits. */
export interface EventLogBackend {
  /** What and where the storage is, for error messages (`sqlite event log at …/events.db`). */
  readonly description: string;
  /** Opens or creates the storage and returns its last event (`seq` 0 when empty). */
  open(): MaybePromise<EventLogHead>;
  /**
   * Stores sealed events in one transaction: all or none. `events[0].seq` is one more than
   * the head the log last saw; a backend that finds another head must throw `CONFLICT`.
   * `dataTexts[i]`, when given, is the RFC 8785 text of `events[i].data` (already built for
   * hashing), so a backend storing JSON text need not serialise the data again.
   */
  commit(events: readonly Event[], dataTexts?: readonly string[]): MaybePromise<void>;
  /** Returns the matching events in `seq` order (at most `query.limit`). */
  read(query: EventQuery): MaybePromise<readonly Event[]>;
  /** Returns up to `limit` stored rows after `afterSeq`, unfiltered and unchecked. */
  scan(afterSeq: number, limit: number): MaybePromise<readonly ScannedRow[]>;
  /** Closes the storage; the backend may be opened again. */
  close(): MaybePromise<void>;
}
