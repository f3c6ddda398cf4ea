/**
 * The `Event` record (DESIGN §2, D9): an immutable fact in the node's append-only log.
 * `seq` gives the total order, `cid` is the content id of the event without `seq` (and
 * without `cid` itself), and `prev` is the previous event's `cid`, so the log is a hash
 * chain. The JSON Schema and the TypeScript type are one source of truth.
 */
import type { JsonObject, JsonValue } from '../json.js';
import type { Problem } from '../problem.js';
import { JSON_SCHEMA_DIALECT, schemaValidator, throwIfProblems } from '../schema-validator.js';
import { CID_SCHEMA, DATE_TIME_SCHEMA, NON_EMPTY_STRING_SCHEMA, TRACEPARENT_SCHEMA } from './schema-parts.js';

/** One fact in the log. */
export interface Event {
  /** Position in the log: 1 for the first event, then +1 each (reads are "after seq"). */
  readonly seq: number;
  /** CIDv1 of the event's hashed body ({@link eventHashBody}). */
  readonly cid: string;
  /** The previous event's `cid`; `null` for the first event. */
  readonly prev: string | null;
  /** What happened, dotted lower-case words (`job.submitted`, `agent.registered`). */
  readonly type: string;
  /** The fact's data. */
  readonly data: JsonValue;
  /** What caused it: a message id or another event's `cid`. */
  readonly causation?: string;
  /** W3C `traceparent` of the work that produced it. */
  readonly trace?: string;
  /** Tenant it belongs to. */
  readonly tenant?: string;
  /** When it happened, RFC 3339. */
  readonly time: string;
}

/** The pattern an event type matches: dotted segments of `[a-z][a-z0-9_]*`. */
export const EVENT_TYPE_PATTERN_SOURCE = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$';

/** JSON Schema of the {@link Event}. */
export const EVENT_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/core/event.json',
  title: 'Event',
  description: 'An immutable fact in the append-only log (DESIGN D9).',
  type: 'object',
  required: ['seq', 'cid', 'prev', 'type', 'data', 'time'],
  additionalProperties: false,
  properties: {
    seq: { type: 'integer', minimum: 1 },
    cid: CID_SCHEMA,
    prev: { anyOf: [CID_SCHEMA, { type: 'null' }] },
    type: { type: 'string', pattern: EVENT_TYPE_PATTERN_SOURCE },
    data: true,
    causation: NON_EMPTY_STRING_SCHEMA,
    trace: TRACEPARENT_SCHEMA,
    tenant: NON_EMPTY_STRING_SCHEMA,
    time: DATE_TIME_SCHEMA,
  },
} as const;

/**
 * Every problem of `value` as an Event: the schema, and `prev` is `null` exactly for
 * `seq` 1. (Whether `cid` matches the content is the store's check: it needs hashing.)
 */
export function validateEvent(value: unknown): Problem[] {
  const problems = schemaValidator().validate(EVENT_SCHEMA, value);
  if (typeof value !== 'object' || value === null) return problems;
  const { seq, prev, cid } = value as { seq?: unknown; prev?: unknown; cid?: unknown };
  if (seq === 1 && prev !== null && prev !== undefined) {
    problems.push({ pointer: '/prev', message: 'must be null for the first event (seq 1)' });
  }
  if (typeof seq === 'number' && seq > 1 && prev === null) {
    problems.push({
      pointer: '/prev',
      message: `must be the previous event's cid (seq ${seq} is not the first event)`,
    });
  }
  if (typeof cid === 'string' && cid === prev) {
    problems.push({ pointer: '/prev', message: "must differ from the event's own cid" });
  }
  return problems;
}

/**
 * Returns `value` as an Event when it is one.
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` listing every problem.
 */
export function parseEvent(value: unknown): Event {
  throwIfProblems(validateEvent(value), 'event');
  return value as Event;
}

/**
 * The part of an event its `cid` is computed over (D9): everything but `seq` and `cid`.
 * Hash the `jcs` form of the result.
 */
export function eventHashBody(
  event: Omit<Event, 'seq' | 'cid'> & Partial<Pick<Event, 'seq' | 'cid'>>,
): JsonObject {
  const body: JsonObject = { prev: event.prev, type: event.type, data: event.data, time: event.time };
  if (event.causation !== undefined) body['causation'] = event.causation;
  if (event.trace !== undefined) body['trace'] = event.trace;
  if (event.tenant !== undefined) body['tenant'] = event.tenant;
  return body;
}
