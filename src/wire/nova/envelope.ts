/**
 * The Nova26 A2A envelope on the wire (seed 004 Req. 2, 4, 13; DESIGN D11): field names,
 * message types, schema versions, addressing, and its JSON Schema.
 *
 * ```json
 * { "schemaVersion": "1.0", "id": "…", "type": "request", "from": "agent-a", "to": "agent-b",
 *   "correlationId": "…", "timestamp": "2025-01-01T00:00:00Z", "payload": {…},
 *   "verb": "code.review.run", "metadata": { "tenantId": "…", "traceparent": "…" } }
 * ```
 */
import type { EnvelopeSignature } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import {
  DATE_TIME_SCHEMA,
  ERROR_DATA_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SIGNATURE_SCHEMA,
  TRACEPARENT_SCHEMA,
} from '../../core/records/schema-parts.js';
import { JSON_SCHEMA_DIALECT } from '../../core/schema-validator.js';

/** The ten Nova26 message types (Req. 2.5). */
export const NOVA_MESSAGE_TYPES = [
  'request',
  'response',
  'notification',
  'task-proposal',
  'task-accept',
  'task-reject',
  'stream-start',
  'stream-data',
  'stream-end',
  'error',
] as const;
/** One of {@link NOVA_MESSAGE_TYPES}. */
export type NovaMessageType = (typeof NOVA_MESSAGE_TYPES)[number];

/** The schema version this node writes (Req. 13.6). */
export const NOVA_SCHEMA_VERSION = '1.0';
/** Every schema version this node reads; anything else is a version mismatch (Req. 13.7). */
export const NOVA_SUPPORTED_SCHEMA_VERSIONS: readonly string[] = [NOVA_SCHEMA_VERSION];

/** The broadcast marker Plexus writes (D11). */
export const NOVA_BROADCAST = 'broadcast';
/** The broadcast alias the Nova face also reads (D11). */
export const NOVA_BROADCAST_ALIAS = '*';

/**
 * Routing metadata: the core envelope's context fields, by their core names, plus any other
 * routing keys a Nova agent sends (kept as they are).
 */
export interface NovaMetadata {
  readonly causationId?: string;
  readonly scopeId?: string;
  readonly sessionId?: string;
  readonly tenantId?: string;
  readonly userId?: string;
  readonly traceparent?: string;
  readonly deadline?: string;
  readonly capability?: string;
  readonly signature?: EnvelopeSignature;
  readonly [key: string]: JsonValue | EnvelopeSignature | undefined;
}

/** A Nova26 A2A envelope. Top-level keys starting `_x_` are extensions. */
export interface NovaEnvelope {
  /** Wire format version, `"1.0"`. */
  readonly schemaVersion: string;
  /** Unique message id. */
  readonly id: string;
  /** Message type. */
  readonly type: NovaMessageType;
  /** Sender agent id. */
  readonly from: string;
  /** Recipient: an agent id, `broadcast` (or `*`), or `capability:<verb>`. */
  readonly to: string;
  /** Conversation thread; the first message of a thread uses its own id. */
  readonly correlationId: string;
  /** Creation time, RFC 3339. */
  readonly timestamp: string;
  /** The message body; for `type: "error"` the core `ErrorData` (`{code, message, retryable, details?}`). */
  readonly payload: JsonValue;
  /** The verb (capability) invoked or answered, when there is one. */
  readonly verb?: string;
  /** Routing metadata. */
  readonly metadata?: NovaMetadata;
  /** Extensions: any other key must start with `_x_`. */
  readonly [extension: `_x_${string}`]: JsonValue | undefined;
}

/** The metadata keys that carry core envelope fields. */
export const NOVA_METADATA_CORE_KEYS = [
  'causationId',
  'scopeId',
  'sessionId',
  'tenantId',
  'userId',
  'traceparent',
  'deadline',
  'capability',
  'signature',
] as const;

/** JSON Schema of the Nova envelope, schema version 1.0. */
export const NOVA_ENVELOPE_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/wire/nova-envelope-1.0.json',
  title: 'NovaEnvelope',
  description: 'The Nova26 A2A envelope (seed 004 Req. 2, 13), schema version 1.0.',
  type: 'object',
  required: ['schemaVersion', 'id', 'type', 'from', 'to', 'correlationId', 'timestamp', 'payload'],
  additionalProperties: false,
  patternProperties: { '^_x_': true },
  properties: {
    schemaVersion: { type: 'string' },
    id: NON_EMPTY_STRING_SCHEMA,
    type: { enum: NOVA_MESSAGE_TYPES },
    from: { type: 'string', minLength: 1, not: { enum: [NOVA_BROADCAST, NOVA_BROADCAST_ALIAS] } },
    to: NON_EMPTY_STRING_SCHEMA,
    correlationId: NON_EMPTY_STRING_SCHEMA,
    timestamp: DATE_TIME_SCHEMA,
    payload: true,
    verb: NON_EMPTY_STRING_SCHEMA,
    metadata: {
      type: 'object',
      properties: {
        causationId: NON_EMPTY_STRING_SCHEMA,
        scopeId: NON_EMPTY_STRING_SCHEMA,
        sessionId: NON_EMPTY_STRING_SCHEMA,
        tenantId: NON_EMPTY_STRING_SCHEMA,
        userId: NON_EMPTY_STRING_SCHEMA,
        traceparent: TRACEPARENT_SCHEMA,
        deadline: DATE_TIME_SCHEMA,
        capability: NON_EMPTY_STRING_SCHEMA,
        signature: SIGNATURE_SCHEMA,
      },
    },
  },
  if: { properties: { type: { const: 'error' } }, required: ['type'] },
  then: { properties: { payload: ERROR_DATA_SCHEMA } },
} as const;
