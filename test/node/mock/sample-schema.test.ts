import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { schemaValidator, type JsonSchema } from '../../../src/core/schema-validator.js';
import { sampleMatching, sampleSchema } from '../../../src/node/mock/sample-schema.js';
import { seededRandom } from '../../../src/node/mock/seeded-random.js';
import { countProblems, loadManifest } from '../../../src/wire/agentese/manifest/index.js';

const validator = schemaValidator();
const root = join(import.meta.dirname, '../../..');

function valid(schema: JsonSchema, value: unknown): string[] {
  return validator.validate(schema, value).map((p) => `${p.pointer}: ${p.message}`);
}

describe('seededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: string): number[] => {
      const r = seededRandom(seed);
      return Array.from({ length: 8 }, () => r.int(0, 1_000_000));
    };
    expect(draw('a')).toEqual(draw('a'));
    expect(draw('a')).not.toEqual(draw('b'));
  });

  it('keeps int() inside its inclusive bounds, also for huge spans', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer(), fc.nat(), (seed, lo, span) => {
        const r = seededRandom(seed);
        const hi = lo + span;
        const x = r.int(lo, hi);
        return Number.isInteger(x) && x >= lo && x <= hi;
      }),
    );
    const r = seededRandom('big');
    const x = r.int(0, Number.MAX_SAFE_INTEGER);
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
  });

  it('refuses to pick from an empty list', () => {
    expect(() => seededRandom('x').pick([])).toThrow(PlexusError);
  });
});

describe('sampleSchema', () => {
  const cases: [string, JsonSchema][] = [
    ['uuid', { type: 'string', format: 'uuid' }],
    ['date-time', { type: 'string', format: 'date-time' }],
    ['date', { type: 'string', format: 'date' }],
    ['time', { type: 'string', format: 'time' }],
    ['uri', { type: 'string', format: 'uri' }],
    ['email', { type: 'string', format: 'email' }],
    ['hostname', { type: 'string', format: 'hostname' }],
    [
      'ipv4 / ipv6',
      {
        anyOf: [
          { type: 'string', format: 'ipv4' },
          { type: 'string', format: 'ipv6' },
        ],
      },
    ],
    ['duration', { type: 'string', format: 'duration' }],
    ['json-pointer', { type: 'string', format: 'json-pointer' }],
    ['lengths', { type: 'string', minLength: 30, maxLength: 31 }],
    ['an exact short length', { type: 'string', minLength: 2, maxLength: 2 }],
    ['empty only', { type: 'string', maxLength: 0 }],
    ['cid pattern', { type: 'string', pattern: '^b[a-z2-7]{8,}$' }],
    ['base64', { type: 'string', contentEncoding: 'base64', pattern: '^[A-Za-z0-9+/]*={0,2}$' }],
    ['a pattern', { type: 'string', pattern: '^[A-Z]{3}-\\d{2,4}(?:\\.(x|yz))?$' }],
    ['enum', { type: 'string', enum: ['solo', 'duo'] }],
    ['const', { const: { a: [1, 2] } }],
    ['integer range', { type: 'integer', minimum: -3, maximum: 3 }],
    ['exclusive integer', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 2 }],
    ['multipleOf', { type: 'integer', minimum: 1, maximum: 100, multipleOf: 7 }],
    ['number range', { type: 'number', minimum: 0, maximum: 1 }],
    ['exclusive number', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.01 }],
    ['only a maximum', { type: 'integer', maximum: -5000 }],
    ['type list', { type: ['string', 'null'] }],
    ['vector', { type: 'array', items: { type: 'number' }, minItems: 16, maxItems: 16 }],
    [
      'unique items',
      { type: 'array', items: { type: 'integer', minimum: 0, maximum: 5 }, minItems: 4, uniqueItems: true },
    ],
    [
      'tuple',
      { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: false, minItems: 2 },
    ],
    ['map', { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 2 }],
    [
      'closed object',
      {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'integer' } },
        required: ['a'],
        additionalProperties: false,
      },
    ],
    [
      'allOf',
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'integer' } }, required: ['b'] },
        ],
      },
    ],
    [
      'recursive $ref',
      {
        $ref: '#/$defs/Tree',
        $defs: {
          Tree: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              kids: { type: 'array', items: { $ref: '#/$defs/Tree' } },
            },
            required: ['name', 'kids'],
            additionalProperties: false,
          },
        },
      },
    ],
    [
      'recursion to the root through a nullable union',
      {
        $id: 'https://example.com/nested.json',
        anyOf: [{ type: 'array', items: { $ref: '#' }, minItems: 1 }, { type: 'null' }],
      },
    ],
    ['true', true],
    ['empty schema', {}],
  ];

  it.each(cases)('writes a valid value for %s', (_name, schema) => {
    for (let seed = 0; seed < 25; seed++) {
      const value = sampleSchema(schema, seededRandom(`case-${seed}`));
      expect(valid(schema, value), JSON.stringify(value)).toEqual([]);
    }
  });

  it('writes a real CIDv1 for the schema language cid type', () => {
    const value = sampleSchema({ type: 'string', pattern: '^b[a-z2-7]{8,}$' }, seededRandom('cid'));
    expect(value).toMatch(/^bafkrei[a-z2-7]{52}$/);
  });

  it('is deterministic: the same seed gives the same value', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        n: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['id'],
    };
    expect(sampleSchema(schema, seededRandom('s'))).toEqual(sampleSchema(schema, seededRandom('s')));
    const many = new Set(
      Array.from({ length: 10 }, (_, i) => JSON.stringify(sampleSchema(schema, seededRandom(`s${i}`)))),
    );
    expect(many.size).toBeGreaterThan(5);
  });

  it('refuses schemas with no value it can write, naming where', () => {
    const bad: [JsonSchema, RegExp][] = [
      [false, /false/],
      [{ $ref: 'https://example.com/x.json' }, /only local \$refs/],
      [{ $ref: '#/$defs/Missing' }, /points at nothing/],
      [{ type: 'integer', minimum: 5, maximum: 4 }, /between the bounds/],
      [{ type: 'integer', minimum: 1, maximum: 6, multipleOf: 10 }, /multiple of 10/],
      [{ type: 'string', pattern: '^(?=a)b$' }, /pattern/],
      [{ type: 'array', minItems: 3, prefixItems: [true], items: false }, /minItems 3/],
      [
        {
          type: 'object',
          properties: { a: { type: 'object', properties: { b: false }, required: ['b'] } },
          required: ['a'],
        },
        /false/,
      ],
      [{ $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } }, /without end/],
    ];
    for (const [schema, message] of bad) {
      let caught: unknown;
      try {
        sampleSchema(schema, seededRandom('bad'));
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(schema)).toBeInstanceOf(PlexusError);
      expect((caught as PlexusError).code).toBe('INVALID_PARAMS');
      expect((caught as PlexusError).message).toMatch(message);
    }
    const nested = (() => {
      try {
        sampleSchema(
          {
            type: 'object',
            properties: { a: { type: 'object', properties: { b: false }, required: ['b'] } },
            required: ['a'],
          },
          seededRandom('p'),
        );
      } catch (error) {
        return error as PlexusError;
      }
      return undefined;
    })();
    expect(nested?.details).toEqual({ pointer: '/a/b' });
  });
});

