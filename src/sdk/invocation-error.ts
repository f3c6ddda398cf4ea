/**
 * The error an SDK call throws when the verb answers with an error (not a refusal, which is a
 * result): a PlexusError with the callee's code, plus the verb, job and trace of the call.
 */
import { ERROR_TABLE, PlexusError, isPlexusErrorCode, type ErrorData } from '../core/errors.js';
import { isJsonObject, type JsonValue } from '../core/json.js';

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

  constructor(data: ErrorData, meta: InvocationErrorMeta) {
    const prefix = `${meta.verb}: `;
    super(data.code, data.message.startsWith(prefix) ? data.message : `${prefix}${data.message}`, {
      retryable: data.retryable,
      ...(data.details === undefined ? {} : { details: data.details }),
      ...(meta.cause === undefined ? {} : { cause: meta.cause }),
    });
    this.name = 'InvocationError';
    this.verb = meta.verb;
    this.jobId = meta.jobId;
    this.traceparent = meta.traceparent;
  }
}

/** The ErrorData an error envelope carries (`INTERNAL` when it carries none). */
export function errorDataOf(value: JsonValue): ErrorData {
  if (isJsonObject(value) && isPlexusErrorCode(value['code']) && typeof value['message'] === 'string') {
    const code = value['code'];
    const details = value['details'];
    return {
      code,
      message: value['message'],
      retryable: typeof value['retryable'] === 'boolean' ? value['retryable'] : ERROR_TABLE[code].retryable,
      ...(isJsonObject(details) ? { details } : {}),
    };
  }
  return { code: 'INTERNAL', message: 'the call failed without an error record', retryable: false };
}
