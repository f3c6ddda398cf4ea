/**
 * RFC 8785 JSON Canonicalization Scheme (the `jcs` profile of DESIGN D1).
 *
 * Keys are sorted by UTF-16 code units, numbers use the ECMAScript Number-to-String form,
 * strings use the JSON.stringify escaping that RFC 8785 §3.2.2.2 adopts, and there is no
 * whitespace. Input must be I-JSON: no NaN/Infinity, no lone surrogates.
 */
import { PlexusError } from '../errors.js';

/**
 * Returns the RFC 8785 canonical text of `value`.
 *
 * @throws PlexusError `INVALID_PARAMS` for a non-finite number, a lone surrogate, or a value
 *   that is not JSON (undefined, function, symbol, bigint).
 */
export function canonicalizeJcs(value: unknown): string {
  return write(value);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function writeString(s: string): string {
  if (LONE_SURROGATE.test(s)) {
    throw new PlexusError('INVALID_PARAMS', 'string contains a lone surrogate; RFC 8785 requires I-JSON');
  }
  return JSON.stringify(s);
}

function write(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new PlexusError('INVALID_PARAMS', `number ${String(value)} is not valid JSON`);
      }
      return Object.is(value, -0) ? '0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          out += write(value[i]);
        }
        return out + ']';
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const v = obj[key];
        if (v === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += writeString(key) + ':' + write(v);
      }
      return out + '}';
    }
    default:
      throw new PlexusError('INVALID_PARAMS', `a ${typeof value} is not a JSON value`);
  }
}
