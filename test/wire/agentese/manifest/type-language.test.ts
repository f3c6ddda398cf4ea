import { describe, expect, it } from 'vitest';
import { compileTypeNode, lexType, parseFieldType } from '../../../../src/wire/agentese/manifest/index.js';
import type { FieldType, TypeCompileContext } from '../../../../src/wire/agentese/manifest/index.js';

function field(text: string): FieldType {
  const r = parseFieldType(text);
  if ('problem' in r) throw new Error(`${text}: ${r.problem.message} at ${r.problem.start}`);
  return r.field;
}

function syntaxError(text: string): { message: string; start: number } {
  const r = parseFieldType(text);
  if (!('problem' in r)) throw new Error(`${text} parsed`);
  return r.problem;
}

function compile(text: string, typeNames: string[] = []) {
  const problems: { offset: number; message: string; severity: string }[] = [];
  const refs: [string, boolean][] = [];
  const ctx: TypeCompileContext = {
    typeNames: new Set(typeNames),
    problem: (offset, message, severity = 'error') => problems.push({ offset, message, severity }),
    mark: () => undefined,
    reference: (name, guarded) => refs.push([name, guarded]),
  };
  const schema = compileTypeNode(field(text).type, ctx);
  return { schema, problems, refs };
}

describe('lexType', () => {
  it('splits ranges without eating the dots into numbers', () => {
    expect(lexType('float[0..1]').map((t) => t.text)).toEqual(['float', '[', '0', '..', '1', ']', '']);
    expect(lexType('int8[-3..3]').map((t) => t.text)).toEqual(['int8', '[', '-3', '..', '3', ']', '']);
    expect(lexType('float[0.5..1.5]').map((t) => t.text)).toEqual([
      'float',
      '[',
      '0.5',
      '..',
      '1.5',
      ']',
      '',
    ]);
  });

  it('keeps offsets of every token', () => {
    const tokens = lexType('A |  null');
    expect(tokens.map((t) => [t.kind, t.start, t.end])).toEqual([
      ['ident', 0, 1],
      ['punct', 2, 3],
      ['ident', 5, 9],
      ['eof', 9, 9],
    ]);
  });
});

describe('parseFieldType', () => {
  it('reads optional markers and defaults', () => {
    expect(field('string?')).toMatchObject({ type: { kind: 'name', name: 'string' }, optionalAt: 6 });
    expect(field('uint8 = 5')).toMatchObject({
      type: { kind: 'name', name: 'uint8' },
      default: { value: 5, start: 8 },
    });
    expect(field('enum[a, b] = b').default?.value).toBe('b');
    expect(field('string[] = []').default?.value).toEqual([]);
    expect(field('map[int] = {}').default?.value).toEqual({});
    expect(field('string | null = null').default?.value).toBeNull();
    expect(field('string = "x y"').default?.value).toBe('x y');
    expect(field('bool = true').default?.value).toBe(true);
  });

  it('parses unions flat, groups, lists and ranges in order', () => {
    const t = field('(string | null)[][1..3] | A').type;
    expect(t.kind).toBe('union');
    if (t.kind !== 'union') return;
    expect(t.members.map((m) => m.kind)).toEqual(['range', 'name']);
    const first = t.members[0]!;
    expect(first.kind === 'range' && first.base.kind === 'list' && first.base.item.kind).toBe('union');
  });

  it('reports syntax errors at the offending offset', () => {
    expect(syntaxError('list[')).toEqual({ message: 'expected a type, found the end of the type', start: 5 });
    expect(syntaxError('enum[]').message).toMatch(/at least one value/);
    expect(syntaxError('enum[a b]')).toMatchObject({ start: 7 });
    expect(syntaxError('vector[0]').message).toMatch(/at least 1/);
    expect(syntaxError('vector[x]').message).toMatch(/vector length/);
    expect(syntaxError('float[..]').message).toMatch(/at least one bound/);
    expect(syntaxError('string = ')).toMatchObject({ start: 9 });
    expect(syntaxError('string = 5 ?').message).toMatch(/"\?" goes right after the type/);
    expect(syntaxError('enum')).toMatchObject({
      message: 'enum needs its argument in brackets: enum[a, b, c]',
      start: 0,
    });
    expect(syntaxError('string $')).toEqual({ message: 'unexpected character "$"', start: 7 });
    expect(syntaxError('"text"').message).toMatch(/quoted text is only allowed inside enum/);
    expect(syntaxError('(string')).toMatchObject({ start: 7 });
    expect(syntaxError('enum["a]').message).toMatch(/unterminated string/);
  });
});

