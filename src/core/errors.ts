/**
 * The one internal error model (DESIGN D10).
 *
 * Every failure inside Plexus is a {@link PlexusError} with a code from the closed set
 * {@link ERROR_CODES}. Each code has a fixed `retryable` default and a fixed translation to
 * every face: JSON-RPC, Hyperspace, ESRP, Emergence, HTTP and the AGENTESE error category.
 * Faces never invent their own numbers: they look them up in {@link ERROR_TABLE}.
 */
import { PLEXUS_ERROR_BRAND } from './is-plexus-error.js';
import type { JsonObject } from './json.js';

/**
 * The ESRP v1 error codes: the seed's five, D5's two, and `CANCELLED` for a cancelled job
 * (docs/decisions/traces-and-errors.md), which is no failure of the backend.
 */
export type EsrpErrorCode =
  | 'BACKEND_UNAVAILABLE'
  | 'TIMEOUT'
  | 'OOM'
  | 'INVALID_INPUT_SCHEMA'
  | 'INVALID_INPUT_SEMANTIC'
  | 'INVALID_INPUT_SIZE'
  | 'CANCELLED'
  | 'UNKNOWN';

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

/** How one error code reads on every face. */
export interface ErrorTranslation {
  /** Whether a caller may retry the same request unchanged. */
  readonly retryable: boolean;
  /** HTTP status on the HTTP faces. */
  readonly http: number;
  /** JSON-RPC 2.0 code on a plain JSON-RPC face (standard range only). */
  readonly jsonrpc: number;
  /** JSON-RPC code on the Hyperspace face (uses −32001…−32008 where the seed defines one). */
  readonly hyperspace: number;
  /** ESRP error code. */
  readonly esrp: EsrpErrorCode;
  /** Emergence `ERROR.data.code` (HTTP-style integer, D4). */
  readonly emergence: number;
  /** AGENTESE error category. */
  readonly category: AgenteseCategory;
  /** One line saying what the code means, for docs and `--help`. */
  readonly summary: string;
}

const t = (
  retryable: boolean,
  http: number,
  jsonrpc: number,
  hyperspace: number,
  esrp: EsrpErrorCode,
  category: AgenteseCategory,
  summary: string,
  emergence: number = http,
): ErrorTranslation => ({ retryable, http, jsonrpc, hyperspace, esrp, emergence, category, summary });

/**
 * Every error code Plexus uses, with its translation to each face. The set is closed:
 * adding a code means adding a row here, and every face picks it up.
 */
