import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateVerbSpec } from '../../../../src/core/records/verb-spec.js';
import { schemaValidator } from '../../../../src/core/schema-validator.js';
import { formatManifestProblem, loadManifest } from '../../../../src/wire/agentese/manifest/index.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/plexus.manifest.yaml', import.meta.url));

function lines(text: string): string[] {
  return loadManifest(text, 'm.yaml').problems.map(formatManifestProblem);
}

const VERB = (extra = ''): string =>
  `verbs:\n  soul.memory.recall:\n    version: 1\n    input: {query: string}\n    output: string\n    category: query\n${extra}`;

describe('loadManifest', () => {
  it('loads the example manifest with no problems, every era a valid VerbSpec', () => {
    const load = loadManifest(readFileSync(EXAMPLE, 'utf8'), 'examples/plexus.manifest.yaml');
    expect(load.problems).toEqual([]);
    const keys = load.manifest.verbs.map((v) => `${v.name}@${String(v.version)}:${v.status}`);
    expect(keys).toEqual([
      'atelier.session.start@1:stable',
      'soul.memory.recall@1:deprecated',
      'soul.memory.recall@2:stable',
      'town.citizen.greet@2024-12:stable',
      'void.entropy.sip@1:stable',
      'town.citizen.list@1:stable',
    ]);
    for (const spec of load.manifest.verbs) expect(validateVerbSpec(spec)).toEqual([]);
    expect(Object.keys(load.manifest.types)).toHaveLength(8);
    expect(load.manifest.sandbox['atelier.session.start@1']).toEqual({
      timeoutMs: 30000,
      memoryMb: 256,
      maxInputBytes: 65536,
      network: ['sse.atelier.example'],
    });
  });

  it('normalises the seed forms: effect lists, projection lists, versions lists inheriting fields', () => {
    const load = loadManifest(readFileSync(EXAMPLE, 'utf8'), 'x.yaml');
    const start = load.manifest.verbs[0]!;
    expect(start.effects).toEqual({ writes: ['session_registry'], charges: ['tokens'] });
    expect(Object.keys(start.projection ?? {})).toEqual(['ui:form', 'ui:stream', 'cli:prompt', 'cli:json']);
    const [v1, v2] = load.manifest.verbs.filter((v) => v.name === 'soul.memory.recall');
    expect(v1?.projection).toEqual({ 'ui:stream': {}, 'cli:json': {} });
    expect(v2?.capabilities).toEqual(['soul:read']);
    expect(v1?.deprecation).toEqual({
      deprecatedAt: '2025-06-01',
      sunsetAt: '2025-12-01',
      migration: 'docs/migration/v1-to-v2.md',
      replacement: 'soul.memory.recall@2',
    });
    expect(load.manifest.sandbox['soul.memory.recall@2']).toEqual({ timeoutMs: 5000, concurrency: 8 });
    expect(load.manifest.sandbox['soul.memory.recall@1']).toBeUndefined();
    expect(load.manifest.verbs.find((v) => v.name === 'town.citizen.greet')?.version).toBe('2024-12');
  });

  it('compiles inputs to standalone schemas holding only the types they use', () => {
    const load = loadManifest(readFileSync(EXAMPLE, 'utf8'), 'x.yaml');
    const recall1 = load.manifest.verbs[1]!;
    expect(Object.keys((recall1.output as { $defs: object }).$defs).sort()).toEqual([
      'MemoryCrystal',
      'Provenance',
    ]);
    expect(Object.keys((recall1.input as { $defs: object }).$defs)).toEqual(['RecallQuery']);
    const v = schemaValidator();
    expect(v.validate(recall1.input, { query: 'last conversation' })).toEqual([]);
    expect(v.validate(recall1.input, { query: '' })).toEqual([
      { pointer: '/query', message: 'must not be empty' },
    ]);
    expect(v.validate(recall1.input, { query: 'x', limit: 0 })).toEqual([
      { pointer: '/limit', message: 'must be >= 1' },
    ]);
    expect(v.validate(recall1.output, null)).toEqual([]);
    const list = load.manifest.verbs.find((s) => s.name === 'town.citizen.list')!;
    const citizen = {
      id: '4f8a1c1e-6a3b-4c8e-9d0f-2b7c5e1a9d33',
      name: 'alpha',
      mood: 'off-grid',
      friends: [],
    };
    expect(v.validate(list.output, { citizens: [{ ...citizen, friends: [citizen] }] })).toEqual([]);
    expect(v.validate(list.output, { citizens: [{ ...citizen, mood: 'sad' }] })).toEqual([
      { pointer: '/citizens/0/mood', message: 'must be one of calm, curious, off-grid' },
    ]);
  });

  it('reports every problem of a broken manifest with its line and column', () => {
    const text = [
      'manifest: 2', // 1
      'nmae: x', // 2
      'types:', // 3
      '  Foo:', // 4
      '    a: strin', // 5
      '    b: uint8 = 300', // 6
      '    c: enum[x, y, x]', // 7
      '    d: float[1..0]', // 8
      '    e: list[', // 9
      '    bad name: string', // 10
      '  lower: string', // 11
      '  A: B | null', // 12
      '  B: A', // 13
      'verbs:', // 14
      '  Bad.Verb:', // 15
      '    version: 1', // 16
      '  soul.memory.recall:', // 17
      '    version: "1"', // 18
      '    input: Fooo', // 19
      '    output: string?', // 20
      '    effects: [write: x]', // 21
      '    capabilities: [soulread]', // 22
      '    category: qurey', // 23
      '    projection: [ui]', // 24
      '    deterministic: maybe', // 25
      '    sandbox: {timeout: 5}', // 26
      '    colour: red', // 27
      '  a.b.c:', // 28
      '    version: 1', // 29
      '    input: Foo', // 30
      '    output: A', // 31
      '    category: query', // 32
      '  a.b.c@1:', // 33
      '    input: {}', // 34
      '    output: {}', // 35
      '    category: query', // 36
      '',
    ].join('\n');
    expect(lines(text)).toEqual([
      'm.yaml:1:11: error: manifest must be 1, the only format this version reads (/manifest)',
      'm.yaml:2:1: error: unknown top-level key "nmae"; did you mean "name"? (/nmae)',
      'm.yaml:5:8: error: unknown type "strin"; did you mean "string"? (/types/Foo/a)',
      "m.yaml:6:16: error: the default 300 does not match the field's type: must be <= 255 (/types/Foo/b)",
      'm.yaml:7:19: error: enum value "x" is listed twice (/types/Foo/c)',
      'm.yaml:8:13: error: the range [1..0] is empty: the lower bound is above the upper bound (/types/Foo/d)',
      'm.yaml:9:13: error: in type "list[": expected a type, found the end of the type (/types/Foo/e)',
      'm.yaml:10:5: error: field name "bad name" must start with a letter or "_" and hold only letters, digits, "_" or "-" (a trailing "?" marks it optional) (/types/Foo/bad name)',
      'm.yaml:11:3: error: type name "lower" must start with an upper-case letter and hold only letters, digits and "_" (lower-case names are built-in types) (/types/lower)',
      'm.yaml:12:3: error: type A is defined in terms of itself with no list, map or object in between (A → B → A), so no value can match it (/types/A)',
      'm.yaml:15:3: error: verb "Bad.Verb": segment "Bad" must start with a lower-case letter and contain only a-z, 0-9 and _ (/verbs/Bad.Verb)',
      'm.yaml:18:14: error: version: the era "1" is a string; write the integer 1 without quotes (/verbs/soul.memory.recall/version)',
      'm.yaml:19:12: error: unknown type "Fooo"; did you mean "Foo"? (/verbs/soul.memory.recall/input)',
      'm.yaml:20:19: error: "?" marks a field that may be omitted and is only allowed on a field; write "T | null" for a value that may be null (/verbs/soul.memory.recall/output)',
      'm.yaml:21:15: error: "write" is not an effect; expected one of reads, writes, deletes, charges, earns, calls, emits, forces, audits (/verbs/soul.memory.recall/effects/0/write)',
      'm.yaml:22:20: error: "soulread" is not a capability scope; write namespace:ability, e.g. soul:read (/verbs/soul.memory.recall/capabilities/0)',
      'm.yaml:23:15: error: category must be one of query, mutation, stream, not "qurey"; did you mean "query"? (/verbs/soul.memory.recall/category)',
      'm.yaml:24:18: error: projection "ui" must be written surface:mode, e.g. ui:form or cli:json (/verbs/soul.memory.recall/projection/0)',
      'm.yaml:25:20: error: deterministic must be true or false (/verbs/soul.memory.recall/deterministic)',
      'm.yaml:26:15: error: unknown sandbox limit "timeout"; did you mean "timeout_ms"? (/verbs/soul.memory.recall/sandbox/timeout)',
      'm.yaml:27:5: error: unknown field "colour"; a verb takes version, status, deprecated, sunset, migration, replacement, description, input, output, effects, capabilities, category, projection, deterministic, sandbox, versions (/verbs/soul.memory.recall/colour)',
      'm.yaml:33:3: error: era a.b.c@1 is declared twice; give each era its own version (/verbs/a.b.c@1)',
    ]);
  });

  it('reports YAML syntax errors and duplicate keys with positions, and still reads the rest', () => {
    const dup = lines(`${VERB()}  soul.memory.recall:\n    version: 2\n`);
    expect(dup.some((l) => /^m\.yaml:7:3: error: YAML: Map keys must be unique/.test(l))).toBe(true);
    const broken = lines('verbs:\n  a.b.c: [\n  x.y.z: 1\n');
    expect(broken.filter((l) => / error: YAML: /.test(l)).length).toBeGreaterThan(0);
    expect(broken.every((l) => /^m\.yaml:\d+:\d+: (error|warning): /.test(l))).toBe(true);
  });

  it('explains a missing or empty manifest', () => {
    expect(lines('')).toEqual(['m.yaml:1:1: error: the manifest is empty; it needs at least "verbs:"']);
    expect(lines('- a\n')).toEqual([
      'm.yaml:1:1: error: the manifest must be a mapping with "verbs:" (and "types:")',
    ]);
    expect(lines('types: {}\n')).toEqual([
      'm.yaml:1:1: error: the manifest has no "verbs:"; declare at least one verb',
    ]);
  });

  it('requires version, input, output and category, naming each at the verb', () => {
    expect(lines('verbs:\n  a.b.c:\n    effects: {}\n')).toEqual([
      'm.yaml:2:3: error: a.b.c has no category; add category: query | mutation | stream (/verbs/a.b.c)',
      'm.yaml:2:3: error: a.b.c has no input; write "input: {}" for a verb that takes nothing (/verbs/a.b.c)',
      'm.yaml:2:3: error: a.b.c has no output (/verbs/a.b.c)',
      'm.yaml:2:3: error: a.b.c has no version; add version: 1 (an integer era or YYYY-MM) (/verbs/a.b.c)',
    ]);
  });

  it('checks deprecation dates against the status', () => {
    expect(lines(VERB('    status: sunset\n    deprecated: 2025-13-01\n'))).toEqual([
      'm.yaml:2:3: error: status sunset needs the date it stops being served: add sunset: YYYY-MM-DD (/verbs/soul.memory.recall)',
      'm.yaml:8:17: error: deprecated must be a date written YYYY-MM-DD, e.g. "2025-06-01" (/verbs/soul.memory.recall/deprecated)',
    ]);
    expect(lines(VERB('    deprecated: 2025-06-01\n    sunset: 2025-01-01\n'))).toEqual([
      'm.yaml:8:13: error: sunset 2025-01-01 is before deprecated 2025-06-01 (/verbs/soul.memory.recall/sunset)',
    ]);
    expect(lines(VERB('    migration: docs/x.md\n'))[0]).toMatch(
      /^m\.yaml:7:5: error: sunset, migration and replacement need a deprecation date/,
    );
  });

  it('warns about queries that write, effects with no capability, and unused types', () => {
    const text = `types:\n  Spare: string\n${VERB('    effects: [writes: x]\n')}`;
    expect(lines(text)).toEqual([
      'm.yaml:2:3: warning: type Spare is not used by any verb (/types/Spare)',
      'm.yaml:4:3: warning: soul.memory.recall@1 declares writes but requires no capability; add capabilities: [namespace:ability] (/verbs/soul.memory.recall)',
      'm.yaml:9:5: warning: soul.memory.recall@1 is a query but declares writes; make it a mutation or drop the effect (/verbs/soul.memory.recall/effects)',
    ]);
  });

  it('accepts recursion through a list, map or object and resolves YAML aliases', () => {
    const text = [
      'types:',
      '  Tree:',
      '    label: &t string',
      '    children: list[Tree]',
      '    parent: Tree?',
      '    alias: *t',
      'verbs:',
      '  a.tree.get:',
      '    version: 1',
      '    input: {}',
      '    output: Tree',
      '    category: query',
      '',
    ].join('\n');
    const load = loadManifest(text, 'm.yaml');
    expect(load.problems).toEqual([]);
    const out = load.manifest.verbs[0]!.output;
    expect(
      schemaValidator().validate(out, {
        label: 'a',
        alias: 'b',
        children: [{ label: 'c', alias: 'd', children: [] }],
      }),
    ).toEqual([]);
  });

  it('reads key@version, a null type, "*" extra keys, [T] lists and optional keys', () => {
    const text = [
      'verbs:',
      '  a.b.c@2024-12:',
      '    input:',
      '      nothing: null',
      '      tags: [string]',
      '      "*": integer',
      '      meta?:',
      '        x: int',
      '    output: any',
      '    category: stream',
      '',
    ].join('\n');
    const load = loadManifest(text, 'm.yaml');
    expect(load.problems).toEqual([]);
    const spec = load.manifest.verbs[0]!;
    expect(spec.version).toBe('2024-12');
    expect(spec.input).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        nothing: { type: 'null' },
        tags: { type: 'array', items: { type: 'string' } },
        meta: {
          type: 'object',
          properties: { x: { type: 'integer' } },
          required: ['x'],
          additionalProperties: false,
        },
      },
      required: ['nothing', 'tags'],
      additionalProperties: { type: 'integer' },
    });
  });

  it('locates compiled schemas and eras for later reports', () => {
    const load = loadManifest(readFileSync(EXAMPLE, 'utf8'), 'x.yaml');
    expect(load.locations.verb('soul.memory.recall@2')).toMatchObject({
      file: 'x.yaml',
      pointer: '/verbs/soul.memory.recall/versions/1',
    });
    const crystal = load.manifest.types['MemoryCrystal'] as { properties: Record<string, object> };
    expect(load.locations.schema(crystal.properties['salience']!)).toMatchObject({
      pointer: '/types/MemoryCrystal/salience',
    });
  });
});
