import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { schemaValidator } from '../../../../src/core/schema-validator.js';
import {
  compileTypeNode,
  loadManifest,
  parseFieldType,
} from '../../../../src/wire/agentese/manifest/index.js';

/** A type expression and the values that conform to it. */
interface Gen {
  readonly text: string;
  readonly value: fc.Arbitrary<unknown>;
  /** True when the text may take a postfix `[]` without parentheses. */
  readonly atom: boolean;
}

const g = (text: string, value: fc.Arbitrary<unknown>, atom = true): Gen => ({ text, value, atom });
const DATES = fc.date({
  min: new Date('1970-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});
const NAME = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);

const leaf: fc.Arbitrary<Gen> = fc.oneof(
  fc.constant(g('string', fc.string())),
  fc.constant(g('boolean', fc.boolean())),
  fc.constant(g('integer', fc.integer())),
  fc.constant(g('float', fc.double({ noNaN: true, noDefaultInfinity: true }))),
  fc.constant(g('null', fc.constant(null))),
  fc.constant(g('any', fc.jsonValue())),
  fc.constant(g('uuid', fc.uuid())),
  fc.constant(
    g(
      'datetime',
      DATES.map((d) => d.toISOString()),
    ),
  ),
  fc.constant(
    g(
      'date',
      DATES.map((d) => d.toISOString().slice(0, 10)),
    ),
  ),
  fc.constant(g('url', fc.webUrl({ withQueryParameters: false, withFragments: false }))),
  fc.constant(g('cid', fc.stringMatching(/^b[a-z2-7]{8,20}$/))),
  fc.constant(
    g(
      'bytes',
      fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64')),
    ),
  ),
  fc
    .constantFrom(
      ['int8', -128, 127],
      ['uint8', 0, 255],
      ['int16', -32768, 32767],
      ['uint16', 0, 65535],
      ['int32', -2147483648, 2147483647],
      ['uint32', 0, 4294967295],
    )
    .map(([name, min, max]) => g(name, fc.integer({ min, max }))),
  fc
    .tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat(1000))
    .map(([lo, span]) => g(`int32[${lo}..${lo + span}]`, fc.integer({ min: lo, max: lo + span }))),
  fc
    .tuple(fc.integer({ min: -50, max: 50 }), fc.nat(100))
    .map(([lo, span]) =>
      g(`float[${lo}..${lo + span}]`, fc.double({ min: lo, max: lo + span, noNaN: true })),
    ),
  fc
    .tuple(fc.nat(4), fc.nat(6))
    .map(([lo, span]) =>
      g(`string[${lo}..${lo + span}]`, fc.string({ minLength: lo, maxLength: lo + span })),
    ),
  fc
    .uniqueArray(NAME, { minLength: 1, maxLength: 4 })
    .map((values) => g(`enum[${values.join(', ')}]`, fc.constantFrom(...values))),
  fc
    .integer({ min: 1, max: 4 })
    .map((n) =>
      g(
        `vector[${n}]`,
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: n, maxLength: n }),
      ),
    ),
);

const typeGen: fc.Arbitrary<Gen> = fc.letrec<{ type: Gen }>((tie) => ({
  type: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('type').map((t) => g(`list[${t.text}]`, fc.array(t.value, { maxLength: 3 }))),
    tie('type').map((t) => g(`${t.atom ? t.text : `(${t.text})`}[]`, fc.array(t.value, { maxLength: 3 }))),
    fc
      .tuple(tie('type'), fc.nat(2), fc.nat(2))
      .map(([t, lo, span]) =>
        g(`list[${t.text}][${lo}..${lo + span}]`, fc.array(t.value, { minLength: lo, maxLength: lo + span })),
      ),
    tie('type').map((t) =>
      g(`map[${t.text}]`, fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), t.value, { maxKeys: 3 })),
    ),
    fc
      .tuple(tie('type'), tie('type'))
      .map(([a, b]) => g(`${a.text} | ${b.text}`, fc.oneof(a.value, b.value), false)),
  ),
})).type;

const addFormats = addFormatsModule.default;
const strictAjv = new Ajv2020({ strict: true, allErrors: true });
addFormats(strictAjv);

