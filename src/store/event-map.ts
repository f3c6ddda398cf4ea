/**
 * Typed events: the map from event type to the data it carries, and the typed views of the
 * log's records built on it.
 *
 * The store knows no event type. {@link EventMap} is empty here; each layer that writes
 * events adds its own by declaration merging, next to the code that writes them:
 *
 * ```ts
 * declare module '../store/event-map.js' {
 *   interface EventMap {
 *     'job.submitted': JobSubmittedData;
 *   }
 * }
 * ```
 *
 * An {@link EventLog} is typed by such a map: its `append` takes only the map's types, each
 * with its own data, so an unknown type or a wrong shape is a compile error. Reads return the
 * plain `Event` (a log may hold types this build does not know, e.g. an older log on replay);
 * {@link eventHandlers} and {@link eventOf} hand an event to typed code by its type. Nothing
 * here checks data at run time: the log checked it was JSON when it was appended, and the
 * type string names its shape (as the hand casts this replaces assumed).
 */
import type { Event } from '../core/records/event.js';
import type { EventLog } from './event-log.js';

/**
 * The event types the node writes, each mapped to its data type. Empty in the store: the
 * runtime and every primitive add their events with `declare module` (see the module doc).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface EventMap {}

/** Any map from event type to data type (what an event log is typed by). */
export type EventTypes = object;

/**
 * The map of a log whose event types are open: any type, any data. For code that appends
 * types it does not know at compile time (events a verb declares under `emits`, tools,
 * tests); {@link openEventLog} gives any log this view.
 */
export type AnyEvents = Readonly<Record<string, unknown>>;

/** The event types of a map. */
export type EventType<M extends EventTypes = EventMap> = keyof M & string;

/** The fields of an appended event other than its type and data. */
export interface EventMeta {
  /** Id of the message or event that caused this one. */
  readonly causation?: string;
  /** W3C `traceparent` of the work that produced the event. */
  readonly trace?: string;
  /** Tenant the event belongs to. */
  readonly tenant?: string;
}

/**
 * What a caller appends, typed by the map: one member per event type, whose `data` is that
 * type's data. `K` narrows it to some of the types.
 */
export type TypedEventInput<M extends EventTypes = EventMap, K extends EventType<M> = EventType<M>> = {
  readonly [T in K]: EventMeta & {
    /** The event type: dotted lower-case words, each `[a-z][a-z0-9_]*` (`job.completed`). */
    readonly type: T;
    /** The payload; it must be plain JSON (the log checks it). */
    readonly data: M[T];
  };
}[K];

/** A stored event of type `K`, its data typed by the map. */
export type EventOf<K extends EventType<M>, M extends EventTypes = EventMap> = {
  readonly [T in K]: Omit<Event, 'type' | 'data'> & { readonly type: T; readonly data: M[T] };
}[K];

/**
 * The same log, typed to append any event type: for code that appends types it learns at run
 * time (the events a verb declares under `emits`). The object is `log` itself.
 */
export function openEventLog(log: EventLog<EventTypes>): EventLog<AnyEvents> {
  return log;
}

/** The typed handlers of a projection: for each event type, the state after such an event. */
export type EventHandlers<S, M extends EventTypes = EventMap> = {
  readonly [K in EventType<M>]?: (state: S, event: EventOf<K, M>) => S;
};

/** A plain reducer step over any stored event. */
export type EventReducer<S> = (state: S, event: Event) => S;

/**
 * A projection's `apply` from typed handlers: an event goes to the handler of its type, which
 * receives it typed; an event of a type without a handler goes to `otherwise` (default: the
 * state unchanged), so unknown or foreign types read from the log are handled as before.
 *
 * @example
 * apply: eventHandlers<Counts>({
 *   'job.submitted': (state, event) => state.set(event.data.id, 0), // event.data: JobSubmittedData
 * }),
 */
export function eventHandlers<S, M extends EventTypes = EventMap>(
  handlers: EventHandlers<S, M>,
  otherwise?: EventReducer<S>,
): EventReducer<S> {
  const table = new Map<string, EventReducer<S>>();
  for (const [type, handler] of Object.entries(handlers)) {
    // The one place a stored event meets its type's data shape: the type string names it.
    if (typeof handler === 'function') table.set(type, handler as EventReducer<S>);
  }
  return (state, event) => {
    const handler = table.get(event.type);
    if (handler !== undefined) return handler(state, event);
    return otherwise === undefined ? state : otherwise(state, event);
  };
}

/**
 * `event` typed as an event of `type`, or `undefined` when it has another type. No data is
 * checked: the type string names the data's shape.
 *
 * @example
 * const submitted = eventOf(event, 'job.submitted');
 * if (submitted !== undefined) use(submitted.data.key);
 */
export function eventOf<K extends EventType>(event: Event, type: K): EventOf<K> | undefined {
  return event.type === type ? (event as unknown as EventOf<K>) : undefined;
}
