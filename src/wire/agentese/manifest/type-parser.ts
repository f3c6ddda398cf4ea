/**
 * The schema language's parser (docs/schema-language.md): a type expression, optionally
 * followed by `?` (the field may be omitted) and `= default`, into a {@link FieldType}.
 * Recursive descent over the tokens of {@link lexType}.
 */
import type { JsonValue } from '../../../core/json.js';
import { lexType, stringTokenValue, syntaxErrorStart, typeSyntaxError } from './type-syntax.js';
import type { FieldType, SyntaxProblem, Token, TypeNode } from './type-syntax.js';

/** Names that take bracketed arguments: `enum[...]`, `vector[N]`, `list[T]`, `map[T]`. */
export const TYPE_CONSTRUCTORS = ['enum', 'vector', 'list', 'map'] as const;

const CONSTRUCTOR_USAGE: Readonly<Record<(typeof TYPE_CONSTRUCTORS)[number], string>> = {
  enum: 'enum[a, b, c]',
  vector: 'vector[1536]',
  list: 'list[string]',
  map: 'map[string]',
};

function describe(token: Token): string {
  return token.kind === 'eof' ? 'the end of the type' : `"${token.text}"`;
}

function parser(text: string) {
  const tokens = lexType(text);
  let i = 0;
  const peek = (): Token => tokens[i] ?? (tokens[tokens.length - 1] as Token);
  const next = (): Token => {
    const t = peek();
    if (i < tokens.length - 1) i++;
    return t;
  };
  const isPunct = (p: string): boolean => peek().kind === 'punct' && peek().text === p;
  const expect = (p: string, what: string): Token => {
    if (!isPunct(p)) throw typeSyntaxError(`expected ${what}, found ${describe(peek())}`, peek().start);
    return next();
  };

  const integerToken = (what: string): { value: number; token: Token } => {
    const t = next();
    const value = Number(t.text);
    if (t.kind !== 'number' || !Number.isSafeInteger(value)) {
      throw typeSyntaxError(`expected ${what}, found ${describe(t)}`, t.start);
    }
    return { value, token: t };
  };

  function union(): TypeNode {
    const first = postfix();
    const members: TypeNode[] = first.kind === 'union' ? [...first.members] : [first];
    while (isPunct('|')) {
      next();
      const member = postfix();
      if (member.kind === 'union') members.push(...member.members);
      else members.push(member);
    }
    if (members.length === 1) return first;
    const last = members[members.length - 1] as TypeNode;
    return { kind: 'union', members, start: first.start, end: last.end };
  }

  function postfix(): TypeNode {
    let node = primary();
    while (isPunct('[')) {
      const open = next();
      if (isPunct(']')) {
        const close = next();
        node = { kind: 'list', item: node, start: node.start, end: close.end };
        continue;
      }
      const min = peek().kind === 'number' ? Number(next().text) : undefined;
      expect('..', `"]" (a list) or a range such as [0..1] after "["`);
      const max = peek().kind === 'number' ? Number(next().text) : undefined;
      const close = expect(']', '"]" to close the range');
      if (min === undefined && max === undefined) {
        throw typeSyntaxError('a range needs at least one bound, e.g. [0..1], [1..] or [..64]', open.start);
      }
      node = {
        kind: 'range',
        base: node,
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
        start: node.start,
        end: close.end,
      };
    }
    return node;
  }

  function primary(): TypeNode {
    const t = peek();
    if (t.kind === 'punct' && t.text === '(') {
      next();
      const inner = union();
      expect(')', '")" to close the group');
      return inner;
    }
    if (t.kind !== 'ident') {
      const hint = t.kind === 'string' ? ' (quoted text is only allowed inside enum[...] and defaults)' : '';
      throw typeSyntaxError(`expected a type, found ${describe(t)}${hint}`, t.start);
    }
    next();
    const ctor = (TYPE_CONSTRUCTORS as readonly string[]).includes(t.text)
      ? (t.text as (typeof TYPE_CONSTRUCTORS)[number])
      : undefined;
    if (ctor === undefined) return { kind: 'name', name: t.text, start: t.start, end: t.end };
    if (!isPunct('[')) {
      throw typeSyntaxError(`${ctor} needs its argument in brackets: ${CONSTRUCTOR_USAGE[ctor]}`, t.start);
    }
    next();
    switch (ctor) {
      case 'enum': {
        const values: { value: string; start: number }[] = [];
        while (!isPunct(']')) {
          const v = next();
          if (v.kind === 'ident') values.push({ value: v.text, start: v.start });
          else if (v.kind === 'string') values.push({ value: stringTokenValue(v), start: v.start });
          else {
            throw typeSyntaxError(
              `expected an enum value (a name, or quoted text such as "image/png"), found ${describe(v)}`,
              v.start,
            );
          }
          if (!isPunct(',')) break;
          next();
        }
        const close = expect(']', '"," or "]" in enum[...]');
        if (values.length === 0) throw typeSyntaxError('enum[] needs at least one value', t.start);
        return { kind: 'enum', values, start: t.start, end: close.end };
      }
      case 'vector': {
        const { value, token } = integerToken('the vector length (a positive integer), as in vector[1536]');
        if (value < 1) throw typeSyntaxError('the vector length must be at least 1', token.start);
        const close = expect(']', '"]" after the vector length');
        return { kind: 'vector', size: value, start: t.start, end: close.end };
      }
      case 'list':
      case 'map': {
        const inner = union();
        const close = expect(']', `"]" to close ${ctor}[...]`);
        return ctor === 'list'
          ? { kind: 'list', item: inner, start: t.start, end: close.end }
          : { kind: 'map', value: inner, start: t.start, end: close.end };
      }
    }
  }

  function literal(): JsonValue {
    const t = next();
    if (t.kind === 'number') return Number(t.text);
    if (t.kind === 'string') return stringTokenValue(t);
    if (t.kind === 'ident') {
      if (t.text === 'true') return true;
      if (t.text === 'false') return false;
      if (t.text === 'null') return null;
      return t.text;
    }
    if (t.kind === 'punct' && t.text === '[') {
      const items: JsonValue[] = [];
      while (!isPunct(']')) {
        items.push(literal());
        if (!isPunct(',')) break;
        next();
      }
      expect(']', '"," or "]" in the default list');
      return items;
    }
    if (t.kind === 'punct' && t.text === '{') {
      expect('}', '"}" (only the empty object {} can be written as a default)');
      return {};
    }
    throw typeSyntaxError(`expected a default value after "=", found ${describe(t)}`, t.start);
  }

  function field(): FieldType {
    const type = union();
    let optionalAt: number | undefined;
    if (isPunct('?')) optionalAt = next().start;
    let dflt: { value: JsonValue; start: number } | undefined;
    if (isPunct('=')) {
      next();
      const start = peek().start;
      dflt = { value: literal(), start };
    }
    if (peek().kind !== 'eof') {
      const t = peek();
      const hint = t.text === '?' ? ' ("?" goes right after the type, before "= default")' : '';
      throw typeSyntaxError(`unexpected ${describe(t)} after the type${hint}`, t.start);
    }
    return {
      type,
      ...(optionalAt === undefined ? {} : { optionalAt }),
      ...(dflt === undefined ? {} : { default: dflt }),
    };
  }

  return { field };
}

/**
 * Parses `text` — `type-expr ["?"] ["=" literal]` — into a {@link FieldType}, or reports the
 * first syntax error with its offset.
 */
export function parseFieldType(text: string): { field: FieldType } | { problem: SyntaxProblem } {
  try {
    return { field: parser(text).field() };
  } catch (error) {
    const start = syntaxErrorStart(error);
    if (start !== undefined && error instanceof Error) return { problem: { message: error.message, start } };
    throw error;
  }
}
