/**
 * The error an SDK call throws when the verb answers with an error (not a refusal, which is a
 * result): a PlexusError with the callee's code, plus the verb, job and trace of the call and
 * the recovery hints of seed 002 §8.2 (`category`, `retryAfter`, `fallbackVerb`,
 * `suggestedAction`).
 */
import { errorHintsOf, recoveryFields } from '../core/error-recovery.js';
import {
  ERROR_TABLE,
  PlexusError,
  isPlexusErrorCode,
  type AgenteseCategory,
  type ErrorData,
  type ErrorHints,
} from '../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';

/** Where a failed call happened. */
export interface InvocationErrorMeta {
  readonly verb: string;
  /** The job that failed, when the request got that far. */
  readonly jobId?: string;
  /** The call's `traceparent` (its span). */
  readonly traceparent?: string;
  /** The original error, kept for diagnosis. */
  readonly cause?: unknown;
}

/**
 * A failed call. `code`, `retryable` and `details` are the callee's; the message names the
 * verb first.
 */
export class InvocationError extends PlexusError {
  /** The verb called. */
  readonly verb: string;
  /** The job that failed, when there was one. */
  readonly jobId: string | undefined;
  /** The call's `traceparent`. */
  readonly traceparent: string | undefined;
  /** The AGENTESE error category of the code (seed 002 §8.1). */
  readonly category: AgenteseCategory;
  /** Seconds to wait before retrying (retryable errors with a delay). */
  readonly retryAfter: number | undefined;
  /** A verb to call instead (e.g. the replacement of a sunset era). */
  readonly fallbackVerb: string | undefined;
  /** What to do about it. */
  readonly suggestedAction: string | undefined;

  constructor(data: ErrorData, meta: InvocationErrorMeta) {
    const prefix = `${meta.verb}: `;
    super(data.code, data.message.startsWith(prefix) ? data.message : `${prefix}${data.message}`, {
      retryable: data.retryable,
      ...(data.details === undefined ? {} : { details: data.details }),
      ...(data.hints === undefined ? {} : { hints: data.hints }),
      ...(meta.cause === undefined ? {} : { cause: meta.cause }),
    });
    this.name = 'InvocationError';
    this.verb = meta.verb;
    this.jobId = meta.jobId;
    this.traceparent = meta.traceparent;
    const recovery = recoveryFields(data, {
      verb: meta.verb,
      ...(meta.traceparent === undefined ? {} : { traceparent: meta.traceparent }),
    });
    this.category = recovery.category;
    this.retryAfter = recovery.retry_after;
    this.fallbackVerb = recovery.fallback_verb;
    this.suggestedAction = recovery.suggested_action;
  }
}

/**
 * The {@link ErrorHints} carried as recovery fields (snake_case, seed 002 §8.2) in a face's
 * error object — ESRP `error.details`, JSON-RPC `error.data` — when there are any.
 */
export function hintsOfRecoveryFields(fields: JsonObject): ErrorHints | undefined {
  return errorHintsOf({
    retryAfter: fields['retry_after'],
    fallbackVerb: fields['fallback_verb'],
    suggestedAction: fields['suggested_action'],
    verb: fields['verb'],
    traceId: fields['trace_id'],
  });
}

/** The ErrorData an error envelope carries (`INTERNAL` when it carries none). */
export function errorDataOf(value: JsonValue): ErrorData {
  if (isJsonObject(value) && isPlexusErrorCode(value['code']) && typeof value['message'] === 'string') {
    const code = value['code'];
    const details = value['details'];
    const hints = errorHintsOf(value['hints']);
    return {
      code,
      message: value['message'],
      retryable: typeof value['retryable'] === 'boolean' ? value['retryable'] : ERROR_TABLE[code].retryable,
      ...(isJsonObject(details) ? { details } : {}),
      ...(hints === undefined ? {} : { hints }),
    };
  }
  return { code: 'INTERNAL', message: 'the call failed without an error record', retryable: false };
}
