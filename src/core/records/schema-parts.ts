/**
 * JSON Schema fragments shared by the core record schemas: non-empty strings, RFC 3339
 * date-times, verb names, extension maps, the signature block and the wire form of an error.
 *
 * Fragments carry no `$id`, so they can be embedded in any number of schemas.
 */
import { ERROR_HINTS_SCHEMA } from '../error-recovery.js';
import { ERROR_CODES } from '../errors.js';
import { VERB_NAME_PATTERN_SOURCE } from '../verb-name.js';

/** A non-empty string. */
export const NON_EMPTY_STRING_SCHEMA = { type: 'string', minLength: 1 } as const;

/** An RFC 3339 date-time with a time zone. */
export const DATE_TIME_SCHEMA = { type: 'string', format: 'date-time' } as const;

/** An RFC 3339 full-date (`YYYY-MM-DD`). */
export const DATE_SCHEMA = { type: 'string', format: 'date' } as const;

/** A verb name with an optional `@version` (D6; segment length is checked by `parseVerbName`). */
export const VERB_NAME_SCHEMA = { type: 'string', pattern: VERB_NAME_PATTERN_SOURCE } as const;

/** A verb era: an integer ≥ 1 or a `YYYY-MM` string. */
export const VERB_VERSION_SCHEMA = {
  oneOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' },
  ],
} as const;

/** Lower-case SHA-256 hex. */
export const SHA256_HEX_SCHEMA = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

/** A W3C trace context `traceparent` value (version 00). */
export const TRACEPARENT_SCHEMA = {
  type: 'string',
  pattern: '^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$',
} as const;

/**
 * A W3C trace context `tracestate` value. Any string: a malformed or oversized one is dropped
 * where it is used (`cleanTracestate`, OBS-45), never refused.
 */
export const TRACESTATE_SCHEMA = { type: 'string' } as const;

/** A CIDv1 in its base32 multibase string form (`b…`). */
export const CID_SCHEMA = { type: 'string', pattern: '^b[a-z2-7]{8,}$' } as const;

/** Any JSON Schema (an object or a boolean); its own validity is checked when it is compiled. */
export const ANY_SCHEMA_SCHEMA = { type: ['object', 'boolean'] } as const;

/** An extensions map: every key starts with `_x_`. */
export const EXTENSIONS_SCHEMA = {
  type: 'object',
  propertyNames: { type: 'string', pattern: '^_x_' },
} as const;

/** The D3 signature block (`v`, `ts`, `nonce`, `from`, `pk`, `sig`). */
export const SIGNATURE_SCHEMA = {
  type: 'object',
  required: ['v', 'ts', 'nonce', 'from', 'pk', 'sig'],
  additionalProperties: false,
  properties: {
    v: { const: 2 },
    ts: { type: 'integer', minimum: 0 },
    nonce: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' },
    from: NON_EMPTY_STRING_SCHEMA,
    pk: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    sig: { type: 'string', pattern: '^[A-Za-z0-9_-]{86}$' },
    dom: NON_EMPTY_STRING_SCHEMA,
  },
} as const;

/** The wire-safe form of a PlexusError (`ErrorData` of `core/errors.ts`). */
export const ERROR_DATA_SCHEMA = {
  type: 'object',
  required: ['code', 'message', 'retryable'],
  additionalProperties: false,
  properties: {
    code: { enum: ERROR_CODES },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
    details: { type: 'object' },
    hints: ERROR_HINTS_SCHEMA,
  },
} as const;
