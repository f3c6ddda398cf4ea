/**
 * Reading JSON-RPC text: one message, a batch, a parse error (spec §5, §6), or text refused by
 * the bounded decoder before parsing (too deep, too large).
 */
import { scanJsonText, type JsonTextLimits } from '../../core/bounded-json.js';
import type { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import { parseJson } from '../../core/parse-json.js';
import { toPlexusError } from '../../core/errors.js';

/** What a piece of JSON-RPC text turned out to be. */
export type JsonRpcParsed =
  /**
   * One value (not necessarily a valid message). `unchecked`: it may hold what the event log
   * cannot record (a lone surrogate, an overflowing number); the handler checks it.
   */
  | { readonly type: 'single'; readonly message: JsonValue; readonly unchecked?: boolean }
  /** An array of values (possibly empty, members not necessarily valid); `unchecked` as above. */
  | { readonly type: 'batch'; readonly messages: readonly JsonValue[]; readonly unchecked?: boolean }
  /** The text is not JSON; `error` is a `PARSE_ERROR` naming line and column. */
  | { readonly type: 'parse-error'; readonly error: PlexusError }
  /**
   * The text was refused before parsing: nested past the depth limit (`INVALID_REQUEST`,
   * answered −32600) or larger than the size limit (`INPUT_TOO_LARGE`, −32600).
   */
  | { readonly type: 'refused'; readonly error: PlexusError };

/**
 * Classifies an already-parsed JSON value: an array is a batch, anything else a single
 * message.
 * @throws never.
 */
export function classifyJsonRpc(value: JsonValue, unchecked = false): JsonRpcParsed {
  const flag = unchecked ? { unchecked } : {};
  return Array.isArray(value)
    ? { type: 'batch', messages: value, ...flag }
    : { type: 'single', message: value, ...flag };
}

/**
 * Parses JSON-RPC text and classifies it as a single message, a batch, a parse error, or a
 * refusal of the bounded decoder (`core/bounded-json.ts`: nesting past `MAX_JSON_DEPTH`, or
 * `limits.maxBytes`). Invalid JSON anywhere (a broken batch member included) is a parse error
 * of the whole text, as the spec's examples require.
 * @throws never: a failure is returned as `{type: 'parse-error'}` or `{type: 'refused'}`.
 */
export function parseJsonRpcText(text: string, limits: JsonTextLimits = {}): JsonRpcParsed {
  let suspect: boolean;
  try {
    ({ suspect } = scanJsonText(text, limits));
  } catch (thrown) {
    return { type: 'refused', error: toPlexusError(thrown) };
  }
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch (thrown) {
    return { type: 'parse-error', error: toPlexusError(thrown) };
  }
  return classifyJsonRpc(value, suspect);
}
