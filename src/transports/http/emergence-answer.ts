/**
 * Emergence replies on the HTTP face: DONE / ERROR messages in the response body (D4), and
 * ERROR replies to messages that could not be decoded (built from whatever parts of the
 * request are usable).
 */
import { randomUUID } from 'node:crypto';
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { ERROR_TABLE, PlexusError, isPlexusErrorCode, type ErrorData } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { encodeEmergence } from '../../wire/emergence/codec.js';
import { UUID_V4_PATTERN, type EmergenceMessage } from '../../wire/emergence/message.js';
import { emergenceDone, emergenceErrorReply } from '../../wire/emergence/reply.js';

/** The `to` of an ERROR whose request named no usable sender. */
export const UNKNOWN_PEER = 'unknown';

/** An Emergence answer: the HTTP status and the wire message. */
export interface EmergenceAnswer {
  readonly status: number;
  readonly body: EmergenceMessage;
}

/** The HTTP status of an Emergence ERROR: its `data.code` (`ERROR_TABLE[code].emergence`). */
export function emergenceHttpStatus(error: PlexusError | ErrorData): number {
  return isPlexusErrorCode(error.code) ? ERROR_TABLE[error.code].emergence : 500;
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
  return { status: emergenceHttpStatus(error), body };
}

/**
 * The ERROR reply to a decoded request: same `id`, `from`/`to` swapped (`from` = `replier`
 * when given, needed when the request went to `broadcast`), data `{code, msg}` plus the
 * `_x_plexus_error` extension.
 */
export function emergenceErrorAnswer(
  request: Envelope,
  error: PlexusError | ErrorData,
  replier?: string,
): EmergenceAnswer {
  const from = replier ?? (request.to === BROADCAST ? undefined : request.to);
  try {
    const reply = emergenceErrorReply(request, error, from === undefined ? {} : { from });
    return { status: emergenceHttpStatus(error), body: encodeEmergence(reply) };
  } catch {
    const plexus = error instanceof PlexusError ? error : PlexusError.fromData(error);
    return emergenceFallbackError(plexus, request, from ?? UNKNOWN_PEER);
  }
}

/** The DONE reply (HTTP 200) to a decoded request: `data` = `{result}`. */
export function emergenceDoneAnswer(
  request: Envelope,
  result: Envelope['data'],
  replier: string,
): EmergenceAnswer {
  return { status: 200, body: encodeEmergence(emergenceDone(request, result, { from: replier })) };
}
