/**
 * Reading an ESRP response's outputs back as a handler's value: a node writes a handler's
 * plain JSON output as a single `result` output with `application/json` content.
 */
import { isJsonObject } from '../../core/json.js';
import type { JsonValue } from '../../core/json.js';

/**
 * The JSON of a single `application/json` output named `result`; otherwise (several
 * outputs, another content type, text that is not JSON) the outputs themselves.
 * @throws never.
 */
export function resultOfOutputs(outputs: unknown): JsonValue {
  if (!Array.isArray(outputs)) return null;
  const [only] = outputs as JsonValue[];
  if (
    outputs.length === 1 &&
    isJsonObject(only) &&
    only['name'] === 'result' &&
    typeof only['data'] === 'string' &&
    typeof only['content_type'] === 'string' &&
    only['content_type'].startsWith('application/json')
  ) {
    try {
      return JSON.parse(only['data']) as JsonValue;
    } catch {
      return only;
    }
  }
  return outputs as JsonValue[];
}
