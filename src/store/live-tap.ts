/**
 * The synchronous live tap of an event log: an internal fast path for projection views.
 *
 * A subscription (`log.subscribe`) is an async iterator, so every committed batch costs each
 * follower a wake-up and a few promise turns before its state moves. A live view does not
 * need that: the log built by `createEventLog` also offers a tap, a plain callback called
 * with each committed batch inside the flush, after the commit and before the appenders'
 * promises resolve. A view on the tap has applied a batch by the time its `append` resolves,
 * so `waitFor(seq)` after an append is already satisfied.
 *
 * The tap is a non-enumerable symbol-keyed property: it is not part of the `EventLog`
 * contract, and a view over any other `EventLog` falls back to `subscribe`.
 */
import type { Event } from '../core/records/event.js';
import type { EventLog } from './event-log.js';
import type { EventTypes } from './event-map.js';

/** One synchronous follower of the live log. */
export interface LiveTap {
  /** A committed batch, in seq order. Must not throw (a throw is ignored). */
  onBatch(events: readonly Event[]): void;
  /** The log stopped: no more batches will come. */
  onClose(): void;
}

/**
 * Registers a tap; returns the function that removes it.
 * @throws PlexusError `UNAVAILABLE` when the log is not running.
 */
export type LiveTapRegister = (tap: LiveTap) => () => void;

/** The property under which `createEventLog` exposes its tap. */
export const LIVE_TAP: unique symbol = Symbol('plexus.store.liveTap');

/** Attaches `register` to `log` as its (non-enumerable) live tap. */
export function attachLiveTap<L extends EventLog<EventTypes>>(log: L, register: LiveTapRegister): L {
  Object.defineProperty(log, LIVE_TAP, { value: register, enumerable: false });
  return log;
}

/** The live tap of `log`, when it has one. */
export function liveTapOf(log: EventLog<EventTypes>): LiveTapRegister | undefined {
  const tap = (log as { [LIVE_TAP]?: unknown })[LIVE_TAP];
  return typeof tap === 'function' ? (tap as LiveTapRegister) : undefined;
}
