import { describe, expect, it } from 'vitest';
import { diffManifests, diffSchemas, loadManifest } from '../../../../src/wire/agentese/manifest/index.js';
import type { EraChange } from '../../../../src/wire/agentese/manifest/index.js';

/** A one-verb manifest whose `Input` and `Output` types are given as YAML field lines. */
function manifest(
  input: string,
  output = '    ok: boolean',
  extra = '    category: query\n',
  file = 'new.yaml',
) {
  const text = `types:\n  Input:\n${input}\n  Output:\n${output}\nverbs:\n  soul.memory.recall:\n    version: 1\n    input: Input\n    output: Output\n${extra}`;
  const load = loadManifest(text, file);
  expect(load.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return load;
}

function changes(
  before: ReturnType<typeof manifest>,
  after: ReturnType<typeof manifest>,
): [string, string][] {
  return diffManifests(before, after).map((c: EraChange) => [c.kind, c.message]);
}

const BASE = '    query: string\n    limit: uint8 = 10\n    mode: enum[fast, deep]';

describe('diffManifests', () => {
  it('finds nothing between identical manifests', () => {
    expect(changes(manifest(BASE), manifest(BASE))).toEqual([]);
  });

  it('judges input changes: removed, narrowed, newly required are breaking', () => {
    const after = manifest('    limit: uint8[1..50] = 10\n    mode: enum[fast]\n    tenant: uuid');
    expect(changes(manifest(BASE), after)).toEqual([
      ['breaking', 'input.query: field "query" was removed'],
      ['breaking', 'input.limit: minimum changed from 0 to 1'],
      ['breaking', 'input.limit: maximum changed from 255 to 50'],
      ['breaking', 'input.mode: enum value "deep" was removed'],
      ['breaking', 'input.tenant: new required field "tenant"'],
    ]);
  });

  it('judges input changes: new optional fields, enum values and union members are additive', () => {
    const after = manifest(
      '    query: string | null\n    limit: uint16 = 10\n    mode: enum[fast, deep, wide]\n    since: date?',
    );
    expect(changes(manifest(BASE), after)).toEqual([
      ['additive', 'input.query: the union now also accepts null'],
      ['additive', 'input.limit: maximum changed from 255 to 65535'],
      ['additive', 'input.mode: enum value "wide" was added'],
      ['additive', 'input.since: new optional field "since"'],
    ]);
  });

  it('judges output changes the other way, with tolerant readers for new fields and enum values', () => {
    const before = manifest(BASE, '    score: float[0..1]\n    kind: enum[a, b]\n    id: uuid');
    const after = manifest(
      BASE,
      '    score: float\n    kind: enum[a, b, c]\n    id: uuid | null\n    extra: string',
    );
    expect(changes(before, after)).toEqual([
      ['breaking', 'output.score: minimum changed from 0 to none'],
      ['breaking', 'output.score: maximum changed from 1 to none'],
      ['breaking', 'output.id: the union now also accepts null'],
      ['additive', 'output.kind: enum value "c" was added'],
      ['additive', 'output.extra: new required field "extra"'],
    ]);
    expect(changes(after, before)).toContainEqual(['breaking', 'output.extra: field "extra" was removed']);
  });

  it('treats a changed field type as breaking, integer to number as widening', () => {
    expect(changes(manifest('    n: integer'), manifest('    n: string'))).toEqual([
      ['breaking', 'input.n: type changed from integer to string'],
    ]);
    expect(changes(manifest('    n: integer'), manifest('    n: float'))).toEqual([
      ['additive', 'input.n: type changed from integer to number'],
    ]);
    expect(changes(manifest('    n: string'), manifest('    n: uuid'))).toEqual([
      ['breaking', 'input.n: now requires format uuid'],
    ]);
  });

  it('follows references and recursion into nested types', () => {
    const before = manifest('    tree: Input?\n    label: string');
    const after = manifest('    tree: Input?\n    label: string[..10]');
    expect(changes(before, after)).toEqual([['breaking', 'input.label: maxLength changed from none to 10']]);
  });

  it('judges verb-level changes: new effects and capabilities break, removed ones do not', () => {
    const before = manifest(
      BASE,
      undefined,
      '    category: query\n    capabilities: [soul:read]\n    effects: [reads: crystals]\n    deterministic: true\n',
    );
    const after2 = manifest(
      BASE,
      undefined,
      '    category: mutation\n    capabilities: [soul:read, soul:write]\n    effects: [writes: crystals]\n',
    );
    expect(changes(before, after2)).toEqual([
      ['breaking', 'category changed from query to mutation'],
      ['breaking', 'now also writes crystals; tokens granted for this era may not cover it'],
      ['breaking', "now requires capability soul:write; existing callers' tokens lack it"],
      ['breaking', 'is no longer deterministic; callers that cache its results would be wrong'],
      ['additive', 'no longer reads crystals'],
    ]);
  });

  it('allows new eras and verbs, and removing only sunset eras', () => {
    const v1 = (status: string) =>
      loadManifest(
        `verbs:\n  a.b.c:\n    version: 1\n    input: {}\n    output: {}\n    category: query\n    status: ${status}\n    deprecated: 2025-01-01\n    sunset: 2025-06-01\n`,
        'old.yaml',
      );
    const v2 = loadManifest(
      'verbs:\n  a.b.c@2:\n    input: {}\n    output: {}\n    category: query\n  x.y.z@1:\n    input: {}\n    output: {}\n    category: query\n',
      'new.yaml',
    );
    expect(changes(v1('sunset'), v2)).toEqual([
      ['additive', 'new era a.b.c@2'],
      ['additive', 'new verb x.y.z@1'],
      ['additive', 'removed the sunset era a.b.c@1'],
    ]);
    const removed = diffManifests(v1('deprecated'), v2).at(-1);
    expect(removed).toMatchObject({
      kind: 'breaking',
      era: 'a.b.c@1',
      location: { file: 'old.yaml', line: 2, column: 3 },
    });
    expect(removed?.message).toMatch(/which is deprecated, not sunset/);
  });

  it('locates a change at the field in the new manifest', () => {
    const after = manifest('    query: string\n    limit: uint8 = 10\n    mode: enum[fast]');
    const [change] = diffManifests(manifest(BASE), after);
    expect(change?.location).toMatchObject({
      file: 'new.yaml',
      line: 5,
      column: 11,
      pointer: '/types/Input/mode',
    });
  });
});

describe('diffSchemas', () => {
  it('compares bare schemas in either direction', () => {
    const a = { type: 'array', items: { type: 'string' } };
    const b = { type: 'array', items: { type: 'string' }, maxItems: 3 };
    expect(diffSchemas(a, b, 'input').map((c) => c.kind)).toEqual(['breaking']);
    expect(diffSchemas(a, b, 'output').map((c) => c.kind)).toEqual(['additive']);
    expect(diffSchemas({}, { type: 'string' }, 'output').map((c) => [c.kind, c.message])).toEqual([
      ['additive', 'now restricted to string'],
    ]);
  });
});
