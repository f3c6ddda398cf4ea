/**
 * Projections (D9): all durable state is a pure fold over the event log. A projection is a
 * named reducer — an initial state and `apply(state, event)` — and its state has one
 * deterministic serialisation (RFC 8785 of its JSON form), so a state maintained live can be
 * compared byte for byte with one rebuilt from scratch (`plexus replay --verify`).
 */
import { canonicalizeJcs } from '../core/canonical/jcs.js';
import { PlexusError, toPlexusError } from '../core/errors.js';
import { sha256Hex } from '../core/hash.js';
import type { JsonValue } from '../core/json.js';
import type { Event } from '../core/records/event.js';
import type { EventFilter, EventLog } from './event-log.js';
import { matchesFilter, normalizeFilter, type NormalizedFilter } from './event-filter.js';
import { assertPlainJson } from './event-input.js';
import type { EventTypes } from './event-map.js';

/** Projection names: lower-case words joined by `.`, `_` or `-` (they name snapshot files). */
export const PROJECTION_NAME_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/;

/**
 * A named, deterministic reducer over events.
 *
 * `apply` must depend only on its arguments (no clock, no randomness, no I/O); it may return
 * a new state or change `state` in place and return it. Events outside `filter` are skipped.
 */
export interface Projection<S> {
  /** Unique name, e.g. `jobs` or `registry.cards`. */
  readonly name: string;
  /**
   * Version of the reducer. Change it whenever `apply` changes meaning, so persisted
   * snapshots of the old reducer are discarded.
   * @default 1
   */
  readonly version?: number;
  /** Only events matching this filter reach `apply`. @default all events */
  readonly filter?: EventFilter;
  /** A fresh initial state (called once per build). */
  initial(): S;
  /** The state after `event`. Throwing marks the projection as failed at that event. */
  apply(state: S, event: Event): S;
  /**
   * The JSON form of a state, for comparison and snapshots.
   * @default the state itself (it must then be plain JSON)
   */
  toJson?(state: S): JsonValue;
  /**
   * Rebuilds a state from its JSON form (for loading snapshots).
   * @default a deep copy of the JSON (right when the state is plain JSON)
   */
  fromJson?(json: JsonValue): S;
}

/** A state together with the position it reflects. */
export interface ProjectionResult<S> {
  readonly state: S;
  /** `seq` of the last event folded in (0 before any). */
  readonly seq: number;
}

/** Checks a projection's name. @throws PlexusError `INVALID_PARAMS`. */
export function checkProjectionName(name: string): string {
  if (typeof name !== 'string' || !PROJECTION_NAME_PATTERN.test(name)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `projection name ${JSON.stringify(name)} must be lower-case words of a–z 0–9 _ - joined by .`,
    );
  }
  return name;
}

/** The version of a projection (1 when not given). */
export function projectionVersion(projection: Projection<unknown>): number {
  return projection.version ?? 1;
}

/** The JSON form of a state. @throws PlexusError `INVALID_PARAMS` when it is not JSON. */
export function projectionJson<S>(projection: Projection<S>, state: S): JsonValue {
  return projection.toJson === undefined ? (state as JsonValue) : projection.toJson(state);
}

/**
 * The deterministic serialisation of a state: RFC 8785 text of its JSON form.
 *
 * @throws PlexusError `INVALID_PARAMS` when the JSON form is not JSON.
 */
export function projectionText<S>(projection: Projection<S>, state: S): string {
  try {
    const json = projectionJson(projection, state);
    assertPlainJson(json);
    return canonicalizeJcs(json);
  } catch (cause) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `projection ${projection.name}: its state is not JSON; give the projection a toJson(): ${toPlexusError(cause).message}`,
      { cause },
    );
  }
}

/** SHA-256 hex of {@link projectionText}. */
export function projectionDigest<S>(projection: Projection<S>, state: S): string {
  return sha256Hex(projectionText(projection, state));
}

/** A reducer step guarded so a throwing `apply` names the projection and the event. */
export function applyEvent<S>(
  projection: Projection<S>,
  filter: NormalizedFilter,
  state: S,
  event: Event,
): S {
  return matchesFilter(event, filter) ? applyMatchedEvent(projection, state, event) : state;
}

/** {@link applyEvent} for an event already known to match the projection's filter. */
export function applyMatchedEvent<S>(projection: Projection<S>, state: S, event: Event): S {
  try {
    return projection.apply(state, event);
  } catch (cause) {
    throw new PlexusError(
      'INTERNAL',
      `projection ${projection.name} failed at event seq ${event.seq} (${event.type}): ${toPlexusError(cause).message}`,
      { cause, details: { projection: projection.name, seq: event.seq } },
    );
  }
}

/** Options of {@link rebuildProjection}. */
export interface RebuildOptions<S> {
  /**
   * Fold only events up to this seq (inclusive); the result's `seq` is the last event folded.
   * @default the head when the rebuild starts
   */
  readonly untilSeq?: number;
  /** Start from this state and position instead of the initial state at 0. */
  readonly from?: ProjectionResult<S>;
  /** Events read per page. @default 1000 */
  readonly pageSize?: number;
  /** Aborts the rebuild. */
  readonly signal?: AbortSignal;
}

/**
 * Folds the log into a projection from scratch (or from `from`), up to `untilSeq`.
 *
 * @throws PlexusError `INTERNAL` when `apply` throws; `CANCELLED` when aborted; the log's
 *   read errors.
 */
export async function rebuildProjection<S>(
  log: EventLog<EventTypes>,
  projection: Projection<S>,
  options: RebuildOptions<S> = {},
): Promise<ProjectionResult<S>> {
  checkProjectionName(projection.name);
  const filter = normalizeFilter(projection.filter);
  const pageSize = options.pageSize ?? 1000;
  const until = options.untilSeq ?? (await log.head(options.signal ? { signal: options.signal } : {})).seq;
  let state = options.from?.state ?? projection.initial();
  let seq = options.from?.seq ?? 0;
  while (seq < until) {
    const page = await log.read({
      afterSeq: seq,
      untilSeq: until,
      limit: pageSize,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    for (const event of page) state = applyEvent(projection, filter, state, event);
    const last = page[page.length - 1];
    if (last !== undefined) seq = last.seq;
    if (page.length < pageSize) break;
  }
  return { state, seq };
}

/**
 * The JSON pointer of the first place two JSON values differ, or `undefined` when equal.
 * Object keys are visited in sorted order, so the answer is deterministic.
 */
export function firstDifference(a: JsonValue, b: JsonValue, pointer = ''): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return pointer || '/';
  if (Array.isArray(a) !== Array.isArray(b)) return pointer || '/';
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i];
      const y = b[i];
      if (x === undefined || y === undefined) return `${pointer}/${i}`;
      const d = firstDifference(x, y, `${pointer}/${i}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ao = a as Record<string, JsonValue>;
  const bo = b as Record<string, JsonValue>;
  const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort();
  for (const key of keys) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const x = ao[key];
    const y = bo[key];
    if (x === undefined || y === undefined) return at;
    const d = firstDifference(x, y, at);
    if (d !== undefined) return d;
  }
  return undefined;
}
