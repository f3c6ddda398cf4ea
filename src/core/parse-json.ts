/**
 * Strict JSON text parsing with errors a person can act on: where the text breaks, as a
 * line and column, instead of a character offset.
 */
import { PlexusError } from './errors.js';
import type { JsonValue } from './json.js';
import { parse as parseLossless } from 'lossless-json';

/** Line and column (both 1-based) of a character offset in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Parses JSON text.
 *
 * The fast native parser runs first; only when it fails is the text read again by
 * `lossless-json`, whose messages say what was expected and where.
 *
 * @throws PlexusError `PARSE_ERROR` naming the line and column where parsing failed, with
 *   `details: { line, column }`.
 */
export function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw describeParseFailure(text, cause);
  }
}

function describeParseFailure(text: string, nativeError: unknown): PlexusError {
  if (text.trim() === '') {
    return new PlexusError('PARSE_ERROR', 'the input is empty; expected a JSON document', {
      cause: nativeError,
    });
  }
  let message = nativeError instanceof Error ? nativeError.message : String(nativeError);
  try {
    parseLossless(text);
  } catch (located) {
    if (located instanceof Error) message = located.message;
  }
  const match = /at position (\d+)/.exec(message);
  if (match?.[1] === undefined) {
    return new PlexusError('PARSE_ERROR', `invalid JSON: ${message}`, { cause: nativeError });
  }
  const { line, column } = lineColumnAt(text, Number(match[1]));
  const what = message.replace(/ at position \d+.*$/, '').replace(/ in JSON$/, '');
  return new PlexusError('PARSE_ERROR', `invalid JSON at line ${line}, column ${column}: ${what}`, {
    cause: nativeError,
    details: { line, column },
  });
}
