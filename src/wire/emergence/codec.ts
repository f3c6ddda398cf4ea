/**
 * The Emergence codec (seed 000, DESIGN D4): an Emergence message ⇄ the core Envelope.
 *
 * Decoding keeps everything: `id`, `from`, `to`, `verb` and `data` as sent, the kind from the
 * verb (HELLO → hello, HELP → request, DONE → response, ERROR → error, any other verb →
 * request), and every `_x_` key in `extensions`. Encoding a decoded envelope gives back the
 * same wire object.
 */
import type { Envelope } from '../../core/envelope.js';
import { ERROR_TABLE, PlexusError, isPlexusErrorCode } from '../../core/errors.js';
import type { PlexusErrorCode } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { childPointer, formatProblem } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import type { WireCodec } from '../codec.js';
import {
  EMERGENCE_EXTENSION_PREFIX,
  PLEXUS_ERROR_EXTENSION,
  emergenceKindOfVerb,
  isEmergenceCoreVerb,
} from './message.js';
import { EMERGENCE_ERRORS } from './error-table.js';
import type { EmergenceMessage } from './message.js';
import { validateEmergence } from './validate.js';

/** The Envelope fields an Emergence message carries; any other set field has no place on the wire. */
const CARRIED_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'kind',
  'from',
  'to',
  'verb',
  'data',
  'extensions',
]);

/** Options for {@link createEmergenceCodec}. */
export interface EmergenceCodecInit {
  /**
   * What `encode` does with Envelope fields Emergence cannot carry (`correlationId`,
   * `traceparent`, `signature`, …): `'reject'` throws `INVALID_PARAMS` naming them, `'drop'`
   * leaves them out.
   * @default 'reject'
   */
  readonly unsupportedFields?: 'reject' | 'drop';
}

/**
 * The error a codec throws for `problems`, with `details.problems` (each `{pointer, message}`).
 * The message names the first problem and counts the rest.
 */
function problemsError(code: PlexusErrorCode, what: string, problems: readonly Problem[]): PlexusError {
  const first = problems[0];
  const head = first === undefined ? what : `${what}: ${formatProblem(first)}`;
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new PlexusError(code, head + more, {
    details: { problems: problems.map((p) => ({ pointer: p.pointer, message: p.message })) },
  });
}

/**
 * Decodes an Emergence message to an Envelope.
 *
 * @throws PlexusError `INVALID_REQUEST` when the envelope itself is malformed, or
 *   `INVALID_PARAMS` when only `data` breaks its verb's rules (DONE without `result`, ERROR
 *   without an integer `code` or a string `msg`); both with `details.problems`.
 */
export function decodeEmergence(input: unknown): Envelope {
  const problems = validateEmergence(input);
  if (problems.length > 0) {
    const onlyData = problems.every((p) => p.pointer.startsWith('/data/'));
    throw problemsError(
      onlyData ? 'INVALID_PARAMS' : 'INVALID_REQUEST',
      'invalid Emergence message',
      problems,
    );
  }
  const wire = input as JsonObject & EmergenceMessage;
  let extensions: JsonObject | undefined;
  for (const key of Object.keys(wire)) {
    if (key.startsWith(EMERGENCE_EXTENSION_PREFIX)) {
      extensions ??= {};
      extensions[key] = wire[key] as JsonValue;
    }
  }
  const envelope: Envelope = {
    id: wire.id,
    kind: emergenceKindOfVerb(wire.verb),
    from: wire.from,
    to: wire.to,
    verb: wire.verb,
    data: wire.data,
  };
  return extensions === undefined ? envelope : { ...envelope, extensions };
}

function wireVerb(envelope: Envelope, problems: Problem[]): string {
  switch (envelope.kind) {
    case 'hello':
      return 'HELLO';
    case 'response':
      return 'DONE';
    case 'error':
      return 'ERROR';
    case 'request':
      if (isEmergenceCoreVerb(envelope.verb) && envelope.verb !== 'HELP') {
        problems.push({
          pointer: '/verb',
          message: `a request cannot use the verb ${envelope.verb}; it would decode as a ${emergenceKindOfVerb(envelope.verb)} (use that kind instead)`,
        });
      }
      return envelope.verb;
    default:
      problems.push({
        pointer: '/kind',
        message: `an envelope of kind "${envelope.kind}" has no Emergence form (Emergence has hello, request, response and error)`,
      });
      return envelope.verb;
  }
}