function compileAlone(text: string) {
  const parsed = parseFieldType(text);
  if ('problem' in parsed) throw new Error(`${text}: ${parsed.problem.message}`);
  const errors: string[] = [];
  const schema = compileTypeNode(parsed.field.type, {
    typeNames: new Set(),
    problem: (_offset, message, severity = 'error') => {
      if (severity === 'error') errors.push(message);
    },
    mark: () => undefined,
    reference: () => undefined,
  });
  return { schema, errors };
}

describe('the schema language (properties)', () => {
  it('compiles every generated expression to a schema Ajv accepts strictly, matching conforming values', () => {
    fc.assert(
      fc.property(
        typeGen.chain((t) => fc.tuple(fc.constant(t), t.value)),
        ([t, value]) => {
          const { schema, errors } = compileAlone(t.text);
          expect(errors).toEqual([]);
          const validate = strictAjv.compile(schema);
          expect({ text: t.text, valid: validate(value), errors: validate.errors }).toMatchObject({
            valid: true,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('loads generated manifests cleanly; their inputs accept conforming objects and refuse ones missing a required field', () => {
    const fields = fc.uniqueArray(fc.tuple(NAME, typeGen, fc.boolean()), {
      minLength: 1,
      maxLength: 5,
      selector: ([name]) => name,
    });
    fc.assert(
      fc.property(
        fields.chain((fs) =>
          fc.tuple(
            fc.constant(fs),
            fc.tuple(
              ...fs.map(([, t, optional]) => (optional ? fc.option(t.value, { nil: undefined }) : t.value)),
            ),
          ),
        ),
        ([fs, values]) => {
          const lines = fs.map(([name, t, optional]) => `    ${name}: ${t.text}${optional ? '?' : ''}`);
          const text = `types:\n  Thing:\n${lines.join('\n')}\nverbs:\n  a.thing.make:\n    version: 1\n    input: Thing\n    output: list[Thing]\n    category: query\n`;
          const load = loadManifest(text, 'gen.yaml');
          expect(load.problems.filter((p) => p.severity === 'error')).toEqual([]);
          const spec = load.manifest.verbs[0]!;
          const obj: Record<string, unknown> = {};
          fs.forEach(([name], i) => {
            if (values[i] !== undefined) obj[name] = values[i];
          });
          expect(schemaValidator().validate(spec.input, obj)).toEqual([]);
          expect(schemaValidator().validate(spec.output, [obj, obj])).toEqual([]);
          expect(strictAjv.validateSchema(spec.input)).toBe(true);
          const required = fs.find(([, , optional]) => !optional);
          if (required !== undefined) {
            const missing = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== required[0]));
            expect(schemaValidator().validate(spec.input, missing)).toContainEqual({
              pointer: '',
              message: `missing required property "${required[0]}"`,
            });
          }
          expect(schemaValidator().validate(spec.input, { ...obj, zz_unknown_field: 1 })).not.toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('never throws on arbitrary expressions or manifests: every failure is a located problem', () => {
    const expression = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc
        .array(
          fc.constantFrom(
            'list',
            'enum',
            '[',
            ']',
            '(',
            ')',
            '|',
            '?',
            '=',
            ',',
            '..',
            '1',
            '-2',
            'A',
            'string',
            '"x"',
          ),
          {
            maxLength: 12,
          },
        )
        .map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(expression, (text) => {
        const r = parseFieldType(text);
        if ('problem' in r) {
          expect(r.problem.start).toBeGreaterThanOrEqual(0);
          expect(r.problem.start).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 500 },
    );
    const yamlish = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc
        .record(
          { types: fc.jsonValue({ maxDepth: 3 }), verbs: fc.jsonValue({ maxDepth: 4 }) },
          { requiredKeys: [] },
        )
        .map((doc) => stringify(doc)),
      fc
        .dictionary(
          fc.constantFrom('a.b.c', 'x.y', 'Bad', 'a.b.c@2'),
          fc.dictionary(
            fc.constantFrom(
              'version',
              'input',
              'output',
              'category',
              'effects',
              'versions',
              'projection',
              'sandbox',
              'capabilities',
            ),
            fc.jsonValue({ maxDepth: 2 }),
          ),
        )
        .map((verbs) => stringify({ verbs })),
    );
    fc.assert(
      fc.property(yamlish, (text) => {
        const load = loadManifest(text, 'f.yaml');
        for (const p of load.problems) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.column).toBeGreaterThanOrEqual(1);
          expect(p.message).not.toBe('');
        }
      }),
      { numRuns: 300 },
    );
  });
});