describe('sampleMatching', () => {
  it('draws again when a draw misses a keyword the generator does not read', () => {
    const schema: JsonSchema = { type: 'integer', minimum: 0, maximum: 3, not: { const: 0 } };
    for (let i = 0; i < 20; i++)
      expect(valid(schema, sampleMatching(schema, `n${i}`, validator))).toEqual([]);
  });

  it('gives up with the problems of the last draw when nothing matches', () => {
    expect(() =>
      sampleMatching({ type: 'integer', minimum: 0, maximum: 0, not: { const: 0 } }, 'x', validator),
    ).toThrow(
      /could not generate a value matching the schema in 8 attempts: must NOT be valid|could not generate/,
    );
  });

  it('writes valid outputs for every era of the example manifest', () => {
    const text = readFileSync(join(root, 'examples/plexus.manifest.yaml'), 'utf8');
    const load = loadManifest(text, 'plexus.manifest.yaml');
    expect(countProblems(load.problems).errors).toBe(0);
    expect(load.manifest.verbs.length).toBeGreaterThanOrEqual(5);
    for (const spec of load.manifest.verbs) {
      for (const seed of ['a', 'b', 'c']) {
        // One draw, no retry: the generator itself writes valid values for compiled schemas.
        const output = sampleSchema(spec.output, seededRandom(`${spec.name}-${seed}`));
        expect(valid(spec.output, output), `${spec.name}@${String(spec.version)}`).toEqual([]);
        const input = sampleSchema(spec.input, seededRandom(`${spec.name}-in-${seed}`));
        expect(valid(spec.input, input), `${spec.name} input`).toEqual([]);
      }
    }
  });
});

// ---- property: random manifests in the schema language compile to schemas the generator satisfies

const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
const scalar = fc.constantFrom(
  'string',
  'boolean',
  'bool',
  'integer',
  'int',
  'number',
  'float',
  'float32',
  'float64',
  'null',
  'any',
  'uuid',
  'datetime',
  'date',
  'url',
  'email',
  'cid',
  'bytes',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
);
const ranged = fc.oneof(
  fc.tuple(fc.nat(30), fc.nat(30)).map(([a, b]) => `string[${Math.min(a, b)}..${Math.max(a, b)}]`),
  fc.nat(30).map((a) => `string[${a}..]`),
  fc.nat(30).map((a) => `string[..${a}]`),
  fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat(1000)).map(([a, d]) => `int32[${a}..${a + d}]`),
  fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `uint8[${Math.min(a, b)}..${Math.max(a, b)}]`),
  fc
    .tuple(fc.integer({ min: -500, max: 500 }), fc.nat(400))
    .map(([a, d]) => `float[${a / 4}..${(a + d) / 4}]`),
  fc.integer({ min: -100, max: 100 }).map((a) => `float64[${a}..]`),
  fc.integer({ min: -100, max: 100 }).map((a) => `int64[..${a}]`),
  fc
    .uniqueArray(ident, { minLength: 1, maxLength: 4 })
    .map((v) => `enum[${v.map((x) => `e${x}`).join(', ')}]`),
  fc.integer({ min: 1, max: 6 }).map((n) => `vector[${n}]`),
);

