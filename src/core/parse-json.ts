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
 * @param what - names the document in the message (`key file k.json is not valid JSON …`).
 * @throws PlexusError `PARSE_ERROR` naming the line and column where parsing failed, with
 *   `details: { line, column }`.
 */
export function parseJson(text: string, what?: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw describeParseFailure(text, cause, what);
  }
}

function describeParseFailure(text: string, nativeError: unknown, what: string | undefined): PlexusError {
  if (text.trim() === '') {
    const subject = what ?? 'the input';
    return new PlexusError('PARSE_ERROR', `${subject} is empty; expected a JSON document`, {
      cause: nativeError,
    });
  }
  const subject = what === undefined ? 'invalid JSON' : `${what} is not valid JSON`;
  let message = nativeError instanceof Error ? nativeError.message : String(nativeError);
  try {
    parseLossless(text);
  } catch (located) {
    if (located instanceof Error) message = located.message;
  }
  const match = /at position (\d+)/.exec(message);
  if (match?.[1] === undefined) {
    return new PlexusError('PARSE_ERROR', `${subject}: ${message}`, { cause: nativeError });
  }
  const { line, column } = lineColumnAt(text, Number(match[1]));
  const reason = message.replace(/ at position \d+.*$/, '').replace(/ in JSON$/, '');
  return new PlexusError('PARSE_ERROR', `${subject} at line ${line}, column ${column}: ${reason}`, {
    cause: nativeError,
    details: { line, column },
  });
}
