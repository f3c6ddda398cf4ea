import { describe, expect, expectTypeOf, it } from 'vitest';
import { VERB_SPEC_SCHEMA, parseVerbSpec, validateVerbSpec } from '../../../src/core/records/verb-spec.js';
import type { VerbDeprecation, VerbSpec } from '../../../src/core/records/verb-spec.js';
import type { RequiredKeys } from './helpers.js';
import { errorOf } from './helpers.js';

const SPEC: VerbSpec = {
  name: 'atelier.session.start',
  version: 1,
  status: 'stable',
  input: {
    type: 'object',
    required: ['builder_id'],
    properties: { builder_id: { type: 'string', format: 'uuid' } },
  },
  output: { type: 'object' },
  effects: { writes: ['session_registry'], charges: ['tokens'] },
  capabilities: ['atelier:write'],
  category: 'mutation',
  deterministic: false,
  projection: { 'ui:form': { fields: ['builder_id', 'mode'], submit: 'Start Session' }, 'cli:prompt': {} },
  description: 'Start a session',
};

describe('VerbSpec schema', () => {
  it('is aligned with the VerbSpec type', () => {
    expectTypeOf<keyof VerbSpec>().toEqualTypeOf<keyof (typeof VERB_SPEC_SCHEMA)['properties']>();
    expectTypeOf<RequiredKeys<VerbSpec>>().toEqualTypeOf<(typeof VERB_SPEC_SCHEMA)['required'][number]>();
    expectTypeOf<keyof VerbDeprecation>().toEqualTypeOf<
      keyof (typeof VERB_SPEC_SCHEMA)['properties']['deprecation']['properties']
    >();
  });

  it('accepts the seed examples, with integer and YYYY-MM eras', () => {
    expect(validateVerbSpec(SPEC)).toEqual([]);
    expect(
      validateVerbSpec({
        name: 'soul.memory.recall',
        version: '2024-12',
        status: 'deprecated',
        input: true,
        output: true,
        effects: { reads: ['memory_crystals'] },
        capabilities: ['soul:read'],
        category: 'query',
        deterministic: true,
        deprecation: {
          deprecatedAt: '2025-06-01',
          sunsetAt: '2025-12-01',
          migration: 'See docs/migration/v1-to-v2.md',
          replacement: 'soul.memory.recall@2',
        },
      }),
    ).toEqual([]);
  });

  it('reports every missing field', () => {
    expect(validateVerbSpec({}).map((p) => p.message)).toEqual(
      VERB_SPEC_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
  });

  it('rejects unknown effects, bad scopes, projection keys, categories and eras', () => {
    const problems = validateVerbSpec({
      ...SPEC,
      version: 0,
      effects: { mutates: ['x'], reads: 'y' },
      capabilities: ['write'],
      category: 'command',
      projection: { form: {} },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { pointer: '/version', message: 'integer eras start at 1' },
        { pointer: '/effects/mutates', message: 'unknown property "mutates" is not allowed here' },
        { pointer: '/effects/reads', message: 'must be an array' },
        {
          pointer: '/capabilities/0',
          message: 'must match the pattern ^[A-Za-z0-9_.*/-]+:[A-Za-z0-9_.*/-]+$',
        },
        { pointer: '/category', message: 'must be one of query, mutation, stream' },
        { pointer: '/projection/form', message: 'property name "form" is not allowed here' },
      ]),
    );
    expect(problems.filter((p) => p.pointer === '/version')).toHaveLength(1);
  });

  it('explains a bad name with the D6 rules and refuses @version in the name', () => {
    expect(validateVerbSpec({ ...SPEC, name: 'atelier.Session.start' })).toEqual([
      {
        pointer: '/name',
        message:
          'verb "atelier.Session.start": segment "Session" must start with a lower-case letter and contain only a-z, 0-9 and _',
      },
    ]);
    expect(validateVerbSpec({ ...SPEC, name: 'atelier.session.start@1' })).toEqual([
      { pointer: '/name', message: 'the name must not carry "@version"; put the era in "version"' },
    ]);
  });

  it('requires deprecation dates for deprecated and sunset eras, in order', () => {
    expect(validateVerbSpec({ ...SPEC, status: 'deprecated' })).toEqual([
      {
        pointer: '',
        message: 'missing required property "deprecation", required when status is "deprecated"',
      },
    ]);
    expect(
      validateVerbSpec({ ...SPEC, status: 'sunset', deprecation: { deprecatedAt: '2025-06-01' } }),
    ).toEqual([
      {
        pointer: '/deprecation',
        message: 'missing required property "sunsetAt", required when status is "sunset"',
      },
    ]);
    expect(
      validateVerbSpec({ ...SPEC, deprecation: { deprecatedAt: '2025-06-01', sunsetAt: '2025-01-01' } }),
    ).toEqual([{ pointer: '/deprecation/sunsetAt', message: 'must not be before deprecatedAt 2025-06-01' }]);
    expect(validateVerbSpec({ ...SPEC, deprecation: { deprecatedAt: '2025-13-01' } })).toEqual([
      { pointer: '/deprecation/deprecatedAt', message: 'must be an RFC 3339 full-date (YYYY-MM-DD)' },
    ]);
  });

  it('parseVerbSpec throws INVALID_PARAMS with details.problems', () => {
    expect(parseVerbSpec(SPEC)).toBe(SPEC);
    const err = errorOf(() => parseVerbSpec({ ...SPEC, deterministic: 'yes' }));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.details).toEqual({ problems: [{ pointer: '/deterministic', message: 'must be a boolean' }] });
  });
});
