/**
 * The JSON-RPC 2.0 codec: one JSON-RPC message ⇄ the core Envelope.
 *
 * | wire | Envelope |
 * |---|---|
 * | request | kind `request`, verb = method, data = params (`null` when absent), id |
 * | notification | kind `notification`, verb = method, data = params or `null`, id `''` |
 * | result response | kind `response`, verb `''`, data = result, id |
 * | error response | kind `error`, verb `''`, data = ErrorData, extension `_x_jsonrpc_code` |
 *
 * JSON-RPC carries no addresses: `from` and `to` decode as `''` and are not encoded (the
 * transport knows the peer). A string id is the Envelope id; a number or null id is kept in
 * `_x_jsonrpc_id` and its JSON text (`"7"`, `"null"`) is the Envelope id. `params` is never
 * null on the wire, so `data: null` means "no params". An error's `data` member becomes the
 * ErrorData `details` when it is an object, else the `_x_jsonrpc_error_data` extension.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, isPlexusErrorCode } from '../../core/errors.js';
import { plexusCodeFromJsonRpc } from './error-table.js';
import type { PlexusErrorCode } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { childPointer, formatProblem } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import type { WireCodec } from '../codec.js';
import { jsonRpcErrorToData, toJsonRpcError } from './errors.js';
import type { JsonRpcCodeTable } from './errors.js';
import { JSONRPC_EXTENSIONS, JSONRPC_VERSION, jsonRpcIdText } from './message.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcMessage } from './message.js';
import { validateJsonRpc, validateJsonRpcMessage } from './validate.js';

const CARRIED_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'kind',
  'from',
  'to',
  'verb',
  'data',
  'extensions',
]);
const EXTENSION_KEYS: ReadonlySet<string> = new Set(Object.values(JSONRPC_EXTENSIONS));

/** Options for {@link createJsonRpcCodec}. */
export interface JsonRpcCodecInit {
  /**
   * The code table for errors born in Plexus (those without `_x_jsonrpc_code`).
   * @default 'jsonrpc'
   */
  readonly codes?: JsonRpcCodeTable;
  /**
   * What `encode` does with Envelope fields JSON-RPC cannot carry (`correlationId`,
   * `traceparent`, other extensions, …): `'reject'` throws `INVALID_PARAMS` naming them,
   * `'drop'` leaves them out.
   * @default 'reject'
   */
  readonly unsupportedFields?: 'reject' | 'drop';
}

function problemsError(code: PlexusErrorCode, what: string, problems: readonly Problem[]): PlexusError {
  const first = problems[0];
  const head = first === undefined ? what : `${what}: ${formatProblem(first)}`;
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new PlexusError(code, head + more, {
    details: { problems: problems.map((p) => ({ pointer: p.pointer, message: p.message })) },
  });
}

function idFields(id: JsonRpcId): { id: string; extensions?: JsonObject } {
  return typeof id === 'string'
    ? { id }
    : { id: jsonRpcIdText(id), extensions: { [JSONRPC_EXTENSIONS.id]: id } };
}

/**
 * Decodes a message already known to be valid (see {@link validateJsonRpcMessage}).
 * @throws never for valid input; behaviour on invalid input is undefined.
 */
export function decodeValidJsonRpc(message: JsonRpcMessage): Envelope {
  if ('method' in message) {
    const data = message.params ?? null;
    if (!('id' in message)) {
      return { id: '', kind: 'notification', from: '', to: '', verb: message.method, data };
    }
    return { ...idFields(message.id), kind: 'request', from: '', to: '', verb: message.method, data };
  }
  const ids = idFields(message.id);
  if ('result' in message) {
    return { ...ids, kind: 'response', from: '', to: '', verb: '', data: message.result };
  }
  const extensions: JsonObject = { ...ids.extensions, [JSONRPC_EXTENSIONS.code]: message.error.code };
  const errorData = message.error.data;
  if (errorData !== undefined && !isJsonObject(errorData))
    extensions[JSONRPC_EXTENSIONS.errorData] = errorData;
  return {
    id: ids.id,
    kind: 'error',
    from: '',
    to: '',
    verb: '',
    data: jsonRpcErrorToData(message.error),
    extensions,
  };
}

