/**
 * The hash chain of the event log (D9): sealing an input into an {@link Event} (its `cid`,
 * `prev`, `seq`, `time`) and checking a stored event against its neighbour.
 *
 * Sealing builds the RFC 8785 text of the hashed body directly from the pre-canonicalised
 * data (fast path); verification recomputes it independently through the core `eventCid`
 * (slow path), so the two keep each other honest.
 */
import { toPlexusError } from '../core/errors.js';
import { eventCid } from '../core/cid.js';
import type { JsonValue } from '../core/json.js';
import { validateEvent, type Event } from '../core/records/event.js';
import { eventCidFromCanonical } from './event-cid.js';
import type { CheckedInput } from './event-input.js';
import type { ChainFault } from './event-log.js';

/** The `prev` of the first event: `null` (there is no genesis event). */
export const GENESIS_PREV = null;

/** Freezes a JSON value and everything inside it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Index and for-in loops: no array of values is allocated per object.
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) deepFreeze(value[i] as unknown);
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) if (Object.hasOwn(record, key)) deepFreeze(record[key]);
    }
  }
  return value;
}

/**
 * The RFC 8785 text of the hashed body of an event whose data text is already canonical.
 * Keys in RFC 8785 order: causation, data, prev, tenant, time, trace, type.
 */
export function hashedBodyText(input: CheckedInput, prev: string | null, time: string): string {
  let text = '{';
  if (input.causation !== undefined) text += `"causation":${JSON.stringify(input.causation)},`;
  text += `"data":${input.dataText},"prev":${prev === null ? 'null' : JSON.stringify(prev)}`;
  if (input.tenant !== undefined) text += `,"tenant":${JSON.stringify(input.tenant)}`;
  text += `,"time":${JSON.stringify(time)}`;
  if (input.trace !== undefined) text += `,"trace":${JSON.stringify(input.trace)}`;
  return text + `,"type":${JSON.stringify(input.type)}}`;
}

/**
 * Seals a checked input at position `seq` after `prev`, stamped `time`. The result is frozen
 * (its data is a fresh copy parsed from the canonical text).
 */
export function sealEvent(input: CheckedInput, seq: number, prev: string | null, time: string): Event {
  return eventOf(input, seq, eventCidFromCanonical(hashedBodyText(input, prev, time)), prev, time);
}

/**
 * The frozen {@link Event} of a checked input whose `cid` is already computed (sealed
 * elsewhere, e.g. on the SQLite writer thread). Its data is a fresh copy parsed from the
 * canonical text.
 */
export function eventOf(
  input: CheckedInput,
  seq: number,
  cid: string,
  prev: string | null,
  time: string,
): Event {
  const event: { -readonly [K in keyof Event]: Event[K] } = {
    seq,
    cid,
    prev,
    type: input.type,
    data: JSON.parse(input.dataText) as JsonValue,
    time,
  };
  if (input.causation !== undefined) event.causation = input.causation;
  if (input.trace !== undefined) event.trace = input.trace;
  if (input.tenant !== undefined) event.tenant = input.tenant;
  return deepFreeze(event);
}

/** Recomputes the `cid` of a stored event from its content (the slow, independent path). */
export function recomputeCid(event: Event): string {
  return eventCid(event);
}

/** A broken link: what is wrong and a sentence saying so. */
export interface LinkFault {
  readonly fault: ChainFault;
  readonly reason: string;
}

/**
 * Checks `event` as the successor of (`expectedSeq` − 1, `expectedPrev`): its seq, its prev
 * link, its shape and its cid, in that order. Returns `undefined` when all hold.
 */
export function checkLink(
  event: Event,
  expectedSeq: number,
  expectedPrev: string | null,
): LinkFault | undefined {
  if (event.seq !== expectedSeq) {
    return {
      fault: 'seq-gap',
      reason: `expected seq ${expectedSeq} but found ${event.seq}: events are missing or out of order`,
    };
  }
  if (event.prev !== expectedPrev) {
    return {
      fault: 'prev-mismatch',
      reason: `prev is ${JSON.stringify(event.prev)} but the previous event's cid is ${JSON.stringify(expectedPrev)}`,
    };
  }
  const problems = validateEvent(event);
  if (problems.length > 0) {
    const first = problems[0];
    return {
      fault: 'malformed',
      reason: `the event is not a valid Event: ${first?.pointer ?? ''} ${first?.message ?? ''}`.trim(),
    };
  }
  let actual: string;
  try {
    actual = recomputeCid(event);
  } catch (error) {
    return {
      fault: 'malformed',
      reason: `the event cannot be canonicalised: ${toPlexusError(error).message}`,
    };
  }
  if (actual !== event.cid) {
    return {
      fault: 'cid-mismatch',
      reason: `stored cid ${event.cid} does not match the content, which hashes to ${actual}: the event was altered`,
    };
  }
  return undefined;
}
