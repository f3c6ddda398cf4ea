/**
 * What travels on the node-to-node link besides the signed request: the refusal body
 * (`{"error": ErrorData}`) and the answer envelope, read back defensively on the sending side.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, isPlexusErrorCode, type ErrorData } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { validateEnvelope } from '../../core/records/envelope-schema.js';
import { HTTP_STATUS } from '../http/http-status.js';

/** The body of a refused peer request (HTTP 4xx/5xx): the Plexus error, wire-safe. */
export interface PeerErrorBody {
  readonly error: ErrorData;
}

/** The refusal body of `error`. */
export function peerErrorBody(error: PlexusError): PeerErrorBody {
  return { error: error.toData() };
}

/** The HTTP status of `error` (its row in `HTTP_STATUS`). */
export function httpStatusOf(error: PlexusError): number {
  return HTTP_STATUS[error.code];
}

/** HTTP statuses a sender retries (D4): rate limited, bad gateway, unavailable, gateway timeout. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * The `ErrorData` in a refusal body, or `undefined` when `value` is not one. Reads both the
 * ESRP failed response the route answers with (the Plexus code in
 * `error.details.plexus_code`) and the older `{"error": ErrorData}` form. An unknown code is
 * kept as `INTERNAL` (as `PlexusError.fromData` does).
 */
export function errorDataOf(value: unknown): ErrorData | undefined {
  if (!isJsonObject(value)) return undefined;
  const error = value['error'];
  if (!isJsonObject(error)) return undefined;
  const { message } = error;
  const rawDetails = error['details'];
  const esrpCode = isJsonObject(rawDetails) ? rawDetails['plexus_code'] : undefined;
  const code = typeof esrpCode === 'string' ? esrpCode : error['code'];
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  let details: JsonObject | undefined;
  if (isJsonObject(rawDetails)) {
    details = { ...rawDetails };
    if (typeof esrpCode === 'string') delete details['plexus_code'];
  }
  const base = {
    code: isPlexusErrorCode(code) ? code : 'INTERNAL',
    message,
    retryable: error['retryable'] === true,
  } as const;
  return details === undefined ? base : { ...base, details };
}

/** `value` as an answer envelope (a valid core Envelope of kind `response` or `error`), else `undefined`. */
export function answerEnvelopeOf(value: unknown): Envelope | undefined {
  if (!isJsonObject(value)) return undefined;
  if (value['kind'] !== 'response' && value['kind'] !== 'error') return undefined;
  if (validateEnvelope(value).length > 0) return undefined;
  return value as unknown as Envelope;
}

/** Adds `extra` to an error's details (keeping code, message and retryable). */
export function withDetails(error: PlexusError, extra: JsonObject, message?: string): PlexusError {
  return new PlexusError(error.code, message ?? error.message, {
    retryable: error.retryable,
    details: { ...(error.details ?? {}), ...extra },
    cause: error,
  });
}