/**
 * Decodes one JSON-RPC message to an Envelope.
 *
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` when `input` is not a valid
 *   JSON-RPC 2.0 message (a batch array included: use {@link decodeJsonRpcBatch}).
 */
export function decodeJsonRpc(input: unknown): Envelope {
  const problems = Array.isArray(input)
    ? [{ pointer: '', message: 'this is a batch (an array); decode it with decodeJsonRpcBatch' }]
    : validateJsonRpcMessage(input);
  if (problems.length > 0) throw problemsError('INVALID_REQUEST', 'invalid JSON-RPC message', problems);
  return decodeValidJsonRpc(input as JsonRpcMessage);
}

/**
 * Decodes a JSON-RPC batch (a non-empty array of messages) to Envelopes, in order.
 *
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` (pointers `/<index>/…`) when
 *   `input` is not an array, is empty, or any member is invalid.
 */
export function decodeJsonRpcBatch(input: unknown): Envelope[] {
  const problems = Array.isArray(input)
    ? validateJsonRpc(input)
    : [{ pointer: '', message: 'a batch must be an array of JSON-RPC messages' }];
  if (problems.length > 0) throw problemsError('INVALID_REQUEST', 'invalid JSON-RPC batch', problems);
  return (input as JsonRpcMessage[]).map(decodeValidJsonRpc);
}

function encodeId(envelope: Envelope, problems: Problem[]): JsonRpcId {
  const ext = envelope.extensions?.[JSONRPC_EXTENSIONS.id];
  if (ext === undefined) return envelope.id;
  if (typeof ext !== 'string' && typeof ext !== 'number' && ext !== null) {
    problems.push({
      pointer: childPointer('/extensions', JSONRPC_EXTENSIONS.id),
      message: `${JSONRPC_EXTENSIONS.id} must be a number or null (the original JSON-RPC id)`,
    });
    return envelope.id;
  }
  if (jsonRpcIdText(ext) !== envelope.id) {
    problems.push({
      pointer: '/id',
      message: `id "${envelope.id}" disagrees with ${JSONRPC_EXTENSIONS.id} ${JSON.stringify(ext)}; change both or drop the extension`,
    });
  }
  return ext;
}

function encodeError(envelope: Envelope, init: JsonRpcCodecInit, problems: Problem[]): JsonRpcErrorObject {
  const data = envelope.data;
  if (!isJsonObject(data) || !isPlexusErrorCode(data.code) || typeof data.message !== 'string') {
    problems.push({
      pointer: '/data',
      message: 'an error envelope must carry an ErrorData {code, message, retryable}',
    });
    return { code: -32603, message: 'Internal error' };
  }
  const details = data.details;
  if (details !== undefined && !isJsonObject(details)) {
    problems.push({ pointer: '/data/details', message: 'ErrorData details must be an object' });
  }
  const extensions = envelope.extensions ?? {};
  const hasExtData = Object.prototype.hasOwnProperty.call(extensions, JSONRPC_EXTENSIONS.errorData);
  if (hasExtData && details !== undefined) {
    problems.push({
      pointer: childPointer('/extensions', JSONRPC_EXTENSIONS.errorData),
      message: `both data.details and ${JSONRPC_EXTENSIONS.errorData} would be the error's data member; keep one`,
    });
  }
  // `null` is a legitimate error data member, so presence is judged by the key, not the value.
  const wireData = hasExtData ? extensions[JSONRPC_EXTENSIONS.errorData] : details;
  const extCode = envelope.extensions?.[JSONRPC_EXTENSIONS.code];
  if (extCode === undefined) {
    return toJsonRpcError(
      { code: data.code, message: data.message, retryable: data.retryable === true },
      { codes: init.codes ?? 'jsonrpc', data: wireData },
    );
  }
  if (typeof extCode !== 'number' || plexusCodeFromJsonRpc(extCode) !== data.code) {
    problems.push({
      pointer: childPointer('/extensions', JSONRPC_EXTENSIONS.code),
      message: `${JSONRPC_EXTENSIONS.code} ${JSON.stringify(extCode)} does not read as ${data.code}; change both or drop the extension`,
    });
  }
  const code = typeof extCode === 'number' ? extCode : -32603;
  return wireData === undefined
    ? { code, message: data.message }
    : { code, message: data.message, data: wireData };
}

