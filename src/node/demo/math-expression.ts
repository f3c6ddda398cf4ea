/**
 * A safe arithmetic evaluator for the demo `math.evaluate` verb: a tokenizer and a
 * recursive-descent parser over numbers, `+ - * / ^`, parentheses and unary minus (or plus).
 * Nothing is ever passed to `eval` or `Function`.
 *
 * Grammar (usual precedence; `^` binds tighter than unary minus and is right-associative,
 * so `-2^2` is `-4` and `2^3^2` is `512`):
 *
 * ```
 * expression := term (("+" | "-") term)*
 * term       := unary (("*" | "/") unary)*
 * unary      := ("-" | "+") unary | power
 * power      := primary ("^" unary)?
 * primary    := number | "(" expression ")"
 * number     := digits ["." digits] | "." digits, then optionally [eE] [+-] digits
 * ```
 *
 * Positions in error messages are 1-based character columns of the expression text.
 */
import { PlexusError } from '../../core/errors.js';

/** The longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 10_000;
/** The deepest nesting of parentheses and unary operators accepted. */
export const MAX_EXPRESSION_DEPTH = 200;

type TokenKind = 'number' | '+' | '-' | '*' | '/' | '^' | '(' | ')' | 'end';

interface Token {
  readonly kind: TokenKind;
  /** 1-based column of the token's first character. */
  readonly position: number;
  /** The token's source text. */
  readonly text: string;
  readonly value?: number;
}

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const OPERATORS = new Set(['+', '-', '*', '/', '^', '(', ')']);

function invalid(message: string, position: number): PlexusError {
  return new PlexusError('INVALID_PARAMS', `${message} at position ${position}`, {
    details: { pointer: '/expression', position },
  });
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'end of expression' : `"${token.text}"`;
}

/** Splits `text` into tokens. @throws PlexusError `INVALID_PARAMS` naming the position of a bad character. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    if (OPERATORS.has(ch)) {
      tokens.push({ kind: ch as TokenKind, position: i + 1, text: ch });
      i++;
      continue;
    }
    const match = NUMBER.exec(text.slice(i, i + 400));
    if (match !== null) {
      const source = match[0];
      const value = Number(source);
      if (!Number.isFinite(value)) throw invalid(`the number ${source} is too large`, i + 1);
      tokens.push({ kind: 'number', position: i + 1, text: source, value });
      i += source.length;
      continue;
    }
    const shown = String.fromCodePoint(text.codePointAt(i) ?? 0);
    throw invalid(`unexpected character ${JSON.stringify(shown)}`, i + 1);
  }
  tokens.push({ kind: 'end', position: text.length + 1, text: '' });
  return tokens;
}

function finite(value: number, operator: Token): number {
  if (!Number.isFinite(value)) {
    throw invalid(`the result of "${operator.text}" is not a finite number`, operator.position);
  }
  return value;
}

/**
 * Evaluates an arithmetic expression.
 *
 * @throws PlexusError `INVALID_PARAMS` (with `details.position`, 1-based) for an empty or
 *   too long expression, an unexpected character or token, an unclosed parenthesis, too deep
 *   nesting, a division by zero or a result that is not a finite number.
 * @example evaluateExpression('2 * (3 + 4) ^ 2') // 98
 */
export function evaluateExpression(text: string): number {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    throw invalid(
      `the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
      MAX_EXPRESSION_LENGTH + 1,
    );
  }
  const tokens = tokenize(text);
  let index = 0;
  let depth = 0;
  const peek = (): Token => tokens[index] as Token;
  const next = (): Token => tokens[index++] as Token;
  const enter = (token: Token): void => {
    if (++depth > MAX_EXPRESSION_DEPTH) {
      throw invalid(`the expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels`, token.position);
    }
  };

  const expression = (): number => {
    let value = term();
    for (let op = peek(); op.kind === '+' || op.kind === '-'; op = peek()) {
      next();
      const right = term();
      value = finite(op.kind === '+' ? value + right : value - right, op);
    }
    return value;
  };

  const term = (): number => {
    let value = unary();
    for (let op = peek(); op.kind === '*' || op.kind === '/'; op = peek()) {
      next();
      const right = unary();
      if (op.kind === '/' && right === 0) throw invalid('division by zero', op.position);
      value = finite(op.kind === '*' ? value * right : value / right, op);
    }
    return value;
  };

  const unary = (): number => {
    const token = peek();
    if (token.kind === '-' || token.kind === '+') {
      next();
      enter(token);
      const operand = unary();
      depth--;
      return token.kind === '-' ? -operand : operand;
    }
    return power();
  };

  const power = (): number => {
    const base = primary();
    const op = peek();
    if (op.kind !== '^') return base;
    next();
    enter(op);
    const exponent = unary();
    depth--;
    return finite(base ** exponent, op);
  };

  const primary = (): number => {
    const token = next();
    if (token.kind === 'number') return token.value as number;
    if (token.kind === '(') {
      enter(token);
      const value = expression();
      depth--;
      const close = next();
      if (close.kind !== ')') {
        throw invalid(
          `expected ")" to close the "(" at position ${token.position}, found ${describe(close)}`,
          close.position,
        );
      }
      return value;
    }
    if (token.kind === 'end') {
      throw invalid(
        text.trim() === '' ? 'the expression is empty' : 'unexpected end of expression',
        token.position,
      );
    }
    throw invalid(`expected a number or "(", found ${describe(token)}`, token.position);
  };

  const value = expression();
  const rest = peek();
  if (rest.kind !== 'end') throw invalid(`unexpected ${describe(rest)}`, rest.position);
  // -0 is not useful to a caller and has no distinct JSON form worth keeping.
  return Object.is(value, -0) ? 0 : value;
}
