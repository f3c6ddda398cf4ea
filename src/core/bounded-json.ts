/**
 * The one bounded JSON decoder every face reads its input with: the text is scanned once
 * before it is parsed — its size, and the nesting depth counted bracket by bracket, refused
 * the moment it passes the limit — so no input reaches a recursive walk (schema checks,
 * canonical JSON, the event log) deeper than {@link MAX_JSON_DEPTH}; then it is parsed; then,
 * only when the scan saw something that might not be recordable (a surrogate, or a number
 * that may overflow a double), the value is checked for what the event log refuses.
 */
import { parseJsonLossless } from './canonical/lossless.js';
import { PlexusError } from './errors.js';
import { lineColumnAt, parseJson } from './parse-json.js';
import { MAX_JSON_DEPTH, recordableProblem } from './recordable.js';

/** Options of {@link decodeJsonText} and {@link scanJsonText}. */
export interface JsonTextLimits {
  /** Deepest accepted nesting of arrays and objects. @default MAX_JSON_DEPTH */
  readonly maxDepth?: number;
  /** Largest accepted text, UTF-8 bytes. @default no limit (the transport bounds it) */
  readonly maxBytes?: number;
}

/** Options of {@link decodeJsonText}. */
export interface DecodeJsonOptions extends JsonTextLimits {
  /** Names the document in messages (`the peer request body is not valid JSON …`). */
  readonly what?: string;
  /** Keep every number's source text (`lossless-json`), as the ESRP face needs. @default false */
  readonly lossless?: boolean;
  /**
   * Check the value can be recorded in the event log (no lone surrogate, no number that
   * overflows to Infinity). `false` leaves it to the caller ({@link ScannedJson.suspect}).
   * @default true
   */
  readonly recordable?: boolean;
}

/** What {@link scanJsonText} learnt of a text within the limits. */
export interface ScannedJson {
  /**
   * True when the text holds a surrogate (escaped or not, paired or not) or a number with an
   * exponent or over 300 characters: only then can the parsed value fail the event log's
   * checks, so only then is it walked.
   */
  readonly suspect: boolean;
}

function tooDeep(text: string, offset: number, maxDepth: number): PlexusError {
  const { line, column } = lineColumnAt(text, offset);
  return new PlexusError(
    'INVALID_REQUEST',
    `the JSON nests deeper than ${maxDepth} levels of arrays and objects (at line ${line}, column ${column}); flatten the data`,
    { details: { limit: maxDepth, line, column } },
  );
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Checks the size and the nesting depth of JSON text without parsing it. Brackets inside
 * strings are not counted; the text need not be valid JSON (the parser judges that).
 *
 * @throws PlexusError `INPUT_TOO_LARGE` (details `limitBytes`, `size`) over `maxBytes`;
 *   `INVALID_REQUEST` (details `limit`, `line`, `column`) at the first bracket past `maxDepth`.
 */
export function scanJsonText(text: string, limits: JsonTextLimits = {}): ScannedJson {
  const { maxBytes } = limits;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text that might be too large is measured.
  if (maxBytes !== undefined && text.length * 3 > maxBytes) {
    const size = utf8Length(text);
    if (size > maxBytes) {
      throw new PlexusError('INPUT_TOO_LARGE', `the JSON text is ${size} bytes; the limit is ${maxBytes}`, {
        details: { limitBytes: maxBytes, size },
      });
    }
  }
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  let depth = 0;
  let suspect = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c) {
          // \uD800-\uDFFF (first hex digit d or D): a surrogate escape, maybe a lone one
          if (text.charCodeAt(i + 1) === 0x75 && (text.charCodeAt(i + 2) | 0x20) === 0x64) suspect = true;
          i++;
        } else if (d >= 0xd800 && d <= 0xdfff) {
          const e = text.charCodeAt(i + 1);
          if (d <= 0xdbff && e >= 0xdc00 && e <= 0xdfff) i++;
          else suspect = true;
        }
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > maxDepth) throw tooDeep(text, i, maxDepth);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2b || d === 0x2d || (d | 0x20) === 0x65)) {
          break;
        }
        if ((d | 0x20) === 0x65) suspect = true;
        i++;
      }
      if (i - start >= 300) suspect = true;
    }
  }
  return { suspect };
}

/**
 * Parses JSON text within the limits (see the module comment).
 *
 * @throws PlexusError `INPUT_TOO_LARGE` over `maxBytes`; `INVALID_REQUEST` past `maxDepth`;
 *   `PARSE_ERROR` (line and column) when the text is not JSON; `INVALID_PARAMS` with
 *   `details.pointer` when the value cannot be recorded in the event log (a lone surrogate,
 *   a number beyond the range of a double). None is retryable.
 * @example decodeJsonText(body, { what: 'the request body' })
 */
export function decodeJsonText(text: string, options: DecodeJsonOptions = {}): unknown {
  const { suspect } = scanJsonText(text, options);
  const value = options.lossless === true ? parseJsonLossless(text) : parseJson(text, options.what);
  if (suspect && options.recordable !== false) {
    const problem = recordableProblem(
      value,
      options.maxDepth ?? MAX_JSON_DEPTH,
      '',
      options.lossless === true,
    );
    if (problem !== undefined) {
      throw new PlexusError('INVALID_PARAMS', problem.message, { details: { pointer: problem.pointer } });
    }
  }
  return value;
}
