/**
 * Checking what callers append, before anything is queued: a bad event is rejected on its
 * own and never reaches a batch shared with other callers.
 */
import { canonicalizeJcs, hasLoneSurrogate } from '../core/canonical/jcs.js';
import { PlexusError, toPlexusError } from '../core/errors.js';
import { MAX_JSON_DEPTH, isJsonWithin, type JsonWalkRules } from '../core/recordable.js';
import { EVENT_TYPE_PATTERN_SOURCE } from '../core/records/event.js';
import type { EventInput } from './event-log.js';
import type { AnyEvents } from './event-map.js';

/** The grammar of event types: dotted segments of `[a-z][a-z0-9_]*` (core `Event`). */
export const EVENT_TYPE_PATTERN = new RegExp(EVENT_TYPE_PATTERN_SOURCE);

/** A W3C `traceparent` (version 00), as the core `Event` schema requires for `trace`. */
export const TRACEPARENT_PATTERN = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Deepest accepted nesting of `data`: what the faces accept (`MAX_JSON_DEPTH`, 256) and room
 * for the records that wrap it (`job.submitted` keeps the request at `/request`, its input at
 * `/request/data`).
 */
export const MAX_DATA_DEPTH = MAX_JSON_DEPTH + 16;

const ALLOWED_KEYS = new Set(['type', 'data', 'causation', 'trace', 'tenant']);
const ASSIGNED_KEYS = new Set(['seq', 'cid', 'prev', 'time']);

/** An event input after checking: the canonical text of its data is fixed at append time. */
export interface CheckedInput {
  readonly type: string;
  /** RFC 8785 text of `data`, taken when append was called (later mutation has no effect). */
  readonly dataText: string;
  readonly causation?: string;
  readonly trace?: string;
  readonly tenant?: string;
}

function bad(message: string, pointer: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', message, { details: { pointer } });
}

/** @throws PlexusError `INVALID_PARAMS` unless `type` follows {@link EVENT_TYPE_PATTERN}. */
export function checkEventType(type: unknown, pointer = '/type'): string {
  if (typeof type !== 'string' || type.length === 0) {
    throw bad('event type must be a non-empty string', pointer);
  }
  if (!EVENT_TYPE_PATTERN.test(type)) {
    throw bad(
      `event type ${JSON.stringify(type.slice(0, 140))} must be dotted lower-case words, each [a-z][a-z0-9_]* (e.g. job.completed)`,
      pointer,
    );
  }
  return type;
}

function checkId(value: unknown, name: string, pointer: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw bad(`event ${name} must be a non-empty string when present`, pointer);
  }
  try {
    if (hasLoneSurrogate(value)) canonicalizeJcs(value); // throws the I-JSON refusal
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `event ${name} is not I-JSON: ${toPlexusError(cause).message}`, {
      cause,
      details: { pointer },
    });
  }
  if (name === 'trace' && !TRACEPARENT_PATTERN.test(value)) {
    throw bad('event trace must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)', pointer);
  }
  return value;
}

/**
 * Checks that `value` is plain JSON: objects with the plain prototype, arrays, strings,
 * finite numbers, booleans and null; no cycles; at most {@link MAX_DATA_DEPTH} deep.
 * A `Date`, `Map`, class instance, `undefined` in an array, `NaN` or `bigint` is refused,
 * because JSON would silently change it.
 *
 * @throws PlexusError `INVALID_PARAMS` with the JSON pointer of the first offending value.
 */
export function assertPlainJson(value: unknown, pointer = ''): void {
  // The fast walk builds no pointers; only after a refusal does the slow walk name the place.
  if (!isJsonWithin(value, MAX_DATA_DEPTH, EVENT_DATA)) locatePlainJsonProblem(value, pointer);
}

/** Event data: plain JSON, no `undefined` member; its text is checked by the canonical form after. */
const EVENT_DATA: JsonWalkRules = { losslessNumbers: false, skipUndefinedMembers: false, iJsonText: false };

