import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import {
  ajvErrorsToProblems,
  createSchemaValidator,
  replaceProblemsAt,
  summarizeProblems,
  throwIfProblems,
  validateAgainstSchema,
} from '../../src/core/schema-validator.js';
import type { Problem } from '../../src/core/problem.js';
import { errorOf } from './records/helpers.js';

const CARD = {
  type: 'object',
  required: ['id', 'name', 'tier'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1 },
    name: { type: 'string' },
    tier: { enum: ['L0', 'L1', 'L2', 'L3'] },
    when: { type: 'string', format: 'date-time' },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 2 },
    'a/b~c': { type: 'integer', minimum: 1 },
    either: { type: ['string', 'null'] },
  },
} as const;

describe('createSchemaValidator', () => {
  it('returns no problems for a valid value', () => {
    expect(validateAgainstSchema(CARD, { id: 'a', name: 'n', tier: 'L2' })).toEqual([]);
  });

  it('names the allowed values of an enum', () => {
    expect(validateAgainstSchema(CARD, { id: 'a', name: 'n', tier: 'L9' })).toEqual([
      { pointer: '/tier', message: 'must be one of L0, L1, L2, L3' },
    ]);
  });

  it('reports every missing required property at the parent, naming each', () => {
    expect(validateAgainstSchema(CARD, {})).toEqual([
      { pointer: '', message: 'missing required property "id"' },
      { pointer: '', message: 'missing required property "name"' },
      { pointer: '', message: 'missing required property "tier"' },
    ]);
  });

  it('points at an unknown property itself', () => {
    expect(validateAgainstSchema(CARD, { id: 'a', name: 'n', tier: 'L0', extra: 1 })).toEqual([
      { pointer: '/extra', message: 'unknown property "extra" is not allowed here' },
    ]);
  });

  it('escapes pointer tokens per RFC 6901', () => {
    expect(validateAgainstSchema(CARD, { id: 'a', name: 'n', tier: 'L0', 'a/b~c': 0 })).toEqual([
      { pointer: '/a~1b~0c', message: 'must be >= 1' },
    ]);
  });

  it('reports formats, types, lengths and array rules in words', () => {
    const problems = validateAgainstSchema(CARD, {
      id: '',
      name: 3,
      tier: 'L1',
      when: 'yesterday',
      tags: ['x', 'x', 'y'],
      either: 1,
    });
    expect(problems).toEqual([
      { pointer: '/id', message: 'must not be empty' },
      { pointer: '/name', message: 'must be a string' },
      {
        pointer: '/when',
        message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
      },
      { pointer: '/tags', message: 'must have at most 2 items' },
      { pointer: '/tags', message: 'must not contain duplicates (items 0 and 1 are equal)' },
      { pointer: '/either', message: 'must be a string or null' },
    ]);
  });

  it('rejects a date-time without a time zone', () => {
    expect(
      validateAgainstSchema({ type: 'string', format: 'date-time' }, '2025-01-01T00:00:00'),
    ).toHaveLength(1);
    expect(
      validateAgainstSchema({ type: 'string', format: 'date-time' }, '2025-01-01T00:00:00+02:00'),
    ).toEqual([]);
  });

  it('handles boolean schemas', () => {
    const v = createSchemaValidator();
    expect(v.validate(true, 42)).toEqual([]);
    expect(v.validate(false, 42)).toEqual([{ pointer: '', message: 'no value is allowed here' }]);
  });

  it('compiles a schema object once and reuses it', () => {
    const v = createSchemaValidator();
    expect(v.compile(CARD)).toBe(v.compile(CARD));
  });

  it('throws INVALID_PARAMS for a schema that is not JSON Schema', () => {
    const v = createSchemaValidator();
    expect(() => v.validate({ type: 'strng' }, 1)).toThrow(PlexusError);
    const err = errorOf(() => v.validate({ type: 'strng' }, 1));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toMatch(/not a valid JSON Schema 2020-12/);
  });

  it('rejects unknown keywords only in strict mode', () => {
    expect(() =>
      createSchemaValidator({ strict: true }).validate({ type: 'string', colour: 'red' }, 'x'),
    ).toThrow(PlexusError);
    expect(createSchemaValidator().validate({ type: 'string', colour: 'red' }, 'x')).toEqual([]);
  });

  it('check passes a valid value and throws with details.problems otherwise', () => {
    const v = createSchemaValidator();
    expect(() => {
      v.check(CARD, { id: 'a', name: 'n', tier: 'L3' }, 'card');
    }).not.toThrow();
    const err = errorOf(() => {
      v.check(CARD, { id: 'a' }, 'card', 'INVALID_REQUEST');
    });
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toBe(
      'card is invalid: (root): missing required property "name"; (root): missing required property "tier"',
    );
    expect(err.details).toEqual({
      problems: [
        { pointer: '', message: 'missing required property "name"' },
        { pointer: '', message: 'missing required property "tier"' },
      ],
    });
  });
});

describe('problem helpers', () => {
  it('summarizeProblems names the first three and counts the rest', () => {
    const ps: Problem[] = [1, 2, 3, 4, 5].map((i) => ({ pointer: `/${i}`, message: 'bad' }));
    expect(summarizeProblems(ps)).toBe('/1: bad; /2: bad; /3: bad; and 2 more');
  });

  it('throwIfProblems is silent on no problems', () => {
    expect(() => {
      throwIfProblems([], 'x');
    }).not.toThrow();
  });

  it('replaceProblemsAt swaps the problems at one pointer for one message', () => {
    const ps: Problem[] = [
      { pointer: '/a', message: '1' },
      { pointer: '/b', message: '2' },
      { pointer: '/b', message: '3' },
    ];
    expect(replaceProblemsAt(ps, '/b', 'better')).toEqual([
      { pointer: '/a', message: '1' },
      { pointer: '/b', message: 'better' },
    ]);
    expect(replaceProblemsAt(ps, '/c', 'new')).toHaveLength(3);
  });

  it('ajvErrorsToProblems drops duplicates and if-errors', () => {
    const err = { instancePath: '/x', schemaPath: '#', keyword: 'type', params: { type: 'string' } };
    expect(
      ajvErrorsToProblems([err, err, { ...err, keyword: 'if', params: { failingKeyword: 'then' } }]),
    ).toEqual([{ pointer: '/x', message: 'must be a string' }]);
    expect(ajvErrorsToProblems(null)).toEqual([]);
  });
});
