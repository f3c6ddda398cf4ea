/**
 * Emergence replies on the HTTP face: DONE / ERROR messages in the response body (D4), and
 * ERROR replies to messages that could not be decoded (built from whatever parts of the
 * request are usable).
 *
 * Beyond the five keys, replies carry `_x_` extension keys (D4):
 * - an ERROR carries the recovery fields of seed 002 §8.2 as `_x_category`, `_x_retry_after`
 *   (seconds), `_x_fallback_verb`, `_x_suggested_action`, `_x_verb` and `_x_trace_id`
 *   (absent ones are left out), beside the codec's `_x_plexus_error`;
 * - a DONE or ERROR of a deprecated era carries `_x_warnings`: the list of deprecation
 *   warnings (seed 002 §10.3).
 */
import { randomUUID } from 'node:crypto';
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { recoveryFields } from '../../core/error-recovery.js';
import { agenteseRefusalOf } from '../../core/refusal.js';
import { PlexusError, isPlexusErrorCode, type ErrorData } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { WARNINGS_EXTENSION, warningsOf, type EraWarning } from '../../runtime/pipeline/era.js';
import { encodeEmergence } from '../../wire/emergence/codec.js';
import { UUID_V4_PATTERN, type EmergenceMessage } from '../../wire/emergence/message.js';
import { emergenceDone, emergenceErrorReply } from '../../wire/emergence/reply.js';
import { errorDataOf } from './esrp-answer.js';
import { deprecationHeaders, retryAfterHeader } from './http-deprecation.js';
import { EMERGENCE_ERRORS } from '../../wire/emergence/error-table.js';

/** The `to` of an ERROR whose request named no usable sender. */
export const UNKNOWN_PEER = 'unknown';

