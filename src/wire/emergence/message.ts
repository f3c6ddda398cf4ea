/**
 * The Emergence wire message (seed 000 §1–2, DESIGN D4): exactly the five keys `id`, `from`,
 * `to`, `verb`, `data`, plus extension keys that start with `_x_`.
 */
import type { EnvelopeKind } from '../../core/envelope.js';
import type { JsonObject, JsonValue } from '../../core/json.js';

/** The five keys every Emergence message has, in the seed's order. */
export const EMERGENCE_KEYS = ['id', 'from', 'to', 'verb', 'data'] as const;

/** One of {@link EMERGENCE_KEYS}. */
export type EmergenceKey = (typeof EMERGENCE_KEYS)[number];

/**
 * The seed's four core verbs and the {@link EnvelopeKind} each decodes to. Any other
 * ALL-CAPS verb is syntactically valid and decodes as a `request` (the node answers ERROR 501
 * when nobody offers it, D4).
 */
export const EMERGENCE_VERB_KINDS = {
  HELLO: 'hello',
  HELP: 'request',
  DONE: 'response',
  ERROR: 'error',
} as const satisfies Record<string, EnvelopeKind>;

/** One of the seed's core verbs: HELLO, HELP, DONE, ERROR. */
export type EmergenceCoreVerb = keyof typeof EMERGENCE_VERB_KINDS;

/** What a verb must look like: ALL-CAPS, digits and `_` after the first letter (D4). */
export const EMERGENCE_VERB_PATTERN = /^[A-Z][A-Z0-9_]*$/;

/**
 * A UUID version 4 (RFC 9562): version nibble `4`, variant bits `10` (`8`, `9`, `a` or `b`).
 * Either letter case is accepted, as RFC 9562 asks of readers; the case is kept as sent.
 */
export const UUID_V4_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The prefix of an Emergence extension key. */
export const EMERGENCE_EXTENSION_PREFIX = '_x_';

/**
 * The extension key under which Plexus sends the full Plexus error next to an ERROR built from
 * an `ErrorData` (`{code, retryable, details?}`), so a Plexus peer can restore it exactly.
 */
export const PLEXUS_ERROR_EXTENSION = '_x_plexus_error';

/** An Emergence message as it travels. */
export interface EmergenceMessage {
  /** UUID v4; a reply reuses its request's id. */
  readonly id: string;
  /** The sender's agent id; never `broadcast`. */
  readonly from: string;
  /** The receiver's agent id, or `broadcast`. */
  readonly to: string;
  /** An ALL-CAPS verb. */
  readonly verb: string;
  /** The verb's payload; always an object (may be empty). */
  readonly data: JsonObject;
  /** Extension keys. */
  readonly [extension: `_x_${string}`]: JsonValue;
}

/** The `data` of a DONE: `result`, plus any other keys (kept as sent). */
export interface EmergenceDoneData {
  readonly result: JsonValue;
  readonly [key: string]: JsonValue;
}

/** The `data` of an ERROR: an integer `code` (HTTP-style) and `msg`, plus any other keys. */
export interface EmergenceErrorData {
  readonly code: number;
  readonly msg: string;
  readonly [key: string]: JsonValue;
}

/**
 * The envelope kind an Emergence verb decodes to: the core verbs by
 * {@link EMERGENCE_VERB_KINDS}, every other verb `request`.
 *
 * Assumes `verb` already matches {@link EMERGENCE_VERB_PATTERN}.
 */
export function emergenceKindOfVerb(verb: string): EnvelopeKind {
  return Object.prototype.hasOwnProperty.call(EMERGENCE_VERB_KINDS, verb)
    ? EMERGENCE_VERB_KINDS[verb as EmergenceCoreVerb]
    : 'request';
}

/** True when `verb` is one of HELLO, HELP, DONE, ERROR. */
export function isEmergenceCoreVerb(verb: string): verb is EmergenceCoreVerb {
  return Object.prototype.hasOwnProperty.call(EMERGENCE_VERB_KINDS, verb);
}