function paren(t: string): string {
  return t.includes('|') ? `(${t})` : t;
}

function typeExpr(names: readonly string[]): fc.Arbitrary<string> {
  const leaf =
    names.length === 0 ? fc.oneof(scalar, ranged) : fc.oneof(scalar, ranged, fc.constantFrom(...names));
  const { expr } = fc.letrec<{ expr: string; list: string; map: string; union: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('list'),
      tie('map'),
      tie('union'),
    ),
    list: fc
      .tuple(tie('expr'), fc.option(fc.tuple(fc.nat(3), fc.nat(3)), { nil: undefined }))
      .map(([t, size]) =>
        size === undefined ? `list[${t}]` : `list[${t}][${Math.min(...size)}..${Math.max(...size)}]`,
      ),
    map: tie('expr').map((t) => `map[${t}]`),
    union: fc
      .tuple(tie('expr'), fc.oneof(leaf, fc.constant('null')))
      .map(([a, b]) => `${paren(a)} | ${paren(b)}`),
  }));
  return expr;
}

type YamlType = string | { [field: string]: YamlType };

function objectType(names: readonly string[], depth: number): fc.Arbitrary<Record<string, YamlType>> {
  const field: fc.Arbitrary<YamlType> =
    depth <= 0
      ? typeExpr(names)
      : fc.oneof(
          { weight: 4, arbitrary: typeExpr(names) },
          { weight: 1, arbitrary: objectType(names, depth - 1) },
        );
  return fc
    .tuple(
      fc.uniqueArray(fc.tuple(ident, fc.boolean(), field), {
        minLength: 0,
        maxLength: 5,
        selector: ([k]) => k,
      }),
      fc.option(typeExpr(names), { nil: undefined }),
    )
    .map(([fields, rest]) => {
      const out: Record<string, YamlType> = {};
      for (const [key, optional, type] of fields) out[optional ? `${key}?` : key] = type;
      if (rest !== undefined) out['*'] = rest;
      return out;
    });
}

const manifestArb = fc.integer({ min: 0, max: 3 }).chain((count) => {
  const names = Array.from({ length: count }, (_, i) => `T${i}`);
  // Type i may use earlier types, and itself through a list.
  const types = fc.tuple(
    ...names.map((name, i) =>
      fc
        .tuple(objectType(names.slice(0, i), 1), fc.boolean())
        .map(([obj, selfList]) => (selfList ? { ...obj, self_list: `list[${name}]` } : obj)),
    ),
  );
  return fc.tuple(types, fc.oneof(typeExpr(names), objectType(names, 2))).map(([declared, output]) => ({
    types: Object.fromEntries(names.map((n, i) => [n, declared[i]])),
    output,
  }));
});

describe('sampleSchema over the schema language (property)', () => {
  it('writes values that validate against every schema the compiler emits', () => {
    const seen = { defs: 0, anyOf: 0, pattern: 0, format: 0, additional: 0 };
    fc.assert(
      fc.property(manifestArb, fc.string({ maxLength: 8 }), ({ types, output }, seed) => {
        const text = stringify({
          ...(Object.keys(types).length === 0 ? {} : { types }),
          verbs: { 'prop.test.run': { version: 1, input: {}, output, category: 'query' } },
        });
        const load = loadManifest(text, 'prop.yaml');
        const errors = load.problems.filter((p) => p.severity === 'error');
        expect(
          errors.map((p) => p.message),
          text,
        ).toEqual([]);
        const schema = load.manifest.verbs[0]?.output as JsonSchema;
        const json = JSON.stringify(schema);
        if (json.includes('"$defs"')) seen.defs++;
        if (json.includes('"anyOf"')) seen.anyOf++;
        if (json.includes('"pattern"')) seen.pattern++;
        if (json.includes('"format"')) seen.format++;
        if (/"additionalProperties":\{/.test(json)) seen.additional++;
        const value = sampleSchema(schema, seededRandom(seed));
        expect(valid(schema, value), `${text}\n${JSON.stringify(value)}`).toEqual([]);
        expect(sampleSchema(schema, seededRandom(seed))).toEqual(value);
      }),
      { numRuns: 150 },
    );
    // The runs covered the interesting forms (not only trivial schemas).
    for (const [form, count] of Object.entries(seen)) expect(count, form).toBeGreaterThan(5);
  });
});
