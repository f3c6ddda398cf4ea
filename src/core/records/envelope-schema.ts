/**
 * The JSON Schema (2020-12) of the core {@link Envelope} (`src/core/envelope.ts`) and its
 * validator. The TypeScript type lives beside the model; this schema is aligned with it
 * field for field (a type-level test checks the property names).
 */
import { ENVELOPE_KINDS } from '../envelope.js';
import type { Envelope } from '../envelope.js';
import type { Problem } from '../problem.js';
import { JSON_SCHEMA_DIALECT, schemaValidator, throwIfProblems } from '../schema-validator.js';
import { compareDateTimes, isDateTime } from './datetime.js';
import {
  DATE_TIME_SCHEMA,
  ERROR_DATA_SCHEMA,
  EXTENSIONS_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SIGNATURE_SCHEMA,
  TRACEPARENT_SCHEMA,
  TRACESTATE_SCHEMA,
} from './schema-parts.js';

/** JSON Schema of the core Envelope. For `kind: "error"`, `data` must be an `ErrorData`. */
export const ENVELOPE_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/core/envelope.json',
  title: 'Envelope',
  description: 'The one internal message of Plexus (DESIGN §2).',
  type: 'object',
  required: ['id', 'kind', 'from', 'to', 'verb', 'data'],
  additionalProperties: false,
  properties: {
    id: NON_EMPTY_STRING_SCHEMA,
    kind: { enum: ENVELOPE_KINDS },
    from: NON_EMPTY_STRING_SCHEMA,
    to: NON_EMPTY_STRING_SCHEMA,
    verb: { type: 'string' },
    data: true,
    correlationId: NON_EMPTY_STRING_SCHEMA,
    causationId: NON_EMPTY_STRING_SCHEMA,
    scopeId: NON_EMPTY_STRING_SCHEMA,
    sessionId: NON_EMPTY_STRING_SCHEMA,
    tenantId: NON_EMPTY_STRING_SCHEMA,
    userId: NON_EMPTY_STRING_SCHEMA,
    traceparent: TRACEPARENT_SCHEMA,
    tracestate: TRACESTATE_SCHEMA,
    timestamp: DATE_TIME_SCHEMA,
    deadline: DATE_TIME_SCHEMA,
    capability: NON_EMPTY_STRING_SCHEMA,
    signature: SIGNATURE_SCHEMA,
    schemaVersion: NON_EMPTY_STRING_SCHEMA,
    extensions: EXTENSIONS_SCHEMA,
  },
  if: { properties: { kind: { const: 'error' } }, required: ['kind'] },
  then: { properties: { data: ERROR_DATA_SCHEMA } },
} as const;

/**
 * Every problem of `value` as a core Envelope: the schema, plus `deadline` not before
 * `timestamp`.
 */
export function validateEnvelope(value: unknown): Problem[] {
  const problems = schemaValidator().validate(ENVELOPE_SCHEMA, value);
  if (typeof value === 'object' && value !== null) {
    const { timestamp, deadline } = value as { timestamp?: unknown; deadline?: unknown };
    if (isDateTime(timestamp) && isDateTime(deadline) && compareDateTimes(deadline, timestamp) < 0) {
      problems.push({ pointer: '/deadline', message: `must not be before the timestamp ${timestamp}` });
    }
  }
  return problems;
}

/**
 * Returns `value` as an Envelope when it is one.
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` listing every problem.
 */
export function parseEnvelope(value: unknown): Envelope {
  throwIfProblems(validateEnvelope(value), 'envelope', 'INVALID_REQUEST');
  return value as Envelope;
}
