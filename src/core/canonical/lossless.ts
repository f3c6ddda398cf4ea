/**
 * JSON text parsing that keeps every number's source text (`lossless-json`), for the `esrp`
 * canonical profile and the ESRP typed parse.
 */
import { parse } from 'lossless-json';
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
