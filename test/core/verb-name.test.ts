import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import {
  VERB_NAME_PATTERN_SOURCE,
  formatVerbName,
  isVerbName,
  isVerbVersion,
  parseVerbName,
  resolveVerbVersion,
  stripVerbVersion,
  verbNameProblem,
  verbVersionProblem,
} from '../../src/core/verb-name.js';
import type { VerbVersion } from '../../src/core/verb-name.js';

function errorOf(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PlexusError);
    return e as PlexusError;
  }
  throw new Error('expected a PlexusError');
}

const segment = fc
  .tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split('')),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'.split('')), maxLength: 12 }),
  )
  .map(([h, t]) => h + t);
const version: fc.Arbitrary<VerbVersion> = fc.oneof(
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }))
    .map(([y, m]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`),
);
const parts = fc.record(
  { segments: fc.array(segment, { minLength: 2, maxLength: 3 }), version },
  { requiredKeys: ['segments'] },
);

describe('parseVerbName', () => {
  it('parses a three-segment verb with an integer era', () => {
    expect(parseVerbName('atelier.session.start@1')).toEqual({
      name: 'atelier.session.start',
      segments: ['atelier', 'session', 'start'],
      namespace: 'atelier',
      resource: 'session',
      action: 'start',
      version: 1,
    });
  });

  it('parses a verb without a version, and a YYYY-MM era', () => {
    expect(parseVerbName('soul.memory.recall')).toEqual({
      name: 'soul.memory.recall',
      segments: ['soul', 'memory', 'recall'],
      namespace: 'soul',
      resource: 'memory',
      action: 'recall',
    });
    expect(parseVerbName('town.citizen.greet@2024-12').version).toBe('2024-12');
  });

  it('parses two-segment verbs without a resource', () => {
    const v = parseVerbName('memory.search');
    expect(v).toEqual({
      name: 'memory.search',
      segments: ['memory', 'search'],
      namespace: 'memory',
      action: 'search',
    });
    expect('resource' in v).toBe(false);
  });

  it.each([
    ['', /empty/],
    ['single', /one segment/],
    ['a.b.c.d', /4 segments; at most three/],
    ['a..c', /empty segment at position 2/],
    ['Atelier.session.start', /segment "Atelier" must start with a lower-case letter/],
    ['atelier.1session.start', /segment "1session"/],
    ['atelier.session-x.start', /segment "session-x"/],
    ['a.b@', /version after "@" is empty/],
    ['a.b@0', /start at 1/],
    ['a.b@01', /leading zero; write 1/],
    ['a.b@2024-13', /month in era "2024-13" must be 01 to 12/],
    ['a.b@2024-00', /month/],
    ['a.b@v1', /neither an integer era/],
    ['a.b@1@2', /more than one "@"/],
    ['a.b@99999999999999999999', /too large/],
    [`a.${'x'.repeat(65)}`, /longer than 64 characters/],
  ])('rejects %j with a message naming the fault', (text, message) => {
    const err = errorOf(() => parseVerbName(text));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toMatch(message);
    expect(isVerbName(text)).toBe(false);
  });

  it('rejects a non-string', () => {
    expect(verbNameProblem(42)).toMatch(/must be a string/);
  });

  it('agrees with the JSON Schema pattern (segment length aside)', () => {
    const re = new RegExp(VERB_NAME_PATTERN_SOURCE);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab1_.@-02'.split('')), maxLength: 12 }), (s) => {
        expect(re.test(s)).toBe(isVerbName(s));
      }),
    );
  });
});

describe('formatVerbName', () => {
  it('joins segments and appends the version', () => {
    expect(formatVerbName({ segments: ['a', 'b', 'c'], version: 2 })).toBe('a.b.c@2');
    expect(formatVerbName({ name: 'a.b', version: '2024-01' })).toBe('a.b@2024-01');
    expect(formatVerbName({ name: 'a.b' })).toBe('a.b');
  });

  it('rejects parts that do not make a verb name', () => {
    expect(errorOf(() => formatVerbName({ segments: ['a'] })).code).toBe('INVALID_PARAMS');
    expect(errorOf(() => formatVerbName({ name: 'a.b', version: 1.5 })).message).toMatch(/not an integer/);
    expect(errorOf(() => formatVerbName({ name: 'a.b', version: '1' })).message).toMatch(/is a string/);
  });

  it('parse(format(x)) gives x back (property)', () => {
    fc.assert(
      fc.property(parts, (p) => {
        const parsed = parseVerbName(formatVerbName(p));
        expect(parsed.segments).toEqual(p.segments);
        expect(parsed.version).toEqual(p.version);
        expect(formatVerbName(parsed)).toBe(formatVerbName(p));
      }),
    );
  });

  it('format(parse(s)) gives s back for every valid name (property)', () => {
    fc.assert(
      fc.property(parts, (p) => {
        const text = formatVerbName(p);
        expect(formatVerbName(parseVerbName(text))).toBe(text);
        expect(stripVerbVersion(text)).toBe(p.segments.join('.'));
      }),
    );
  });
});

describe('verb versions', () => {
  it('accepts integer eras and YYYY-MM strings only', () => {
    expect(isVerbVersion(1)).toBe(true);
    expect(isVerbVersion('2024-12')).toBe(true);
    expect(verbVersionProblem(0)).toMatch(/start at 1/);
    expect(verbVersionProblem(1.5)).toMatch(/not an integer/);
    expect(verbVersionProblem('1')).toMatch(/write the integer 1 without quotes/);
    expect(verbVersionProblem('2024-13')).toMatch(/month/);
    expect(verbVersionProblem('latest')).toMatch(/neither/);
    expect(verbVersionProblem(null)).toMatch(/must be an integer era/);
  });
});

describe('resolveVerbVersion', () => {
  it("uses the verb's own version when the envelope has none or the same", () => {
    expect(resolveVerbVersion('a.b.c@2')).toBe(2);
    expect(resolveVerbVersion('a.b.c@2', 2)).toBe(2);
    expect(resolveVerbVersion(parseVerbName('a.b.c@2024-12'), '2024-12')).toBe('2024-12');
  });

  it("uses the envelope's version when the verb has none", () => {
    expect(resolveVerbVersion('a.b.c', 3)).toBe(3);
    expect(resolveVerbVersion('a.b.c')).toBeUndefined();
  });

  it('rejects a different envelope version, naming both', () => {
    const err = errorOf(() => resolveVerbVersion('a.b.c@2', 1));
    expect(err.code).toBe('INVALID_SEMANTIC');
    expect(err.message).toMatch(/envelope version 1 differs from the verb's own @2/);
    expect(err.details).toMatchObject({ pointer: '/version', verbVersion: 2, envelopeVersion: 1 });
    expect(errorOf(() => resolveVerbVersion('a.b.c@2024-12', '2024-11')).code).toBe('INVALID_SEMANTIC');
  });

  it('rejects a malformed envelope version or verb', () => {
    expect(errorOf(() => resolveVerbVersion('a.b.c', '1')).code).toBe('INVALID_PARAMS');
    expect(errorOf(() => resolveVerbVersion('A.b', 1)).code).toBe('INVALID_PARAMS');
  });
});
