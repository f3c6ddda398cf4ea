/**
 * Moving values between the ESRP model (which may hold bigints for integers beyond 2^53)
 * and the Envelope (plain JSON).
 */
import type { EsrpJsonValue } from '../../core/canonical/esrp.js';
import type { JsonValue } from '../../core/json.js';
import { childPointer, type Problem } from '../../core/problem.js';

/**
 * Converts an ESRP value to plain JSON, recording a problem for every bigint: an integer
 * beyond 2^53 cannot travel in an Envelope without losing digits.
 */
export function toEnvelopeJson(value: EsrpJsonValue, pointer: string, problems: Problem[]): JsonValue {
  if (typeof value === 'bigint') {
    problems.push({
      pointer,
      message: `integer ${value} is beyond 2^53 and cannot be carried in a Plexus envelope without losing digits; send it as a string`,
    });
    return null;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v, i) => toEnvelopeJson(v, childPointer(pointer, i), problems));
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) {
    const converted = toEnvelopeJson(v, childPointer(pointer, k), problems);
    if (k === '__proto__') {
      Object.defineProperty(out, k, {
        value: converted,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[k] = converted;
    }
  }
  return out;
}

/** Converts any typed ESRP record to plain JSON (recording bigint problems as above). */
export function recordToJson(record: object, pointer: string, problems: Problem[]): JsonValue {
  return toEnvelopeJson(record as EsrpJsonValue, pointer, problems);
}
