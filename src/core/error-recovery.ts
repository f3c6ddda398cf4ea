/**
 * Recovery hints on the wire (seed 002 §8.2): what every face adds to an error beside its own
 * code and message — the AGENTESE `category`, `retry_after` (seconds), `fallback_verb`,
 * `suggested_action`, and the context `verb` and `trace_id` where known.
 *
 * Hints set where an error was raised ({@link ErrorHints}) win; the gaps are filled from the
 * code's defaults ({@link ERROR_HINT_DEFAULTS}) and from the request the error answers.
 */
import {
  ERROR_TABLE,
  isPlexusErrorCode,
  type AgenteseCategory,
  type ErrorData,
  type ErrorHints,
} from './errors.js';
import type { PlexusErrorCode } from './errors.js';
import { isJsonObject, type JsonObject } from './json.js';

/**
 * The defaults of one code: when to retry (retryable codes only) and what to do. An action
 * never says "retry" unless the error is retryable, and never names a field the error may lack
 * (docs/decisions/traces-and-errors.md).
 */
export interface ErrorHintDefaults {
  /** Seconds to wait before retrying; only for codes that are retryable. */
  readonly retryAfter?: number;
  /** What the caller should do. */
  readonly suggestedAction: string;
  /** For a retryable code: what to do when one error of it is final (not retryable). */
  readonly finalAction?: string;
}

const fix = (suggestedAction: string): ErrorHintDefaults => ({ suggestedAction });
const wait = (retryAfter: number, suggestedAction: string, finalAction: string): ErrorHintDefaults => ({
  retryAfter,
  suggestedAction,
  finalAction,
});

/** The default recovery hints of every code. */
export const ERROR_HINT_DEFAULTS: Readonly<Record<PlexusErrorCode, ErrorHintDefaults>> = {
  PARSE_ERROR: fix('Send valid JSON (check quotes, commas and brackets at the reported position).'),
  INVALID_REQUEST: fix('Fix the message shape named in the error and send it again.'),
  INVALID_PARAMS: fix('Fix the fields listed in details.problems and send the request again.'),
  INVALID_SEMANTIC: fix('Change the values named in the error; the request is well formed otherwise.'),
  INPUT_TOO_LARGE: fix('Send a smaller input, or pass large content as an artifact reference.'),
  VERSION_MISMATCH: fix('Use a protocol or schema version this node speaks.'),
  UNKNOWN_VERB: fix('Check the verb name; list the verbs this node offers with GET /agents.'),
  NOT_FOUND: fix('Check the id; the agent, job or resource does not exist here.'),
  SESSION_NOT_FOUND: fix('Open a new session (state.createSession) and call again with its id.'),
  CONFLICT: fix('Read the current state, then call again with a new idempotency key or updated input.'),
  PRECONDITION_FAILED: fix('Satisfy the condition named in the error, then call again.'),
  UNAUTHORIZED: fix('Present a valid credential (Authorization: Bearer <token>).'),
  FORBIDDEN: fix('Ask for a capability token that covers this verb, its scopes and effects.'),
  SIGNATURE_INVALID: fix('Re-sign the exact payload with the key named in the envelope.'),
  SIGNATURE_DOMAIN_MISMATCH: fix('Sign for this verb or topic (the domain named in the error).'),
  SIGNATURE_EXPIRED: fix('Check the clock and sign again with the current time.'),
  SIGNATURE_REPLAYED: fix('Sign again with a fresh nonce.'),
  SIGNER_MISMATCH: fix('Send the `from` identity that belongs to the signing key.'),
  MALFORMED_ENVELOPE: fix('Fix the signed-envelope field named in the error.'),
  BUDGET_EXCEEDED: fix('Raise the budget, or wait for it to reset, before calling again.'),
  RATE_LIMITED: wait(
    1,
    'Slow down and retry after the indicated delay.',
    'Lower your request rate; this call was refused and will not succeed as sent.',
  ),
  SAFETY_VIOLATION: fix('Change the content so it meets the safety policy.'),
  LOOP_DETECTED: fix('Break the call cycle; do not call a verb from itself through other verbs.'),
  PEER_UNAVAILABLE: wait(
    2,
    'Retry with back-off; the peer or backend may come back.',
    'Call another node, or check that the peer or backend is configured and running.',
  ),
  REPLICATION_FAILED: wait(
    2,
    'Retry with back-off; not enough replicas acknowledged the write.',
    'Not enough replicas acknowledged the write; check the replicas before writing again.',
  ),
  TRAJECTORY_REJECTED: fix('Fix the trajectory as the validation error says.'),
  TIMEOUT: wait(
    1,
    'Retry, with a longer timeout if the work is slow.',
    'The work did not finish in time; send it with a longer timeout or less work.',
  ),
  CANCELLED: fix('Submit the request again if the work is still wanted.'),
  UNAVAILABLE: wait(
    1,
    'Retry with back-off; the failure is transient.',
    'The node cannot serve this call; check its /readyz answer and its log.',
  ),
  OUT_OF_MEMORY: wait(5, 'Retry later or with a smaller input.', 'Send a smaller input.'),
  INTERNAL: fix('Report the trace id to the node operator; the same call is likely to fail the same way.'),
  VERB_SUNSET: fix('This era of the verb is no longer served; call a newer era (GET /agents lists them).'),
};