/** The slow walk after a refusal: throws naming the first offending value and its pointer. */
function locatePlainJsonProblem(value: unknown, pointer: string): void {
  const path = new Set<object>();
  const walk = (v: unknown, at: string, depth: number): void => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) throw bad(`${String(v)} at ${at || '/'} is not a JSON number`, at);
        return;
      case 'object': {
        if (v === null) return;
        if (depth >= MAX_DATA_DEPTH) throw bad(`data is nested deeper than ${MAX_DATA_DEPTH} levels`, at);
        if (path.has(v)) throw bad(`data is cyclic at ${at || '/'}`, at);
        path.add(v);
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            if (!(i in v) || v[i] === undefined)
              throw bad(`array element ${at}/${i} is missing or undefined`, `${at}/${i}`);
            walk(v[i], `${at}/${i}`, depth + 1);
          }
        } else {
          const proto = Object.getPrototypeOf(v) as unknown;
          if (proto !== Object.prototype && proto !== null) {
            throw bad(`value at ${at || '/'} is a ${describe(v)}, not a plain JSON object`, at);
          }
          for (const key of Object.keys(v)) {
            const child = (v as Record<string, unknown>)[key];
            const childAt = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
            if (child === undefined)
              throw bad(`property ${childAt} is undefined; omit it or use null`, childAt);
            walk(child, childAt, depth + 1);
          }
        }
        path.delete(v);
        return;
      }
      default:
        throw bad(`a ${typeof v} at ${at || '/'} is not a JSON value`, at);
    }
  };
  walk(value, pointer, 0);
  throw bad('data is not plain JSON', pointer);
}

function describe(v: object): string {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'non-plain object';
}

/**
 * Checks one event input and fixes its content.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the field (JSON pointer under `pointer`).
 */
export function checkEventInput(input: unknown, pointer = ''): CheckedInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw bad('an event must be an object with type and data', pointer || '/');
  }
  const record = input as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key) || record[key] === undefined) continue;
    if (ASSIGNED_KEYS.has(key))
      throw bad(`event field ${key} is assigned by the log; do not pass it`, `${pointer}/${key}`);
    if (!ALLOWED_KEYS.has(key)) {
      throw bad(
        `unknown event field ${JSON.stringify(key)}; allowed: type, data, causation, trace, tenant`,
        `${pointer}/${key}`,
      );
    }
  }
  const type = checkEventType(record.type, `${pointer}/type`);
  if (!('data' in record) || record.data === undefined) {
    throw bad('event data is required (use null for none)', `${pointer}/data`);
  }
  assertPlainJson(record.data, `${pointer}/data`);
  let dataText: string;
  try {
    dataText = canonicalizeJcs(record.data);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `event data is not I-JSON: ${toPlexusError(cause).message}`, {
      cause,
      details: { pointer: `${pointer}/data` },
    });
  }
  const checked: { -readonly [K in keyof CheckedInput]: CheckedInput[K] } = { type, dataText };
  if (record.causation !== undefined)
    checked.causation = checkId(record.causation, 'causation', `${pointer}/causation`);
  if (record.trace !== undefined) checked.trace = checkId(record.trace, 'trace', `${pointer}/trace`);
  if (record.tenant !== undefined) checked.tenant = checkId(record.tenant, 'tenant', `${pointer}/tenant`);
  return checked;
}

/**
 * Checks one input or a non-empty list of inputs.
 *
 * @throws PlexusError `INVALID_PARAMS` for an empty list or any bad event (pointer `/i/...`).
 */
export function checkEventInputs(
  input: EventInput<AnyEvents> | readonly EventInput<AnyEvents>[],
): readonly CheckedInput[] {
  if (Array.isArray(input)) {
    const list = input as readonly unknown[];
    if (list.length === 0) throw bad('append needs at least one event', '');
    return list.map((item, i) => checkEventInput(item, `/${i}`));
  }
  return [checkEventInput(input)];
}
