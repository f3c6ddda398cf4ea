/**
 * The one internal error model (DESIGN D10).
 *
 * Every failure inside Plexus is a {@link PlexusError} with a code from the closed set
 * {@link ERROR_CODES}. Each code has a fixed `retryable` default, an AGENTESE error category and
 * a one-line summary ({@link ERROR_TABLE}); nothing here knows a face. Each face keeps its own
 * table from code to wire form, declared `satisfies Record<PlexusErrorCode, …>` so a code it
 * does not map is a compile error: `wire/jsonrpc/error-table.ts` (JSON-RPC and Hyperspace),
 * `wire/esrp/error-table.ts`, `wire/emergence/error-table.ts`, `transports/http/http-status.ts`.
 */
import { PLEXUS_ERROR_BRAND } from './is-plexus-error.js';
import type { JsonObject } from './json.js';

/** The AGENTESE v2 error categories (seed 002 §8.1). */
export type AgenteseCategory =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition'
  | 'quota_exceeded'
  | 'timeout'
  | 'unavailable'
  | 'internal'
  /** A consent or ethical refusal: a result, never an error code's category (seed 002 §8.3, D10). */
  | 'refused';

/** What one error code means whatever the face: its retry default, category and summary. */
export interface ErrorTranslation {
  /** Whether a caller may retry the same request unchanged. */
  readonly retryable: boolean;
  /** AGENTESE error category. */
  readonly category: AgenteseCategory;
  /** One line saying what the code means, for docs and `--help`. */
  readonly summary: string;
}

/**
 * Every error code Plexus uses, with what it means on any face. The set is closed: adding a
 * code means adding a row here, and then every face's table fails to compile until it maps it.
 */
export const ERROR_TABLE = {
  // Malformed input
  PARSE_ERROR: { retryable: false, category: 'invalid_input', summary: 'The input is not valid JSON.' },
  INVALID_REQUEST: {
    retryable: false,
    category: 'invalid_input',
    summary: 'The message does not have the shape the protocol requires.',
  },
  INVALID_PARAMS: {
    retryable: false,
    category: 'invalid_input',
    summary: 'A field has the wrong type or is missing.',
  },
  INVALID_SEMANTIC: {
    retryable: false,
    category: 'invalid_input',
    summary: 'The input is well formed but its values are not acceptable.',
  },
  INPUT_TOO_LARGE: {
    retryable: false,
    category: 'invalid_input',
    summary: 'The input is larger than the limit.',
  },
  VERSION_MISMATCH: {
    retryable: false,
    category: 'invalid_input',
    summary: 'The message declares a schema or protocol version this node does not speak.',
  },
  UNKNOWN_VERB: { retryable: false, category: 'not_found', summary: 'No agent here offers that verb.' },
  NOT_FOUND: {
    retryable: false,
    category: 'not_found',
    summary: 'The named agent, job or resource does not exist.',
  },
  SESSION_NOT_FOUND: { retryable: false, category: 'not_found', summary: 'The session id is unknown.' },
  CONFLICT: {
    retryable: false,
    category: 'conflict',
    summary: 'The request conflicts with the current state.',
  },
  PRECONDITION_FAILED: {
    retryable: false,
    category: 'precondition',
    summary: 'A guard condition did not hold.',
  },
  // Authentication and signatures
  UNAUTHORIZED: { retryable: false, category: 'unauthorized', summary: 'No valid credential was presented.' },
  FORBIDDEN: { retryable: false, category: 'forbidden', summary: 'The credential does not allow this.' },
  SIGNATURE_INVALID: {
    retryable: false,
    category: 'unauthorized',
    summary: 'The signature does not match the signed content.',
  },
  SIGNATURE_DOMAIN_MISMATCH: {
    retryable: false,
    category: 'unauthorized',
    summary: 'The signature was made for another domain (topic or verb).',
  },
  SIGNATURE_EXPIRED: {
    retryable: false,
    category: 'unauthorized',
    summary: 'The signed timestamp is outside the accepted window.',
  },
  SIGNATURE_REPLAYED: {
    retryable: false,
    category: 'unauthorized',
    summary: 'The nonce was already seen inside the replay window.',
  },
  SIGNER_MISMATCH: {
    retryable: false,
    category: 'unauthorized',
    summary: 'The `from` identity does not belong to the public key.',
  },
  MALFORMED_ENVELOPE: {
    retryable: false,
    category: 'invalid_input',
    summary: 'A signed-envelope field is missing or malformed.',
  },
  // Resources and policy (Hyperspace −32002…−32008)
  BUDGET_EXCEEDED: {
    retryable: false,
    category: 'quota_exceeded',
    summary: 'The operation would exceed the budget.',
  },
  RATE_LIMITED: {
    retryable: true,
    category: 'quota_exceeded',
    summary: 'Too many requests; retry after the window resets.',
  },
  SAFETY_VIOLATION: {
    retryable: false,
    category: 'precondition',
    summary: 'The content breaks the safety policy.',
  },
  LOOP_DETECTED: { retryable: false, category: 'precondition', summary: 'A recursive loop was detected.' },
  PEER_UNAVAILABLE: {
    retryable: true,
    category: 'unavailable',
    summary: 'The target peer or backend cannot be reached.',
  },
  REPLICATION_FAILED: {
    retryable: true,
    category: 'unavailable',
    summary: 'A write did not reach its replication factor.',
  },
  TRAJECTORY_REJECTED: {
    retryable: false,
    category: 'invalid_input',
    summary: 'The trajectory failed validation.',
  },
  // Runtime
  TIMEOUT: { retryable: true, category: 'timeout', summary: 'The deadline passed before the work finished.' },
  CANCELLED: { retryable: false, category: 'conflict', summary: 'The job was cancelled.' },
  UNAVAILABLE: {
    retryable: true,
    category: 'unavailable',
    summary: 'A transient failure; retry with back-off.',
  },
  OUT_OF_MEMORY: { retryable: true, category: 'unavailable', summary: 'The backend ran out of memory.' },
  // Versioning (seed 002 §10.3): the era is past its sunset and no longer served
  VERB_SUNSET: {
    retryable: false,
    category: 'not_found',
    summary: 'The verb era is past its sunset date and no longer served; call its replacement.',
  },
  INTERNAL: { retryable: false, category: 'internal', summary: 'An unexpected failure inside Plexus.' },
} as const satisfies Record<string, ErrorTranslation>;

