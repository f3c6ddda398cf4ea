/**
 * JSON text parsing that keeps every number's source text (`lossless-json`), for the `esrp`
 * canonical profile and the ESRP typed parse.
 */
import { LosslessNumber, parse } from 'lossless-json';
import { PlexusError } from '../errors.js';
import { lineColumnAt } from '../parse-json.js';

/**
 * Parses JSON text, keeping every number as a `LosslessNumber` (its exact source text).
 *
 * A key repeated with a different value is an error; repeated with an equal value it is kept once.
 *
 * @throws PlexusError `PARSE_ERROR` naming the line and column where parsing failed, with
 *   `details: { line, column }` when the position is known.
 */
export function parseJsonLossless(text: string): unknown {
  if (text.trim() === '') {
    throw new PlexusError('PARSE_ERROR', 'the input is empty; expected a JSON document');
  }
  const fast = parseFast(text);
  if (fast !== NOT_FAST) return fast;
  try {
    return parse(text);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const match = /(?:at )?position (\d+)/.exec(message);
    if (match?.[1] === undefined) {
      throw new PlexusError('PARSE_ERROR', `invalid JSON: ${message}`, { cause });
    }
    const { line, column } = lineColumnAt(text, Number(match[1]));
    const what = message.replace(/ (?:encountered )?at position \d+.*$/, '');
    throw new PlexusError('PARSE_ERROR', `invalid JSON at line ${line}, column ${column}: ${what}`, {
      cause,
      details: { line, column },
    });
  }
}

/** Returned by {@link parseFast} when the text must take the lossless parser. */
const NOT_FAST: unique symbol = Symbol('not fast');

/** Integers of at most this many digits read back from a double with the same text. */
const MAX_EXACT_DIGITS = 15;

/**
 * The fast path of {@link parseJsonLossless}: the native `JSON.parse`, then every number
 * turned into a `LosslessNumber` of its text. Taken only when that text is exactly
 * `String(number)`: every number is an integer of at most 15 digits, not `-0`. A duplicate
 * key (fewer keys parsed than name separators in the text), a `__proto__` key, invalid JSON
 * or any other number returns {@link NOT_FAST}, and the lossless parser (with its own
 * duplicate-key rule and error positions) reads the text instead.
 */
function parseFast(text: string): unknown {
  if (text.includes('__proto__')) return NOT_FAST;
  const pairs = countPairs(text);
  if (pairs < 0) return NOT_FAST;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_FAST;
  }
  const counter = { keys: 0 };
  const out = toLossless(value, counter);
  return counter.keys === pairs ? out : NOT_FAST;
}

/**
 * Counts the name separators (`:`) outside strings, or returns -1 when a number outside
 * strings is not a plain integer of at most {@link MAX_EXACT_DIGITS} digits (or is `-0`).
 */
function countPairs(text: string): number {
  let pairs = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x3a) {
      pairs++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = c === 0x2d ? i + 1 : i;
      let end = start;
      while (end < n && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
      const next = end < n ? text.charCodeAt(end) : 0;
      // a fraction or exponent, too many digits, or -0: the lossless parser keeps the text
      if (next === 0x2e || next === 0x65 || next === 0x45) return -1;
      if (end - start > MAX_EXACT_DIGITS || end === start) return -1;
      if (c === 0x2d && end - start === 1 && text.charCodeAt(start) === 0x30) return -1;
      i = end - 1;
    }
  }
  return pairs;
}

/** Replaces every number in a fresh `JSON.parse` result by its `LosslessNumber`, counting keys. */
function toLossless(value: unknown, counter: { keys: number }): unknown {
  if (typeof value === 'number') return new LosslessNumber(String(value));
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const a = value as unknown[];
    for (let i = 0; i < a.length; i++) a[i] = toLossless(a[i], counter);
    return a;
  }
  const o = value as Record<string, unknown>;
  for (const key in o) {
    counter.keys++;
    o[key] = toLossless(o[key], counter);
  }
  return o;
}