describe('compileTypeNode', () => {
  it.each([
    ['string', { type: 'string' }],
    ['boolean', { type: 'boolean' }],
    ['integer', { type: 'integer' }],
    ['float', { type: 'number' }],
    ['null', { type: 'null' }],
    ['any', {}],
    ['uuid', { type: 'string', format: 'uuid' }],
    ['datetime', { type: 'string', format: 'date-time' }],
    ['date', { type: 'string', format: 'date' }],
    ['url', { type: 'string', format: 'uri' }],
    ['email', { type: 'string', format: 'email' }],
    ['cid', { type: 'string', pattern: '^b[a-z2-7]{8,}$' }],
    ['uint8', { type: 'integer', minimum: 0, maximum: 255 }],
    ['int16', { type: 'integer', minimum: -32768, maximum: 32767 }],
    ['uint64', { type: 'integer', minimum: 0 }],
    ['int64', { type: 'integer' }],
    ['float[0..1]', { type: 'number', minimum: 0, maximum: 1 }],
    ['float64[0..]', { type: 'number', minimum: 0 }],
    ['uint8[1..10]', { type: 'integer', minimum: 1, maximum: 10 }],
    ['string[1..64]', { type: 'string', minLength: 1, maxLength: 64 }],
    ['string[..280]', { type: 'string', maxLength: 280 }],
    [
      'enum[solo, collaborative, "off-grid"]',
      { type: 'string', enum: ['solo', 'collaborative', 'off-grid'] },
    ],
    ['vector[3]', { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3 }],
    ['list[string]', { type: 'array', items: { type: 'string' } }],
    ['string[]', { type: 'array', items: { type: 'string' } }],
    ['uuid[][1..5]', { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: 5 }],
    ['map[integer]', { type: 'object', additionalProperties: { type: 'integer' } }],
    ['string | null', { anyOf: [{ type: 'string' }, { type: 'null' }] }],
    ['Crystal | null', { anyOf: [{ $ref: '#/$defs/Crystal' }, { type: 'null' }] }],
  ])('compiles %s', (text, expected) => {
    const { schema, problems } = compile(text, ['Crystal']);
    expect(problems).toEqual([]);
    expect(schema).toEqual(expected);
  });

  it('reports unknown names with a suggestion, at the name', () => {
    expect(compile('list[strng]').problems).toEqual([
      { offset: 5, message: 'unknown type "strng"; did you mean "string"?', severity: 'error' },
    ]);
    expect(compile('Crystl', ['Crystal']).problems[0]?.message).toBe(
      'unknown type "Crystl"; did you mean "Crystal"?',
    );
    expect(compile('Zebra').problems[0]?.message).toBe('unknown type "Zebra"; declare it under "types:"');
  });

  it('checks ranges against the type and its width', () => {
    expect(compile('uint8[0..300]').problems[0]?.message).toBe(
      '300 is outside uint8 (0..255); widen the type or the bound',
    );
    expect(compile('int8[-200..0]').problems[0]?.message).toMatch(/-200 is outside int8/);
    expect(compile('float[2..1]').problems[0]?.message).toMatch(/is empty/);
    expect(compile('integer[0.5..1]').problems[0]?.message).toMatch(/must be integers/);
    expect(compile('string[-1..3]').problems[0]?.message).toMatch(/cannot be negative/);
    expect(compile('uuid[1..2]').problems[0]?.message).toMatch(/not uuid/);
    expect(compile('enum[a][1..2]').problems[0]?.message).toMatch(/not enum/);
    expect(compile('float[0..1][0..1]').problems[0]?.message).toMatch(/already has a range/);
  });

  it('reports repeated enum values and suspicious unions', () => {
    expect(compile('enum[a, b, a]').problems).toEqual([
      { offset: 11, message: 'enum value "a" is listed twice', severity: 'error' },
    ]);
    expect(compile('string | string').problems[0]).toMatchObject({ severity: 'warning', offset: 9 });
    expect(compile('any | null').problems[0]).toMatchObject({ severity: 'warning', offset: 0 });
  });

  it('tells which references are guarded by a list or map', () => {
    expect(compile('A | list[B] | map[C]', ['A', 'B', 'C']).refs).toEqual([
      ['A', false],
      ['B', true],
      ['C', true],
    ]);
  });
});