/** The closed set of Plexus error codes. */
export type PlexusErrorCode = keyof typeof ERROR_TABLE;

/** Every error code, in table order. */
export const ERROR_CODES = Object.keys(ERROR_TABLE) as readonly PlexusErrorCode[];

/** True when `code` is one of {@link ERROR_CODES}. */
export function isPlexusErrorCode(code: unknown): code is PlexusErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, code);
}

/** Options for {@link PlexusError}. */
export interface PlexusErrorInit {
  /** The underlying error, kept for diagnosis. */
  readonly cause?: unknown;
  /** Overrides the code's default `retryable`. */
  readonly retryable?: boolean;
  /** Structured details safe to send on the wire (e.g. `{ pointer: '/inputs' }`). */
  readonly details?: JsonObject;
  /** Recovery hints and context (seed 002 §8.2); the code's defaults fill the gaps on the wire. */
  readonly hints?: ErrorHints;
}

/**
 * The recovery hints and context of an error (seed 002 §8.2 `AgentError`), beyond its code and
 * message. Every member is optional: faces fill `retryAfter` and `suggestedAction` from the
 * code's defaults ({@link ERROR_HINT_DEFAULTS}) and `verb` / `traceId` from the request.
 */
export interface ErrorHints {
  /** When to retry, whole seconds (retryable errors). */
  readonly retryAfter?: number;
  /** A verb to call instead (`name@version`), e.g. the replacement of a sunset era. */
  readonly fallbackVerb?: string;
  /** What the caller should do, in a sentence. */
  readonly suggestedAction?: string;
  /** The verb the failed request called. */
  readonly verb?: string;
  /** The W3C trace id (32 hex digits) of the failed request. */
  readonly traceId?: string;
}

/** The wire-safe form of a {@link PlexusError}: what an error envelope's `data` holds. */
export interface ErrorData {
  readonly code: PlexusErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: JsonObject;
  /** Recovery hints set where the error was raised (absent when none were). */
  readonly hints?: ErrorHints;
}

/**
 * The base error of Plexus: a code from the closed set, a message a person can act on,
 * `retryable`, optional wire-safe `details`, and the original `cause`.
 *
 * @example
 * throw new PlexusError('INVALID_PARAMS', 'inputs must be a non-empty array', { details: { pointer: '/inputs' } });
 */
export class PlexusError extends Error {
  /** The error code. */
  readonly code: PlexusErrorCode;
  /** Whether the same request may be retried unchanged. */
  readonly retryable: boolean;
  /** Wire-safe structured details. */
  readonly details: JsonObject | undefined;
  /** Recovery hints set where the error was raised. */
  readonly hints: ErrorHints | undefined;
  /** The cross-copy brand `isPlexusError` checks (on the prototype, so subclasses carry it). */
  declare readonly [PLEXUS_ERROR_BRAND]: true;

  static {
    Object.defineProperty(this.prototype, PLEXUS_ERROR_BRAND, { value: true });
  }

  constructor(code: PlexusErrorCode, message: string, init: PlexusErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PlexusError';
    this.code = code;
    this.retryable = init.retryable ?? ERROR_TABLE[code].retryable;
    this.details = init.details;
    this.hints = init.hints;
  }

  /** The face-independent row of this error's code (retryable default, category, summary). */
  get translation(): ErrorTranslation {
    return ERROR_TABLE[this.code];
  }

  /** The wire-safe form (no stack, no cause). */
  toData(): ErrorData {
    const data: { -readonly [K in keyof ErrorData]: ErrorData[K] } = {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
    };
    if (this.details !== undefined) data.details = this.details;
    if (this.hints !== undefined) data.hints = this.hints;
    return data;
  }

  /** Rebuilds an error from its wire-safe form; an unknown code becomes `INTERNAL`. */
  static fromData(data: ErrorData): PlexusError {
    const code = isPlexusErrorCode(data.code) ? data.code : 'INTERNAL';
    return new PlexusError(code, data.message, {
      retryable: data.retryable,
      ...(data.details === undefined ? {} : { details: data.details }),
      ...(data.hints === undefined ? {} : { hints: data.hints }),
    });
  }
}

/**
 * Turns anything thrown into a {@link PlexusError}: a PlexusError is returned as is; anything
 * else becomes `INTERNAL` with the original kept as `cause`.
 */
export function toPlexusError(thrown: unknown): PlexusError {
  if (thrown instanceof PlexusError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new PlexusError('INTERNAL', message, { cause: thrown });
}