/** The wire `data` of an error envelope whose data is a core `ErrorData`, or undefined when it is wire-shaped. */
function errorDataToWire(
  data: JsonObject,
  problems: Problem[],
): { data: JsonObject; plexus: JsonObject } | undefined {
  if (typeof data.code !== 'string') return undefined;
  const { code, message, retryable, details } = data;
  if (!isPlexusErrorCode(code)) {
    problems.push({ pointer: '/data/code', message: `"${code}" is not a Plexus error code` });
    return undefined;
  }
  if (typeof message !== 'string') {
    problems.push({ pointer: '/data/message', message: 'an ErrorData must carry a string message' });
    return undefined;
  }
  const plexus: JsonObject = {
    code,
    retryable: typeof retryable === 'boolean' ? retryable : ERROR_TABLE[code].retryable,
  };
  if (details !== undefined) plexus.details = details;
  return { data: { code: EMERGENCE_ERRORS[code], msg: message }, plexus };
}

/**
 * Encodes an Envelope as an Emergence message.
 *
 * The wire verb comes from the kind for `hello` (HELLO), `response` (DONE) and `error` (ERROR),
 * whatever `envelope.verb` says (the core convention lets an answer carry its request's verb);
 * a `request` uses `envelope.verb`, which must be ALL-CAPS and not HELLO, DONE or ERROR. An
 * error envelope whose `data` is a core `ErrorData` (`{code: 'RATE_LIMITED', message,
 * retryable}`) becomes `{code: <EMERGENCE_ERRORS[code]>, msg: message}`, and the Plexus
 * code, `retryable` and `details` travel in the `_x_plexus_error` extension; one whose `data`
 * is already `{code: integer, msg}` is sent as is.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when the envelope cannot be an
 *   Emergence message (another kind, a verb that is not ALL-CAPS, an id that is not a UUID
 *   v4, a DONE without `result`, an extension key without `_x_`, or — unless
 *   `unsupportedFields: 'drop'` — a field Emergence does not carry).
 */
export function encodeEmergence(envelope: Envelope, init: EmergenceCodecInit = {}): EmergenceMessage {
  const problems: Problem[] = [];
  if ((init.unsupportedFields ?? 'reject') === 'reject') {
    for (const [key, value] of Object.entries(envelope)) {
      if (!CARRIED_FIELDS.has(key) && value !== undefined) {
        problems.push({
          pointer: childPointer('', key),
          message: `Emergence has no place for "${key}"; drop it or encode with unsupportedFields: 'drop'`,
        });
      }
    }
  }
  const verb = wireVerb(envelope, problems);
  let data = envelope.data;
  let plexusError: JsonObject | undefined;
  if (envelope.kind === 'error' && isJsonObject(data)) {
    const converted = errorDataToWire(data, problems);
    if (converted !== undefined) {
      data = converted.data;
      plexusError = converted.plexus;
    }
  }
  const wire: Record<string, JsonValue> = {
    id: envelope.id,
    from: envelope.from,
    to: envelope.to,
    verb,
    data,
  };
  for (const [key, value] of Object.entries(envelope.extensions ?? {})) {
    if (!key.startsWith(EMERGENCE_EXTENSION_PREFIX)) {
      problems.push({
        pointer: childPointer('/extensions', key),
        message: `extension key "${key}" must start with "_x_"`,
      });
    } else {
      wire[key] = value;
    }
  }
  if (plexusError !== undefined) wire[PLEXUS_ERROR_EXTENSION] = plexusError;
  // Problems already reported on a field (e.g. a bad ErrorData) are not repeated by the wire check.
  const reported = problems.map((p) => p.pointer);
  problems.push(
    ...validateEmergence(wire).filter(
      (p) =>
        !reported.some((r) => p.pointer === r || (p.pointer.startsWith('/data/') && r.startsWith('/data/'))),
    ),
  );
  if (problems.length > 0) {
    throw problemsError('INVALID_PARAMS', 'envelope cannot be encoded as an Emergence message', problems);
  }
  return wire as unknown as EmergenceMessage;
}

/**
 * A {@link WireCodec} for Emergence.
 *
 * @example
 * const codec = createEmergenceCodec({ unsupportedFields: 'drop' });
 * const wire = codec.encode(envelope);
 */
export function createEmergenceCodec(init: EmergenceCodecInit = {}): WireCodec<EmergenceMessage> {
  return {
    format: 'emergence',
    validate: validateEmergence,
    decode: decodeEmergence,
    encode: (envelope) => encodeEmergence(envelope, init),
  };
}

/** The Emergence codec with default options (unsupported Envelope fields are rejected). */
export const emergenceCodec: WireCodec<EmergenceMessage> = createEmergenceCodec();
