/**
 * Reading JSON-RPC text: one message, a batch, or a parse error (spec §5, §6).
 */
import type { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import { parseJson } from '../../core/parse-json.js';
import { toPlexusError } from '../../core/errors.js';

/** What a piece of JSON-RPC text turned out to be. */
export type JsonRpcParsed =
  /** One value (not necessarily a valid message). */
  | { readonly type: 'single'; readonly message: JsonValue }
  /** An array of values (possibly empty, members not necessarily valid). */
  | { readonly type: 'batch'; readonly messages: readonly JsonValue[] }
  /** The text is not JSON; `error` is a `PARSE_ERROR` naming line and column. */
  | { readonly type: 'parse-error'; readonly error: PlexusError };

/**
 * Classifies an already-parsed JSON value: an array is a batch, anything else a single
 * message.
 * @throws never.
 */
export function classifyJsonRpc(value: JsonValue): JsonRpcParsed {
  return Array.isArray(value) ? { type: 'batch', messages: value } : { type: 'single', message: value };
}

/**
 * Parses JSON-RPC text and classifies it as a single message, a batch, or a parse error.
 * Invalid JSON anywhere (a broken batch member included) is a parse error of the whole text,
 * as the spec's examples require.
 * @throws never: a parse failure is returned as `{type: 'parse-error'}`.
 */
export function parseJsonRpcText(text: string): JsonRpcParsed {
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch (thrown) {
    return { type: 'parse-error', error: toPlexusError(thrown) };
  }
  return classifyJsonRpc(value);
}