export const ERROR_TABLE = {
  // Malformed input
  PARSE_ERROR: t(
    false,
    400,
    -32700,
    -32700,
    'INVALID_INPUT_SCHEMA',
    'invalid_input',
    'The input is not valid JSON.',
  ),
  INVALID_REQUEST: t(
    false,
    400,
    -32600,
    -32600,
    'INVALID_INPUT_SCHEMA',
    'invalid_input',
    'The message does not have the shape the protocol requires.',
  ),
  INVALID_PARAMS: t(
    false,
    400,
    -32602,
    -32602,
    'INVALID_INPUT_SCHEMA',
    'invalid_input',
    'A field has the wrong type or is missing.',
  ),
  INVALID_SEMANTIC: t(
    false,
    400,
    -32602,
    -32602,
    'INVALID_INPUT_SEMANTIC',
    'invalid_input',
    'The input is well formed but its values are not acceptable.',
  ),
  INPUT_TOO_LARGE: t(
    false,
    413,
    -32600,
    -32600,
    'INVALID_INPUT_SIZE',
    'invalid_input',
    'The input is larger than the limit.',
  ),
  VERSION_MISMATCH: t(
    false,
    400,
    -32600,
    -32600,
    'INVALID_INPUT_SCHEMA',
    'invalid_input',
    'The message declares a schema or protocol version this node does not speak.',
  ),
  UNKNOWN_VERB: t(
    false,
    404,
    -32601,
    -32601,
    'INVALID_INPUT_SEMANTIC',
    'not_found',
    'No agent here offers that verb.',
    501,
  ),
  NOT_FOUND: t(
    false,
    404,
    -32602,
    -32602,
    'INVALID_INPUT_SEMANTIC',
    'not_found',
    'The named agent, job or resource does not exist.',
  ),
  SESSION_NOT_FOUND: t(
    false,
    404,
    -32602,
    -32001,
    'INVALID_INPUT_SEMANTIC',
    'not_found',
    'The session id is unknown.',
  ),
  CONFLICT: t(
    false,
    409,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'conflict',
    'The request conflicts with the current state.',
  ),
  PRECONDITION_FAILED: t(
    false,
    412,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'precondition',
    'A guard condition did not hold.',
  ),
  // Authentication and signatures
  UNAUTHORIZED: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'No valid credential was presented.',
  ),
  FORBIDDEN: t(
    false,
    403,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'forbidden',
    'The credential does not allow this.',
  ),
  SIGNATURE_INVALID: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'The signature does not match the signed content.',
  ),
  SIGNATURE_DOMAIN_MISMATCH: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'The signature was made for another domain (topic or verb).',
  ),
  SIGNATURE_EXPIRED: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'The signed timestamp is outside the accepted window.',
  ),
  SIGNATURE_REPLAYED: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'The nonce was already seen inside the replay window.',
  ),
  SIGNER_MISMATCH: t(
    false,
    401,
    -32603,
    -32603,
    'INVALID_INPUT_SEMANTIC',
    'unauthorized',
    'The `from` identity does not belong to the public key.',
  ),
  MALFORMED_ENVELOPE: t(
    false,
    400,
    -32600,
    -32600,
    'INVALID_INPUT_SCHEMA',
    'invalid_input',
    'A signed-envelope field is missing or malformed.',
  ),
  // Resources and policy (Hyperspace −32002…−32008)
  BUDGET_EXCEEDED: t(
    false,
    402,
    -32603,
    -32002,
    'INVALID_INPUT_SEMANTIC',
    'quota_exceeded',
    'The operation would exceed the budget.',
  ),
  RATE_LIMITED: t(
    true,
    429,
    -32603,
    -32003,
    'BACKEND_UNAVAILABLE',
    'quota_exceeded',
    'Too many requests; retry after the window resets.',
  ),
  SAFETY_VIOLATION: t(
    false,
    422,
    -32603,
    -32004,
    'INVALID_INPUT_SEMANTIC',
    'precondition',
    'The content breaks the safety policy.',
  ),
  LOOP_DETECTED: t(
    false,
    508,
    -32603,
    -32005,
    'INVALID_INPUT_SEMANTIC',
    'precondition',
    'A recursive loop was detected.',
  ),
  PEER_UNAVAILABLE: t(
    true,
    502,
    -32603,
    -32006,
    'BACKEND_UNAVAILABLE',
    'unavailable',
    'The target peer or backend cannot be reached.',
  ),
  REPLICATION_FAILED: t(
    true,
    503,
    -32603,
    -32007,
    'BACKEND_UNAVAILABLE',
    'unavailable',
    'A write did not reach its replication factor.',
  ),
  TRAJECTORY_REJECTED: t(
    false,
    422,
    -32603,
    -32008,
    'INVALID_INPUT_SEMANTIC',
    'invalid_input',
    'The trajectory failed validation.',
  ),
  // Runtime
  TIMEOUT: t(
    true,
    408,
    -32603,
    -32603,
    'TIMEOUT',
    'timeout',
    'The deadline passed before the work finished.',
  ),
  CANCELLED: t(false, 409, -32603, -32603, 'CANCELLED', 'conflict', 'The job was cancelled.'),
  UNAVAILABLE: t(
    true,
    503,
    -32603,
    -32603,
    'BACKEND_UNAVAILABLE',
    'unavailable',
    'A transient failure; retry with back-off.',
  ),
  OUT_OF_MEMORY: t(true, 507, -32603, -32603, 'OOM', 'unavailable', 'The backend ran out of memory.'),
  // Versioning (seed 002 §10.3): the era is past its sunset and no longer served
  VERB_SUNSET: t(
    false,
    410,
    -32601,
    -32601,
    'INVALID_INPUT_SEMANTIC',
    'not_found',
    'The verb era is past its sunset date and no longer served; call its replacement.',
  ),
  INTERNAL: t(false, 500, -32603, -32603, 'UNKNOWN', 'internal', 'An unexpected failure inside Plexus.'),
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

  /** The translation row of this error's code. */
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

/** The standard message of each JSON-RPC 2.0 error code (spec §5.1). */
export const JSONRPC_STANDARD_MESSAGES: Readonly<Record<number, string>> = {
  [-32700]: 'Parse error',
  [-32600]: 'Invalid Request',
  [-32601]: 'Method not found',
  [-32602]: 'Invalid params',
  [-32603]: 'Internal error',
};

