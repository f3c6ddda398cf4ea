/**
 * The storage side of an event log: what a backend (SQLite, memory, later PostgreSQL) must
 * provide. Sequencing, hashing, group commit, subscriptions and lifecycle are shared (see
 * `createEventLog`), so every backend behaves the same by construction; a backend only
 * stores sealed events and reads them back.
 */
import type { Event } from '../core/records/event.js';
import type { EventQuery } from './event-filter.js';
import type { CheckedInput } from './event-input.js';
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

/**
 * A batch for {@link EventLogBackend.sealAndCommit}: consecutive events from `firstSeq`, the
 * first linked (`prev`) to the last event the backend stored before it.
 */
export interface SealBatch {
  readonly inputs: readonly CheckedInput[];
  /** The `seq` of the first event: one more than the last event of the batch before it. */
  readonly firstSeq: number;
  /** The batch's `time`, shared by all its events. */
  readonly time: string;
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
  /**
   * Optional: seals and stores a batch in one step — computes each event's `cid` (D9: the
   * `jcs` form of the event's hashed body; `prev` links each to the one before, the first to
   * the last event stored) and commits all or none — and resolves with the CIDs in order.
   * The log may hand over the next batch before the previous one settles: batches are
   * committed in the order given, and a batch whose `firstSeq` does not follow the last
   * stored event (an earlier one failed) is refused. A backend offering it does the hashing
   * off the caller's path (the SQLite log on its writer thread); the log then uses it
   * instead of `commit`. `CONFLICT` when the stored head moved under it (another writer).
   */
  sealAndCommit?(batch: SealBatch): Promise<readonly string[]>;
  /** Returns the matching events in `seq` order (at most `query.limit`). */
  read(query: EventQuery): MaybePromise<readonly Event[]>;
  /** Returns up to `limit` stored rows after `afterSeq`, unfiltered and unchecked. */
  scan(afterSeq: number, limit: number): MaybePromise<readonly ScannedRow[]>;
  /** Closes the storage; the backend may be opened again. */
  close(): MaybePromise<void>;
}
