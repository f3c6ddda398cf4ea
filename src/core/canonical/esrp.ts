/**
 * The `esrp` canonical JSON profile (DESIGN D1): the ESRP v1 reference rules.
 *
 * - object keys sorted by their UTF-8 bytes (code point order), arrays kept in order;
 * - every non-integer number rejected, judged on the number's source text when there is
 *   one (`56.0` and `1e3` are rejected even though they hold integer values), and integers
 *   of any size written exactly;
 * - strings written as UTF-8 with `"` `\` `\n` `\r` `\t` escaped by their short forms and
 *   every other control character (U+0000–U+001F, U+007F–U+009F) as `\u00xx` in lower-case
 *   hex, so `\b` and `\f` become `\u0008` and `\u000c`; no lone surrogates;
 * - no whitespace.
 */
import { isLosslessNumber } from 'lossless-json';
import { PlexusError } from '../errors.js';
import { escapePointerToken } from '../problem.js';
import { hasLoneSurrogate } from './jcs.js';
import { parseJsonLossless } from './lossless.js';

/**
 * A JSON value as the `esrp` profile holds it: integers that fit a double exactly are
 * numbers, larger ones are bigints.
 */
export type EsrpJsonValue =
  null | boolean | string | number | bigint | EsrpJsonValue[] | { [key: string]: EsrpJsonValue };

/** A JSON object in the `esrp` profile. */
export interface EsrpJsonObject {
  [key: string]: EsrpJsonValue;
}

/**
 * Returns the `esrp` canonical text of the JSON document `text`, judging every number on
 * its source text.
 *
 * @throws PlexusError `PARSE_ERROR` when `text` is not JSON (or repeats a key with a
 *   different value); `INVALID_PARAMS` for a non-integer number or a lone surrogate, with
 *   `details.pointer` naming where it is.
 * @example canonicalizeEsrpText('{"b": 1, "a": "x"}') // '{"a":"x","b":1}'
 */
export function canonicalizeEsrpText(text: string): string {
  return canonicalizeEsrp(parseJsonLossless(text));
}

/**
 * Returns the `esrp` canonical text of an already parsed value.
 *
 * Numbers may be JavaScript numbers (safe integers only: a larger integer has already lost
 * its digits, so pass a bigint), bigints, or `lossless-json` LosslessNumbers (judged on their
 * source text). Object properties whose value is `undefined` are skipped.
 *
 * @throws PlexusError `INVALID_PARAMS` for a non-integer or unsafe number, a lone surrogate,
 *   or a value that is not JSON; the message and `details.pointer` name the JSON pointer.
 */
export function canonicalizeEsrp(value: unknown): string {
  // The fast walk builds no JSON pointers; after a refusal the walk runs again with them, so
  // the error names the place (Perf-P6-003).
  try {
    return write(value, null);
  } catch {
    return write(value, '');
  }
}

/** Whether `keys` are already in UTF-8 byte order (then they need no sort). */
function inUtf8Order(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) {
    if (compareUtf8(keys[i - 1] as string, keys[i] as string) > 0) return false;
  }
  return true;
}

/** Compares two strings by their UTF-8 bytes (which is code point order). */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) encode code points above U+FFFF: move them above U+E000–U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** The source-text form of a JSON integer. */
const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Why the JSON number `text` is not an integer in the `esrp` profile, or `undefined` when it
 * is one. `-0` is refused: the reference reads it as a float.
 */
export function nonIntegerReason(text: string): string | undefined {
  if (INTEGER_TEXT.test(text)) {
    return text === '-0' ? 'is negative zero, which ESRP reads as a float' : undefined;
  }
  if (/[eE]/.test(text)) return 'is written with an exponent';
  return 'has a fraction part';
}

/** `pointer` is the JSON pointer of `value`, or `null` on the fast walk (no pointers built). */
function write(value: unknown, pointer: string | null): string {
  switch (typeof value) {
    case 'string':
      return writeString(value, pointer);
    case 'number':
      return writeNumber(value, pointer);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          const at = pointer === null ? null : `${pointer}/${i}`;
          if (item === undefined) throw invalid('undefined is not a JSON value', at);
          out += write(item, at);
        }
        return out + ']';
      }
      if (isLosslessNumber(value)) return writeNumberText(value.value, pointer);
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw invalid('the value is not a plain JSON object', pointer);
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj);
      if (!inUtf8Order(keys)) keys.sort(compareUtf8);
      let out = '{';
      let first = true;
      for (const key of keys) {
        const item = obj[key];
        if (item === undefined) continue;
        if (!first) out += ',';
        first = false;
        const at = pointer === null ? null : `${pointer}/${escapePointerToken(key)}`;
        out += writeString(key, at) + ':' + write(item, at);
      }
      return out + '}';
    }
    default:
      throw invalid(`a ${typeof value} is not a JSON value`, pointer);
  }
}

function writeNumber(n: number, pointer: string | null): string {
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? '0' : String(n);
  if (Number.isInteger(n)) {
    throw invalid(
      `number ${String(n)} is an integer beyond 2^53 held as a double, so its digits may be lost; pass it as a bigint or parse the text with canonicalizeEsrpText`,
      pointer,
    );
  }
  throw invalid(
    `number ${String(n)} is not an integer; ESRP canonical JSON forbids non-integer numbers (send it as a string, e.g. "${String(n)}")`,
    pointer,
  );
}

function writeNumberText(text: string, pointer: string | null): string {
  const reason = nonIntegerReason(text);
  if (reason === undefined) return text;
  throw invalid(
    `number ${text} ${reason}; ESRP canonical JSON forbids non-integer numbers (send it as a string, e.g. "${text}")`,
    pointer,
  );
}

/** Characters the native escaper writes differently from ESRP, and surrogates. */
const NEEDS_MANUAL = /[\b\f\u007f-\u009f\ud800-\udfff]/;

function writeString(s: string, pointer: string | null): string {
  if (!NEEDS_MANUAL.test(s)) return JSON.stringify(s);
  if (hasLoneSurrogate(s)) {
    throw invalid('the string contains a lone surrogate; ESRP text must be valid UTF-8', pointer);
  }
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let escape: string | undefined;
    if (c === 0x22) escape = '\\"';
    else if (c === 0x5c) escape = '\\\\';
    else if (c === 0x0a) escape = '\\n';
    else if (c === 0x0d) escape = '\\r';
    else if (c === 0x09) escape = '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) escape = '\\u00' + c.toString(16).padStart(2, '0');
    if (escape !== undefined) {
      out += s.slice(start, i) + escape;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

function invalid(message: string, at: string | null): PlexusError {
  const pointer = at ?? '';
  return new PlexusError('INVALID_PARAMS', `${message} (at ${pointer === '' ? '(root)' : pointer})`, {
    details: { pointer },
  });
}