/** The Hyperspace application error names (seed 003 §8). */
export const HYPERSPACE_ERROR_NAMES: Readonly<Record<number, string>> = {
  [-32001]: 'Session Not Found',
  [-32002]: 'Budget Exceeded',
  [-32003]: 'Rate Limited',
  [-32004]: 'Safety Violation',
  [-32005]: 'Loop Detected',
  [-32006]: 'Peer Unavailable',
  [-32007]: 'Replication Failed',
  [-32008]: 'Trajectory Rejected',
};

/** The ESRP code → HTTP status and retryable flag (ESRP spec table, D5). */
export const ESRP_ERROR_TABLE: Readonly<
  Record<EsrpErrorCode, { readonly http: number; readonly retryable: boolean }>
> = {
  BACKEND_UNAVAILABLE: { http: 502, retryable: true },
  TIMEOUT: { http: 408, retryable: true },
  OOM: { http: 507, retryable: true },
  INVALID_INPUT_SCHEMA: { http: 400, retryable: false },
  INVALID_INPUT_SEMANTIC: { http: 400, retryable: false },
  INVALID_INPUT_SIZE: { http: 413, retryable: false },
  CANCELLED: { http: 409, retryable: false },
  UNKNOWN: { http: 500, retryable: false },
};

/** The Plexus code an incoming ESRP error code is read as. */
export const ESRP_TO_PLEXUS: Readonly<Record<EsrpErrorCode, PlexusErrorCode>> = {
  BACKEND_UNAVAILABLE: 'PEER_UNAVAILABLE',
  TIMEOUT: 'TIMEOUT',
  OOM: 'OUT_OF_MEMORY',
  INVALID_INPUT_SCHEMA: 'INVALID_PARAMS',
  INVALID_INPUT_SEMANTIC: 'INVALID_SEMANTIC',
  INVALID_INPUT_SIZE: 'INPUT_TOO_LARGE',
  CANCELLED: 'CANCELLED',
  UNKNOWN: 'INTERNAL',
};

/**
 * The Plexus code an incoming JSON-RPC error code is read as (standard codes and the
 * Hyperspace range); anything else becomes `INTERNAL`.
 */
export function plexusCodeFromJsonRpc(code: number): PlexusErrorCode {
  switch (code) {
    case -32700:
      return 'PARSE_ERROR';
    case -32600:
      return 'INVALID_REQUEST';
    case -32601:
      return 'UNKNOWN_VERB';
    case -32602:
      return 'INVALID_PARAMS';
    case -32001:
      return 'SESSION_NOT_FOUND';
    case -32002:
      return 'BUDGET_EXCEEDED';
    case -32003:
      return 'RATE_LIMITED';
    case -32004:
      return 'SAFETY_VIOLATION';
    case -32005:
      return 'LOOP_DETECTED';
    case -32006:
      return 'PEER_UNAVAILABLE';
    case -32007:
      return 'REPLICATION_FAILED';
    case -32008:
      return 'TRAJECTORY_REJECTED';
    default:
      return 'INTERNAL';
  }
}

/**
 * The Plexus code an incoming HTTP status (or Emergence `ERROR.data.code`) is read as.
 * Unknown 4xx become `INVALID_REQUEST`, unknown 5xx `UNAVAILABLE` when 502–504 else `INTERNAL`.
 */
export function plexusCodeFromHttp(status: number): PlexusErrorCode {
  switch (status) {
    case 400:
      return 'INVALID_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 402:
      return 'BUDGET_EXCEEDED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 408:
      return 'TIMEOUT';
    case 409:
      return 'CONFLICT';
    case 410:
      return 'VERB_SUNSET';
    case 412:
      return 'PRECONDITION_FAILED';
    case 413:
      return 'INPUT_TOO_LARGE';
    case 422:
      return 'INVALID_SEMANTIC';
    case 429:
      return 'RATE_LIMITED';
    case 501:
      return 'UNKNOWN_VERB';
    case 502:
      return 'PEER_UNAVAILABLE';
    case 503:
    case 504:
      return 'UNAVAILABLE';
    case 507:
      return 'OUT_OF_MEMORY';
    case 508:
      return 'LOOP_DETECTED';
    default:
      return status >= 400 && status < 500 ? 'INVALID_REQUEST' : 'INTERNAL';
  }
}
