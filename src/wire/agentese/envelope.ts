/**
 * The AGENTESE v2 envelope on the wire (seed 002 §2.1–2.2, DESIGN D6): the seed's fields in
 * its snake_case, the invocation's input in `input`, and `_x_` extension members.
 *
 * ```json
 * { "verb": "soul.memory.recall", "version": 1, "tenant_id": "tenant_001", "user_id": "u1",
 *   "session_id": "s1", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7",
 *   "capability": "eyJ…", "timestamp": "2025-12-15T10:30:00Z", "deadline": "2025-12-15T10:30:30Z",
 *   "target": "local://soul", "fallback_policy": "default", "input": { "query": "last conversation" } }
 * ```
 */
import type { EnvelopeSignature } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import {
  DATE_TIME_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SIGNATURE_SCHEMA,
  TRACEPARENT_SCHEMA,
  VERB_VERSION_SCHEMA,
} from '../../core/records/schema-parts.js';
import { JSON_SCHEMA_DIALECT } from '../../core/schema-validator.js';
import type { VerbVersion } from '../../core/verb-name.js';

/** The UCAN-style capability object of seed 002 §2.2, as JSON. */
export interface AgenteseCapability {
  /** Who granted it (a DID). */
  readonly issuer: string;
  /** Who may use it (a DID). */
  readonly audience: string;
  /** Allowed scopes (`atelier:write`). */
  readonly scopes: readonly string[];
  /** Allowed resources (`session/*`). */
  readonly resources: readonly string[];
  /** Valid from, RFC 3339. */
  readonly not_before: string;
  /** Valid until, RFC 3339. */
  readonly expires_at: string;
  /** Further restrictions. */
  readonly caveats?: readonly JsonValue[];
  /** The signature chain. */
  readonly proof: string;
  /** The delegation parent, when delegated. */
  readonly parent?: string | null;
}

/** An AGENTESE envelope with its input. Top-level keys starting `_x_` are extensions. */
export interface AgenteseEnvelope {
  /** `namespace.resource.action`, optionally with `@version`. */
  readonly verb: string;
  /** The era; must equal the verb's own `@version` when both are given. */
  readonly version?: VerbVersion;
  /** Tenant (multi-tenant isolation). */
  readonly tenant_id: string;
  /** Invoking user. */
  readonly user_id: string;
  /** Session context. */
  readonly session_id: string;
  /** Distributed trace id (W3C hex or any other string). */
  readonly trace_id: string;
  /** This invocation's span id. */
  readonly span_id: string;
  /** The parent span, when nested. */
  readonly parent_span_id?: string | null;
  /** A capability token (UCAN JWT) or the capability object. */
  readonly capability: string | AgenteseCapability;
  /** Creation time, RFC 3339. */
  readonly timestamp: string;
  /** When the caller stops waiting, RFC 3339; after `timestamp`. */
  readonly deadline?: string | null;
  /** Routing hint (`town://citizen/alpha`, `p2p://did:key:…`). */
  readonly target?: string | null;
  /** Fallback policy name or chain (`local-llm → cloud → error`); absent = the node's default. */
  readonly fallback_policy?: string;
  /** The verb's input. */
  readonly input: JsonValue;
  /** Extensions. */
  readonly [extension: `_x_${string}`]: JsonValue | EnvelopeSignature | undefined;
}

/** Core extension keys the AGENTESE codec writes for what the core envelope has no field for. */
export const AGENTESE_EXTENSIONS = {
  /** `trace_id` as sent, when `trace_id`/`span_id` are not W3C ids. */
  traceId: '_x_agentese_trace_id',
  /** `span_id` as sent, when `trace_id`/`span_id` are not W3C ids. */
  spanId: '_x_agentese_span_id',
  /** `parent_span_id`. */
  parentSpanId: '_x_agentese_parent_span_id',
  /** `target`. */
  target: '_x_agentese_target',
  /** `fallback_policy`. */
  fallbackPolicy: '_x_agentese_fallback_policy',
  /** `capability`, when it is an object rather than a token string. */
  capability: '_x_agentese_capability',
} as const;