/**
 * Encodes an Envelope as one JSON-RPC message. `from`, `to`, and the verb of answers are not
 * carried; neither is the id of a notification.
 *
 * An error envelope re-encodes exactly when it carries `_x_jsonrpc_code` (it was decoded from
 * JSON-RPC); an error born in Plexus gets its code from `JSONRPC_ERRORS` (`init.codes`), the
 * spec's standard message for standard codes, and its `details` as `data`.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when the envelope cannot be a
 *   JSON-RPC message: another kind, `data` of a request not an array / object / null, an error
 *   without an ErrorData, an extension that disagrees with the envelope, or — unless
 *   `unsupportedFields: 'drop'` — a field or extension JSON-RPC does not carry.
 */
export function encodeJsonRpc(envelope: Envelope, init: JsonRpcCodecInit = {}): JsonRpcMessage {
  const problems: Problem[] = [];
  if ((init.unsupportedFields ?? 'reject') === 'reject') {
    for (const [key, value] of Object.entries(envelope)) {
      if (!CARRIED_FIELDS.has(key) && value !== undefined) {
        problems.push({
          pointer: childPointer('', key),
          message: `JSON-RPC has no place for "${key}"; drop it or encode with unsupportedFields: 'drop'`,
        });
      }
    }
    for (const key of Object.keys(envelope.extensions ?? {})) {
      if (!EXTENSION_KEYS.has(key)) {
        problems.push({
          pointer: childPointer('/extensions', key),
          message: `JSON-RPC has no place for extension "${key}"; drop it or encode with unsupportedFields: 'drop'`,
        });
      }
    }
  }
  let wire: Record<string, JsonValue>;
  switch (envelope.kind) {
    case 'request':
    case 'notification': {
      wire = { jsonrpc: JSONRPC_VERSION, method: envelope.verb };
      const data = envelope.data;
      if (data !== null) {
        if (!Array.isArray(data) && !isJsonObject(data)) {
          problems.push({
            pointer: '/data',
            message: 'JSON-RPC params must be an array or an object; use null for "no params"',
          });
        }
        wire.params = data;
      }
      if (envelope.kind === 'request') {
        wire.id = encodeId(envelope, problems);
      } else if (envelope.extensions?.[JSONRPC_EXTENSIONS.id] !== undefined) {
        problems.push({
          pointer: childPointer('/extensions', JSONRPC_EXTENSIONS.id),
          message: 'a notification has no id; drop the extension or make it a request',
        });
      }
      break;
    }
    case 'response':
      wire = { jsonrpc: JSONRPC_VERSION, result: envelope.data, id: encodeId(envelope, problems) };
      break;
    case 'error':
      wire = {
        jsonrpc: JSONRPC_VERSION,
        error: encodeError(envelope, init, problems) as unknown as JsonObject,
        id: encodeId(envelope, problems),
      };
      break;
    default:
      problems.push({
        pointer: '/kind',
        message: `an envelope of kind "${envelope.kind}" has no JSON-RPC form (request, notification, response, error)`,
      });
      wire = {};
  }
  if (problems.length === 0) problems.push(...validateJsonRpcMessage(wire));
  if (problems.length > 0) {
    throw problemsError('INVALID_PARAMS', 'envelope cannot be encoded as a JSON-RPC message', problems);
  }
  return wire as unknown as JsonRpcMessage;
}

/**
 * A {@link WireCodec} for one JSON-RPC 2.0 message (batches: {@link decodeJsonRpcBatch}).
 *
 * @example
 * const hyperspace = createJsonRpcCodec({ codes: 'hyperspace' });
 */
export function createJsonRpcCodec(init: JsonRpcCodecInit = {}): WireCodec<JsonRpcMessage> {
  return {
    format: 'jsonrpc',
    validate: validateJsonRpc,
    decode: decodeJsonRpc,
    encode: (envelope) => encodeJsonRpc(envelope, init),
  };
}

/** The JSON-RPC codec with default options (standard codes; unsupported fields rejected). */
export const jsonRpcCodec: WireCodec<JsonRpcMessage> = createJsonRpcCodec();
