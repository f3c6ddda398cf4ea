/**
 * Event filters: checking and normalising what callers pass to `read` and `subscribe`, and
 * matching an event in memory. The SQLite backend turns the same normalised query into SQL;
 * the contract suite holds both to the same answers.
 */
import { PlexusError } from '../core/errors.js';
import type { Event } from '../core/records/event.js';
import { checkEventType, TRACEPARENT_PATTERN } from './event-input.js';
import type { EventFilter, ReadOptions } from './event-log.js';

/** Default `limit` of a read. */
export const DEFAULT_READ_LIMIT = 1000;
/** Largest `limit` of a read. */
export const MAX_READ_LIMIT = 100_000;

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const TYPE_PREFIX = /^[a-z0-9_.]*$/;

/** A checked filter: absent conditions are `undefined`. */
export interface NormalizedFilter {
  readonly types: readonly string[] | undefined;
  readonly typePrefix: string | undefined;
  readonly tenant: string | undefined;
  readonly causation: string | undefined;
  /** The data's `key` field. */
  readonly key: string | undefined;
  /** 32 lower-case hex characters. */
  readonly traceId: string | undefined;
}

/** A checked read: the filter plus the seq window and limit. */
export interface EventQuery extends NormalizedFilter {
  readonly afterSeq: number;
  readonly untilSeq: number | undefined;
  readonly limit: number;
}

function bad(message: string, pointer: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', message, { details: { pointer } });
}

/** The trace id carried by a `traceparent` (characters 4–35). */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}

/** @throws PlexusError `INVALID_PARAMS` unless `value` is a whole number ≥ 0. */
export function checkSeq(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw bad(
      `${name} must be a whole number ≥ 0, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      `/${name}`,
    );
  }
  return value;
}

function checkText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0)
    throw bad(`filter ${name} must be a non-empty string`, `/${name}`);
  return value;
}

/**
 * Checks and normalises a filter.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the bad condition.
 */
export function normalizeFilter(filter: EventFilter = {}): NormalizedFilter {
  if (typeof filter !== 'object' || (filter as unknown) === null) throw bad('filter must be an object', '');
  let types: readonly string[] | undefined;
  if (filter.type !== undefined) {
    const list: readonly unknown[] = Array.isArray(filter.type) ? filter.type : [filter.type];
    if (list.length === 0) throw bad('filter type list must not be empty (omit type to match all)', '/type');
    types = list.map((t, i) => checkEventType(t, Array.isArray(filter.type) ? `/type/${i}` : '/type'));
  }
  let typePrefix: string | undefined;
  if (filter.typePrefix !== undefined) {
    if (typeof filter.typePrefix !== 'string' || !TYPE_PREFIX.test(filter.typePrefix)) {
      throw bad('filter typePrefix must be a string of a–z 0–9 _ .', '/typePrefix');
    }
    typePrefix = filter.typePrefix === '' ? undefined : filter.typePrefix;
  }
  let traceId: string | undefined;
  if (filter.trace !== undefined) {
    const trace: unknown = filter.trace;
    if (typeof trace === 'string' && TRACE_ID.test(trace)) traceId = trace;
    else if (typeof trace === 'string' && TRACEPARENT_PATTERN.test(trace)) traceId = traceIdOf(trace);
    else throw bad('filter trace must be a 32-hex trace id or a traceparent', '/trace');
  }
  return {
    types,
    typePrefix,
    tenant: checkText(filter.tenant, 'tenant'),
    causation: checkText(filter.causation, 'causation'),
    key: checkText(filter.key, 'key'),
    traceId,
  };
}

/**
 * Checks and normalises read options.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the bad option.
 */
export function normalizeRead(options: ReadOptions = {}): EventQuery {
  const afterSeq = options.afterSeq === undefined ? 0 : checkSeq(options.afterSeq, 'afterSeq');
  const untilSeq = options.untilSeq === undefined ? undefined : checkSeq(options.untilSeq, 'untilSeq');
  const limit = options.limit ?? DEFAULT_READ_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_READ_LIMIT) {
    throw bad(`limit must be a whole number from 1 to ${MAX_READ_LIMIT}`, '/limit');
  }
  return { ...normalizeFilter(options), afterSeq, untilSeq, limit };
}

/** True when the filter has no condition. */
export function matchesAll(filter: NormalizedFilter): boolean {
  return (
    filter.types === undefined &&
    filter.typePrefix === undefined &&
    filter.tenant === undefined &&
    filter.causation === undefined &&
    filter.key === undefined &&
    filter.traceId === undefined
  );
}

/** True when `event` meets every condition of `filter`. */
export function matchesFilter(event: Event, filter: NormalizedFilter): boolean {
  if (filter.types !== undefined && !filter.types.includes(event.type)) return false;
  if (filter.typePrefix !== undefined && !event.type.startsWith(filter.typePrefix)) return false;
  if (filter.tenant !== undefined && event.tenant !== filter.tenant) return false;
  if (filter.causation !== undefined && event.causation !== filter.causation) return false;
  if (filter.key !== undefined && dataKeyOf(event) !== filter.key) return false;
  if (
    filter.traceId !== undefined &&
    (event.trace === undefined || traceIdOf(event.trace) !== filter.traceId)
  ) {
    return false;
  }
  return true;
}

/** The string at `/key` of an event's data, if any. */
export function dataKeyOf(event: Event): string | undefined {
  const data = event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const key = (data as { key?: unknown }).key;
  return typeof key === 'string' ? key : undefined;
}
