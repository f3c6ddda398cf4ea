/**
 * Building Emergence replies: the reply reuses the request's `id` and swaps `from` and `to`
 * (D4).
 */
import { BROADCAST } from '../../core/envelope.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { ErrorData } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { encodeEmergence } from './codec.js';
import { EMERGENCE_VERB_PATTERN, emergenceKindOfVerb } from './message.js';

/** Options for {@link emergenceReply}. */
export interface EmergenceReplyInit {
  /**
   * The replying agent's id. Required when the request went to `broadcast` (a reply cannot
   * come from `broadcast`).
   * @default request.to
   */
  readonly from?: string;
}

/**
 * Builds the reply to `request`: same `id`, `from` = the request's `to` (or `init.from`),
 * `to` = the request's `from`, the given verb and data, and the kind that verb decodes to.
 * The result is checked by encoding it, so it is always a valid Emergence message.
 *
 * @throws PlexusError `INVALID_PARAMS` when `verb` is not ALL-CAPS, the request was sent to
 *   `broadcast` and `init.from` is missing, or the reply would not be a valid Emergence
 *   message (e.g. a DONE without `result`).
 * @example
 * const done = emergenceReply(request, 'DONE', { result: 'Bonjour' });
 */
export function emergenceReply(
  request: Envelope,
  verb: string,
  data: JsonValue,
  init: EmergenceReplyInit = {},
): Envelope {
  if (!EMERGENCE_VERB_PATTERN.test(verb)) {
    throw new PlexusError('INVALID_PARAMS', `an Emergence verb is ALL-CAPS (e.g. DONE), got "${verb}"`);
  }
  const from = init.from ?? request.to;
  if (from === BROADCAST) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'the request was sent to "broadcast"; pass init.from (this agent\'s id) to reply',
    );
  }
  const reply: Envelope = {
    id: request.id,
    kind: emergenceKindOfVerb(verb),
    from,
    to: request.from,
    verb,
    data,
  };
  encodeEmergence(reply);
  return reply;
}

/**
 * The DONE reply to `request`: `data` = `{result}`.
 *
 * @throws PlexusError `INVALID_PARAMS` as {@link emergenceReply}.
 */
export function emergenceDone(request: Envelope, result: JsonValue, init: EmergenceReplyInit = {}): Envelope {
  return emergenceReply(request, 'DONE', { result }, init);
}

/**
 * The ERROR reply to `request`, carrying `error` as a core ErrorData; it encodes to
 * `{code: <Emergence integer>, msg}` plus the `_x_plexus_error` extension.
 *
 * @throws PlexusError `INVALID_PARAMS` as {@link emergenceReply}.
 */
export function emergenceErrorReply(
  request: Envelope,
  error: PlexusError | ErrorData,
  init: EmergenceReplyInit = {},
): Envelope {
  const d = error instanceof PlexusError ? error.toData() : error;
  const data: JsonObject = { code: d.code, message: d.message, retryable: d.retryable };
  if (d.details !== undefined) data.details = d.details;
  return emergenceReply(request, 'ERROR', data, init);
}
