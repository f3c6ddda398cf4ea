import { describe, expect, it } from 'vitest';
import {
  composeEffects,
  isEffectName,
  normalizeEffects,
  normalizeEffectsWithProblems,
} from '../../../src/core/records/effects.js';
import {
  normalizeProjection,
  normalizeProjectionWithProblems,
} from '../../../src/core/records/projection.js';
import { errorOf } from './helpers.js';

describe('normalizeEffects', () => {
  it('reads the seed manifest list form (YAML one-key mappings)', () => {
    expect(normalizeEffects([{ writes: 'session_registry' }, { charges: 'tokens' }])).toEqual({
      writes: ['session_registry'],
      charges: ['tokens'],
    });
  });

  it('reads "effect: resource" strings, mappings and lists, merging and de-duplicating', () => {
    expect(
      normalizeEffects(['reads: memory_crystals', 'reads:memory_crystals', 'calls: llm/claude']),
    ).toEqual({
      reads: ['memory_crystals'],
      calls: ['llm/claude'],
    });
    expect(normalizeEffects({ calls: ['llm/claude', 'tool/browser'], reads: 'x' })).toEqual({
      reads: ['x'],
      calls: ['llm/claude', 'tool/browser'],
    });
  });

  it('puts effect keys in canonical order', () => {
    expect(Object.keys(normalizeEffects({ audits: ['a'], reads: ['b'], emits: ['c'] }))).toEqual([
      'reads',
      'emits',
      'audits',
    ]);
  });

  it('treats null and absent as no effects', () => {
    expect(normalizeEffects(null)).toEqual({});
    expect(normalizeEffects(undefined)).toEqual({});
  });

  it('reports every malformed entry with its pointer', () => {
    const { problems } = normalizeEffectsWithProblems(['reads', { mutates: 'x' }, 3, { writes: ['', 'ok'] }]);
    expect(problems).toEqual([
      {
        pointer: '/0',
        message: '"reads" must be written "effect: resource" (e.g. "reads: memory_crystals")',
      },
      {
        pointer: '/1/mutates',
        message:
          '"mutates" is not an effect; expected one of reads, writes, deletes, charges, earns, calls, emits, forces, audits',
      },
      { pointer: '/2', message: 'an effect must be "effect: resource" or {effect: resources}' },
      { pointer: '/3/writes/0', message: 'a resource of "writes" must be a non-empty string' },
    ]);
    expect(normalizeEffectsWithProblems('reads').problems).toHaveLength(1);
    expect(errorOf(() => normalizeEffects(['reads'])).code).toBe('INVALID_PARAMS');
  });

  it('isEffectName knows the nine effects', () => {
    expect(isEffectName('forces')).toBe(true);
    expect(isEffectName('mutates')).toBe(false);
  });
});

describe('composeEffects', () => {
  it('is the union per effect (seed 002 §3.2)', () => {
    expect(composeEffects({ reads: ['x'], writes: ['y'] }, { reads: ['y'], writes: ['z'] })).toEqual({
      reads: ['x', 'y'],
      writes: ['y', 'z'],
    });
    expect(composeEffects({}, { emits: ['e'] })).toEqual({ emits: ['e'] });
  });
});

describe('normalizeProjection', () => {
  it('turns the list form into a mapping with empty hints', () => {
    expect(normalizeProjection(['ui:form', 'cli:prompt'])).toEqual({ 'ui:form': {}, 'cli:prompt': {} });
  });

  it('keeps the mapping form and reads null hints as {}', () => {
    expect(normalizeProjection({ 'cli:json': { jq: '.session_id' }, 'ui:stream': null })).toEqual({
      'cli:json': { jq: '.session_id' },
      'ui:stream': {},
    });
    expect(normalizeProjection(undefined)).toEqual({});
  });

  it('reports bad keys and hints', () => {
    expect(normalizeProjectionWithProblems(['form', 3]).problems).toEqual([
      { pointer: '/0', message: '"form" must be written surface:mode (e.g. ui:form, cli:json)' },
      { pointer: '/1', message: 'a projection must be a "surface:mode" string' },
    ]);
    expect(normalizeProjectionWithProblems({ 'ui:form': 'x' }).problems).toEqual([
      { pointer: '/ui:form', message: 'projection hints must be an object' },
    ]);
    expect(normalizeProjectionWithProblems(5).problems).toHaveLength(1);
    expect(errorOf(() => normalizeProjection(['x'])).code).toBe('INVALID_PARAMS');
  });
});