/** The recovery fields of an error on the wire, snake_case as in seed 002 §8.2. */
export interface RecoveryFields {
  readonly category: AgenteseCategory;
  readonly retry_after?: number;
  readonly fallback_verb?: string;
  readonly suggested_action?: string;
  readonly verb?: string;
  readonly trace_id?: string;
}

/** What is known of the request an error answers. */
export interface RecoveryContext {
  /** The verb called (`''` or absent when unknown). */
  readonly verb?: string;
  /** The request's W3C `traceparent`, when it had one. */
  readonly traceparent?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id (32 hex digits) of a W3C `traceparent`, or `undefined`. */
export function traceIdOfTraceparent(traceparent: string | undefined): string | undefined {
  if (traceparent === undefined) return undefined;
  const id = TRACEPARENT.exec(traceparent)?.[1];
  return id === undefined || /^0+$/.test(id) ? undefined : id;
}

const SAYS_RETRY = /\bretr(y|ies|ying|ied)\b/i;

function detailsHave(error: ErrorData, key: string): boolean {
  const value = error.details?.[key];
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

/**
 * What the caller should do about `error`: the raising code's own words when they agree with
 * the error (a hint that says "retry" is not used for a non-retryable error), else the code's
 * default — its final action for a retryable code's non-retryable error, and for bad params a
 * pointer only to the details the error has.
 */
export function suggestedAction(code: PlexusErrorCode, error: ErrorData, hinted?: string): string {
  if (hinted !== undefined && (error.retryable || !SAYS_RETRY.test(hinted))) return hinted;
  const defaults = ERROR_HINT_DEFAULTS[code];
  if (!error.retryable && defaults.finalAction !== undefined) return defaults.finalAction;
  if (code === 'INVALID_PARAMS' && !detailsHave(error, 'problems')) {
    return detailsHave(error, 'pointer')
      ? 'Fix the field at details.pointer and send the request again.'
      : 'Fix the input as the message says and send the request again.';
  }
  return defaults.suggestedAction;
}

/**
 * The recovery fields of `error` (see the module comment): the hints it carries, else the
 * code's defaults and the context's verb and trace id. `retry_after` is only given for an
 * error that is retryable.
 *
 * @example
 * recoveryFields({ code: 'UNAVAILABLE', message: 'down', retryable: true }, { verb: 'a.b' });
 * // { category: 'unavailable', retry_after: 1, suggested_action: 'Retry with back-off; …', verb: 'a.b' }
 */
export function recoveryFields(error: ErrorData, context: RecoveryContext = {}): RecoveryFields {
  const code: PlexusErrorCode = isPlexusErrorCode(error.code) ? error.code : 'INTERNAL';
  const defaults = ERROR_HINT_DEFAULTS[code];
  const hints: ErrorHints = error.hints ?? {};
  const out: { -readonly [K in keyof RecoveryFields]: RecoveryFields[K] } = {
    category: ERROR_TABLE[code].category,
  };
  const retryAfter = hints.retryAfter ?? defaults.retryAfter;
  if (error.retryable && retryAfter !== undefined) out.retry_after = retryAfter;
  if (hints.fallbackVerb !== undefined) out.fallback_verb = hints.fallbackVerb;
  out.suggested_action = suggestedAction(code, error, hints.suggestedAction);
  const verb = hints.verb ?? (context.verb === '' ? undefined : context.verb);
  if (verb !== undefined) out.verb = verb;
  const traceId = hints.traceId ?? traceIdOfTraceparent(context.traceparent);
  if (traceId !== undefined) out.trace_id = traceId;
  return out;
}

/** JSON Schema of {@link ErrorHints} (the `hints` member of an ErrorData). */
export const ERROR_HINTS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    retryAfter: { type: 'integer', minimum: 0 },
    fallbackVerb: { type: 'string', minLength: 1 },
    suggestedAction: { type: 'string', minLength: 1 },
    verb: { type: 'string', minLength: 1 },
    traceId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
  },
} as const;

/**
 * The {@link ErrorHints} in `value` (an ErrorData's `hints` member read from the wire): only
 * the well-typed members are kept; `undefined` when none is.
 */
export function errorHintsOf(value: unknown): ErrorHints | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: { -readonly [K in keyof ErrorHints]: ErrorHints[K] } = {};
  const { retryAfter, fallbackVerb, suggestedAction, verb, traceId } = value;
  if (typeof retryAfter === 'number' && Number.isSafeInteger(retryAfter) && retryAfter >= 0) {
    out.retryAfter = retryAfter;
  }
  if (typeof fallbackVerb === 'string' && fallbackVerb !== '') out.fallbackVerb = fallbackVerb;
  if (typeof suggestedAction === 'string' && suggestedAction !== '') out.suggestedAction = suggestedAction;
  if (typeof verb === 'string' && verb !== '') out.verb = verb;
  if (typeof traceId === 'string' && /^[0-9a-f]{32}$/.test(traceId)) out.traceId = traceId;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The recovery fields as a JSON object (for spreading into a face's error form). */
export function recoveryObject(error: ErrorData, context: RecoveryContext = {}): JsonObject {
  return { ...recoveryFields(error, context) };
}
