/**
 * The event log contract (DESIGN D9): one append-only log per node with a total order.
 *
 * Each event gets `seq` (1, 2, 3, … with no gaps), `cid` (the content id of the `jcs` form
 * of the event without `seq` and `cid`), `prev` (the `cid` of the event before it, `null`
 * for the first: a hash chain) and `time` (when the log accepted it). Every backend
 * (SQLite, memory) passes the one contract suite `runEventLogContract`.
 */
import type { Event } from '../core/records/event.js';
import type { EventMap, EventType, EventTypes, TypedEventInput } from './event-map.js';

export type { Event };

/**
 * What a caller appends: the event's content; the log adds `seq`, `cid`, `prev`, `time`.
 * Typed by an event map (default: the node's {@link EventMap}), one member per event type
 * with that type's data; `EventInput<AnyEvents>` is any type with any JSON data.
 */
export type EventInput<
  M extends EventTypes = EventMap,
  K extends EventType<M> = EventType<M>,
> = TypedEventInput<M, K>;

/**
 * Which events a read or a subscription returns. All given conditions must hold (AND);
 * an absent condition matches everything.
 */
export interface EventFilter {
  /** Exact type, or any of a list of exact types. */
  readonly type?: string | readonly string[];
  /**
   * Type prefix, compared as plain text: `job.` matches `job.completed`; `job` also matches
   * `jobs.x`. Write the trailing `.` to select one namespace. Combined with `type`, both
   * must hold.
   */
  readonly typePrefix?: string;
  /** Exact tenant. */
  readonly tenant?: string;
  /** Exact causation id. */
  readonly causation?: string;
  /**
   * Exact `key` of the event's data (a string field at `/key`): the runtime's `job.submitted`
   * carries its scoped idempotency key there. The SQLite backend indexes it for `job.submitted`
   * (a read with `type: 'job.submitted'` and `key` is an index lookup); elsewhere it scans.
   */
  readonly key?: string;
  /**
   * Trace id (32 lower-case hex characters) or a full `traceparent`, which is reduced to
   * its trace id: matches events whose `trace` carries that trace id, whatever the span.
   */
  readonly trace?: string;
}

/** Options of {@link EventLog.read}. */
export interface ReadOptions extends EventFilter {
  /**
   * Return events with `seq` greater than this.
   * @default 0
   */
  readonly afterSeq?: number;
  /** Return events with `seq` at most this (inclusive). */
  readonly untilSeq?: number;
  /**
   * Largest number of events returned (1 … 100 000).
   * @default 1000
   */
  readonly limit?: number;
  /** Aborts the read. */
  readonly signal?: AbortSignal;
}

/** Options of {@link EventLog.subscribe}. */
export interface SubscribeOptions {
  /** Ends the iteration cleanly (no error) when aborted. */
  readonly signal?: AbortSignal;
}

/** Options carrying only a signal. */
export interface SignalOptions {
  /** Aborts the call. */
  readonly signal?: AbortSignal;
}

/** The last event of the log: `seq` 0 and `cid` null when the log is empty. */
export interface EventLogHead {
  readonly seq: number;
  readonly cid: string | null;
}

/** Why {@link EventLog.verifyChain} rejected an event. */
export type ChainFault = 'seq-gap' | 'prev-mismatch' | 'cid-mismatch' | 'malformed';

/** The result of {@link EventLog.verifyChain}. */
export type ChainVerification =
  | { readonly ok: true; readonly count: number; readonly head: EventLogHead }
  | {
      readonly ok: false;
      /** Number of events checked and found good before the bad one. */
      readonly count: number;
      /** `seq` of the first bad event (for a gap: the first seq after the gap). */
      readonly seq: number;
      readonly fault: ChainFault;
      /** One sentence a person can act on. */
      readonly reason: string;
    };

/**
 * An append-only, hash-chained event log with a total order.
 *
 * `M` types what may be appended (default: the node's {@link EventMap}, so appending an
 * unknown event type is a compile error); reads return every stored event, whatever its type.
 * The map only types `append`; `openEventLog(log)` is the same log open to any event type.
 *
 * Lifecycle: create with a factory, `start()`, use, `stop()`. `stop()` lets commits in
 * flight finish, ends every subscription and is safe to call twice; `start()` after `stop()`
 * opens the log again and continues its sequence and chain.
 */
export interface EventLog<M extends EventTypes = EventMap> {
  /** Opens the log (creating its storage if needed). Idempotent while running. */
  start(): Promise<void>;
  /** Commits what is queued, ends subscriptions, closes storage. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Appends one event or a list of events. A list is atomic and gets consecutive `seq`s.
   * The promise resolves after the event is durable (committed), with the stored event(s).
   * Appends from concurrent callers are group-committed: one transaction per batch.
   *
   * @throws PlexusError `INVALID_PARAMS` for a bad type, non-JSON data or bad optional
   *   field (nothing of that call is appended); `UNAVAILABLE` when the log is not started
   *   or stopped; `CANCELLED` when the signal aborts before the batch is committed;
   *   `CONFLICT` when another writer changed the storage underneath.
   */
  append<K extends EventType<M>>(event: EventInput<M, K>, options?: SignalOptions): Promise<Event>;
  append<K extends EventType<M>>(
    events: readonly EventInput<M, K>[],
    options?: SignalOptions,
  ): Promise<readonly Event[]>;
  /**
   * Returns the events after `afterSeq` that match the filter, in `seq` order, at most `limit`.
   *
   * @throws PlexusError `INVALID_PARAMS` for a bad option; `UNAVAILABLE` when not started;
   *   `CANCELLED` when aborted.
   */
  read(options?: ReadOptions): Promise<readonly Event[]>;
  /**
   * Iterates the matching events after `afterSeq`: first the stored backlog, then new events
   * as they are committed, with no gap and no duplicate at the boundary. Ends (without
   * error) when the signal aborts, the consumer breaks, or the log stops.
   *
   * @throws PlexusError `INVALID_PARAMS` for a bad filter (from the first `next()`).
   */
  subscribe(afterSeq: number, filter?: EventFilter, options?: SubscribeOptions): AsyncIterable<Event>;
  /** The last committed event's `seq` and `cid`. @throws PlexusError `UNAVAILABLE` when not started. */
  head(options?: SignalOptions): Promise<EventLogHead>;
  /**
   * Re-reads the whole log, recomputes every `cid` and checks every `prev` link and that
   * `seq` has no gap; reports the first bad event.
   *
   * @throws PlexusError `UNAVAILABLE` when not started; `CANCELLED` when aborted.
   */
  verifyChain(options?: SignalOptions): Promise<ChainVerification>;
}