/** An Emergence answer: the HTTP status, the wire message and extra response headers. */
export interface EmergenceAnswer {
  readonly status: number;
  readonly body: EmergenceMessage;
  /** `Retry-After` on retryable errors; `Deprecation` / `Sunset` / `Link` on deprecated eras. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The extension key of the seed-shaped refusal (seed 002 §8.3) on a DONE whose result is one. */
export const REFUSAL_EXTENSION = '_x_refusal';

/** The extension keys of the recovery fields on an Emergence ERROR. */
export const EMERGENCE_RECOVERY_KEYS = {
  category: '_x_category',
  retry_after: '_x_retry_after',
  fallback_verb: '_x_fallback_verb',
  suggested_action: '_x_suggested_action',
  verb: '_x_verb',
  trace_id: '_x_trace_id',
} as const;

/** The `_x_` recovery keys of an error (seed 002 §8.2). */
export function emergenceRecoveryExtensions(error: PlexusError | ErrorData): JsonObject {
  const data = error instanceof PlexusError ? error.toData() : error;
  const out: JsonObject = {};
  for (const [field, value] of Object.entries(recoveryFields(data))) {
    const key = EMERGENCE_RECOVERY_KEYS[field as keyof typeof EMERGENCE_RECOVERY_KEYS];
    if (value !== undefined) out[key] = value as JsonValue;
  }
  return out;
}

/** `body` with `extensions` added (each key starts with `_x_`). */
function extend(body: EmergenceMessage, extensions: JsonObject): EmergenceMessage {
  return Object.keys(extensions).length === 0 ? body : { ...body, ...extensions };
}

function warningsExtension(warnings: readonly EraWarning[]): JsonObject {
  return warnings.length === 0 ? {} : { [WARNINGS_EXTENSION]: warnings.map((w) => ({ ...w })) };
}

/** The headers of an Emergence answer (absent when there are none). */
function headersMember(
  error: ErrorData | undefined,
  warnings: readonly EraWarning[],
): { headers?: Record<string, string> } {
  const headers = {
    ...deprecationHeaders(warnings),
    ...(error === undefined ? {} : retryAfterHeader(error)),
  };
  return Object.keys(headers).length === 0 ? {} : { headers };
}

/** The HTTP status of an Emergence ERROR: its `data.code` (`EMERGENCE_ERRORS[code]`). */
export function emergenceHttpStatus(error: PlexusError | ErrorData): number {
  return isPlexusErrorCode(error.code) ? EMERGENCE_ERRORS[error.code] : 500;
}

function usable(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== BROADCAST;
}

/**
 * The ERROR reply to a message that could not be decoded (or to a request rejected before
 * its body was read): the request's `id` when it is a UUID v4 (else a new one), `from` = its
 * `to` when usable (else `nodeId`), `to` = its `from` when usable (else `unknown`).
 */
export function emergenceFallbackError(error: PlexusError, raw: unknown, nodeId: string): EmergenceAnswer {
  const recovery = emergenceRecoveryExtensions(error);
  const source: JsonObject = isJsonObject(raw) ? raw : {};
  const id =
    typeof source['id'] === 'string' && UUID_V4_PATTERN.test(source['id']) ? source['id'] : randomUUID();
  const build = (from: string, to: string): EmergenceMessage =>
    encodeEmergence({
      id,
      kind: 'error',
      from,
      to,
      verb: 'ERROR',
      data: error.toData() as unknown as JsonObject,
    });
  let body: EmergenceMessage;
  try {
    body = build(
      usable(source['to']) ? source['to'] : nodeId,
      usable(source['from']) ? source['from'] : UNKNOWN_PEER,
    );
  } catch {
    body = build(nodeId, UNKNOWN_PEER);
  }
  return {
    status: emergenceHttpStatus(error),
    body: extend(body, recovery),
    ...headersMember(error.toData(), []),
  };
}

/**
 * The ERROR reply to a decoded request: same `id`, `from`/`to` swapped (`from` = `replier`
 * when given, needed when the request went to `broadcast`), data `{code, msg}` plus the
 * `_x_plexus_error` extension, the `_x_` recovery keys and, for a deprecated era,
 * `_x_warnings`.
 */
export function emergenceErrorAnswer(
  request: Envelope,
  error: PlexusError | ErrorData,
  replier?: string,
  warnings: readonly EraWarning[] = [],
): EmergenceAnswer {
  const from = replier ?? (request.to === BROADCAST ? undefined : request.to);
  const data = error instanceof PlexusError ? error.toData() : error;
  try {
    const reply = emergenceErrorReply(request, data, from === undefined ? {} : { from });
    const body = extend(encodeEmergence(reply), {
      ...emergenceRecoveryExtensions(data),
      ...warningsExtension(warnings),
    });
    return { status: emergenceHttpStatus(error), body, ...headersMember(data, warnings) };
  } catch {
    const plexus = error instanceof PlexusError ? error : PlexusError.fromData(error);
    return emergenceFallbackError(plexus, request, from ?? UNKNOWN_PEER);
  }
}

/**
 * The DONE reply (HTTP 200) to a decoded request: `data` = `{result}`, plus `_x_warnings`
 * when the era that answered is deprecated.
 */
export function emergenceDoneAnswer(
  request: Envelope,
  result: Envelope['data'],
  replier: string,
  warnings: readonly EraWarning[] = [],
): EmergenceAnswer {
  const body = encodeEmergence(emergenceDone(request, result, { from: replier }));
  const refusal = agenteseRefusalOf(result, request.verb === 'HELP' ? '' : request.verb);
  if (refusal !== undefined)
    return {
      status: 200,
      body: extend(body, { ...warningsExtension(warnings), [REFUSAL_EXTENSION]: { ...refusal } }),
      ...headersMember(undefined, warnings),
    };
  return {
    status: 200,
    body: extend(body, warningsExtension(warnings)),
    ...headersMember(undefined, warnings),
  };
}

/**
 * The reply to a HELP the runtime answered with `answer`: DONE with its output, or ERROR with
 * its error, each with the answer's deprecation warnings (`_x_warnings`).
 */
export function emergenceAnswerOf(request: Envelope, answer: Envelope, replier: string): EmergenceAnswer {
  const warnings = warningsOf(answer);
  return answer.kind === 'response'
    ? emergenceDoneAnswer({ ...request, verb: answer.verb }, answer.data, replier, warnings)
    : emergenceErrorAnswer(request, errorDataOf(answer.data), replier, warnings);
}
