/**
 * The schema language's syntax (docs/schema-language.md): tokens, the tree a type
 * expression parses to, and the lexer. Every token and node carries its offset inside the
 * expression text, so problems point at the exact column.
 */
import { PlexusError } from '../../../core/errors.js';
import type { JsonValue } from '../../../core/json.js';

/** One token of a type expression. */
export interface Token {
  readonly kind: 'ident' | 'number' | 'string' | 'punct' | 'eof';
  /** The source text of the token. */
  readonly text: string;
  /** Offset of the first character. */
  readonly start: number;
  /** Offset after the last character. */
  readonly end: number;
}

/** A type expression, parsed. */
export type TypeNode =
  | { readonly kind: 'name'; readonly name: string; readonly start: number; readonly end: number }
  | {
      readonly kind: 'enum';
      readonly values: readonly { readonly value: string; readonly start: number }[];
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: 'vector'; readonly size: number; readonly start: number; readonly end: number }
  | { readonly kind: 'list'; readonly item: TypeNode; readonly start: number; readonly end: number }
  | { readonly kind: 'map'; readonly value: TypeNode; readonly start: number; readonly end: number }
  | {
      readonly kind: 'union';
      readonly members: readonly TypeNode[];
      readonly start: number;
      readonly end: number;
    }
  | {
      readonly kind: 'range';
      readonly base: TypeNode;
      readonly min?: number;
      readonly max?: number;
      readonly start: number;
      readonly end: number;
    };

/** A field's type: the expression, whether the field may be omitted, and its default. */
export interface FieldType {
  readonly type: TypeNode;
  /** Offset of a trailing `?`, when the field is marked optional. */
  readonly optionalAt?: number;
  /** The default after `=`, with its offset. */
  readonly default?: { readonly value: JsonValue; readonly start: number };
}

/** A syntax error at an offset of the expression. */
export interface SyntaxProblem {
  readonly message: string;
  readonly start: number;
}

/**
 * A syntax error at `start`: a `PlexusError` `INVALID_PARAMS` with `details.start`, thrown
 * inside the lexer and parser and turned into a {@link SyntaxProblem} by `parseFieldType`.
 */
export function typeSyntaxError(message: string, start: number): PlexusError {
  return new PlexusError('INVALID_PARAMS', message, { details: { start } });
}

/** The offset of a syntax error made by {@link typeSyntaxError}, or `undefined` for any other error. */
export function syntaxErrorStart(error: unknown): number | undefined {
  if (!(error instanceof PlexusError)) return undefined;
  const start = error.details?.['start'];
  return typeof start === 'number' ? start : undefined;
}

const PUNCT = ['..', '[', ']', '(', ')', '|', '?', '=', ',', '{', '}'] as const;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const DOUBLE_QUOTED = /"(?:[^"\\]|\\.)*"/y;
const SINGLE_QUOTED = /'[^']*'/y;

function sticky(re: RegExp, text: string, at: number): string | undefined {
  re.lastIndex = at;
  return re.exec(text)?.[0];
}

/**
 * Splits a type expression into tokens (whitespace skipped), ending with an `eof` token.
 * @throws PlexusError `INVALID_PARAMS` (see {@link typeSyntaxError}) at the first character that starts no token.
 */
export function lexType(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const numeric = c === '-' || (c >= '0' && c <= '9');
    const quoted = c === '"' || c === "'";
    const number = numeric ? sticky(NUMBER, text, i) : undefined;
    const punct = number === undefined ? PUNCT.find((p) => text.startsWith(p, i)) : undefined;
    const ident = number === undefined && punct === undefined ? sticky(IDENT, text, i) : undefined;
    const string = quoted ? sticky(c === '"' ? DOUBLE_QUOTED : SINGLE_QUOTED, text, i) : undefined;
    const match = number ?? punct ?? ident ?? string;
    if (match === undefined) {
      if (quoted) throw typeSyntaxError(`unterminated string; close it with ${c}`, i);
      throw typeSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
    }
    const kind: Token['kind'] =
      number !== undefined
        ? 'number'
        : punct !== undefined
          ? 'punct'
          : ident !== undefined
            ? 'ident'
            : 'string';
    tokens.push({ kind, text: match, start: i, end: i + match.length });
    i += match.length;
  }
  tokens.push({ kind: 'eof', text: '', start: text.length, end: text.length });
  return tokens;
}

/** The string value of a `string` token. */
export function stringTokenValue(token: Token): string {
  if (token.text.startsWith("'")) return token.text.slice(1, -1);
  try {
    return JSON.parse(token.text) as string;
  } catch {
    throw typeSyntaxError(
      `${token.text} is not a valid double-quoted string (JSON escapes only)`,
      token.start,
    );
  }
}