/** The prefix of the core-side AGENTESE extensions; a wire message may not use it. */
export const AGENTESE_EXTENSION_PREFIX = '_x_agentese_';

/**
 * The prefix of wire members that carry core fields AGENTESE has no place for
 * (`_x_plexus_id`, `_x_plexus_correlationId`, …).
 */
export const PLEXUS_CARRY_PREFIX = '_x_plexus_';

/**
 * The core fields carried in `_x_plexus_<field>` wire members when they differ from what
 * decoding derives (`id` from `span_id`, `from` from `user_id`, `to` = `capability:<verb>`,
 * `traceparent` from the W3C ids; the others are never derived).
 */
export const CARRIED_CORE_FIELDS = [
  'id',
  'from',
  'to',
  'correlationId',
  'causationId',
  'scopeId',
  'schemaVersion',
  'signature',
  'traceparent',
] as const;
/** One of {@link CARRIED_CORE_FIELDS}. */
export type CarriedCoreField = (typeof CARRIED_CORE_FIELDS)[number];

const NULLABLE_STRING = { type: ['string', 'null'], minLength: 1 } as const;

/** JSON Schema of {@link AgenteseCapability}. */
export const AGENTESE_CAPABILITY_SCHEMA = {
  type: 'object',
  required: ['issuer', 'audience', 'scopes', 'resources', 'not_before', 'expires_at', 'proof'],
  additionalProperties: false,
  properties: {
    issuer: { type: 'string', pattern: '^did:' },
    audience: { type: 'string', pattern: '^did:' },
    scopes: { type: 'array', items: NON_EMPTY_STRING_SCHEMA, uniqueItems: true },
    resources: { type: 'array', items: NON_EMPTY_STRING_SCHEMA, uniqueItems: true },
    not_before: DATE_TIME_SCHEMA,
    expires_at: DATE_TIME_SCHEMA,
    caveats: { type: 'array' },
    proof: { type: 'string' },
    parent: NULLABLE_STRING,
  },
} as const;

/** JSON Schema of the AGENTESE envelope (shape only; verb and time rules are in `validateAgentese`). */
export const AGENTESE_ENVELOPE_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/wire/agentese-envelope-2.json',
  title: 'AgenteseEnvelope',
  description: 'The AGENTESE v2 invocation envelope (seed 002 §2.1) with its input.',
  type: 'object',
  required: [
    'verb',
    'tenant_id',
    'user_id',
    'session_id',
    'trace_id',
    'span_id',
    'capability',
    'timestamp',
    'input',
  ],
  additionalProperties: false,
  patternProperties: { '^_x_': true },
  properties: {
    verb: { type: 'string' },
    version: VERB_VERSION_SCHEMA,
    tenant_id: NON_EMPTY_STRING_SCHEMA,
    user_id: NON_EMPTY_STRING_SCHEMA,
    session_id: NON_EMPTY_STRING_SCHEMA,
    trace_id: NON_EMPTY_STRING_SCHEMA,
    span_id: NON_EMPTY_STRING_SCHEMA,
    parent_span_id: NULLABLE_STRING,
    capability: { anyOf: [NON_EMPTY_STRING_SCHEMA, AGENTESE_CAPABILITY_SCHEMA] },
    timestamp: DATE_TIME_SCHEMA,
    deadline: { anyOf: [DATE_TIME_SCHEMA, { type: 'null' }] },
    target: NULLABLE_STRING,
    fallback_policy: NON_EMPTY_STRING_SCHEMA,
    input: true,
    _x_plexus_id: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_from: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_to: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_correlationId: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_causationId: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_scopeId: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_schemaVersion: NON_EMPTY_STRING_SCHEMA,
    _x_plexus_signature: SIGNATURE_SCHEMA,
    _x_plexus_traceparent: { anyOf: [TRACEPARENT_SCHEMA, { type: 'null' }] },
  },
} as const;
