import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SAMPLE_LENGTH, samplePattern } from '../../../src/node/mock/sample-pattern.js';
import { seededRandom } from '../../../src/node/mock/seeded-random.js';

describe('samplePattern', () => {
  const patterns = [
    '^b[a-z2-7]{8,}$',
    '^[A-Za-z0-9+/]*={0,2}$',
    '^[a-z][a-z0-9_]*$',
    '^\\d{3}-\\d{4}$',
    '^(?:foo|bar)+\\.baz?$',
    '^(?<year>\\d{4})-(0[1-9]|1[0-2])$',
    '^[^a-z]{2,5}$',
    '^\\w+@\\w+\\.(com|org)$',
    '^\\x41\\u0042[\\-.]{1}\\S\\D\\W$',
    'ab+c', // unanchored
    '^$',
    '^[^]{2}[\\]a]$',
    '^a{2}b{1,}c{0,3}?$',
    '^\\{literal\\}$',
    '^.{3}$',
  ];

  it.each(patterns)('writes strings matching %s', (pattern) => {
    const regex = new RegExp(pattern, 'u');
    for (let i = 0; i < 30; i++) {
      const text = samplePattern(pattern, seededRandom(`${pattern}-${i}`));
      expect(text, `${pattern} #${i}`).toBeDefined();
      expect(regex.test(text as string), `${pattern} → ${String(text)}`).toBe(true);
    }
  });

  it('gives up (undefined) on constructs it does not support or patterns that are not regular expressions', () => {
    for (const pattern of [
      '^(?=a)a$',
      '^(?!a)b$',
      '(a)\\1',
      '\\bword\\b',
      '^\\p{L}$',
      '[',
      '(a',
      'a**',
      '^[z-a]$',
      '^[]$',
    ]) {
      expect(samplePattern(pattern, seededRandom('x')), pattern).toBeUndefined();
    }
  });

  // Seeded, with bounded patterns: one level of groups, bounded repetition counts, at most 4
  // parts. The check below runs each pattern with the (backtracking) regex engine, so the
  // patterns stay small enough that a matching string is always found quickly.
  it('matches random patterns built from the supported grammar (property)', { timeout: 20_000 }, () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      'x',
      '7',
      '\\.',
      '\\d',
      '\\w',
      '\\s',
      '.',
      '[a-f]',
      '[^0-9]',
      '[A-Z_]',
    );
    const quantified = fc
      .tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '{2,}'))
      .map(([a, q]) => `${a}${q}`);
    const seq = fc.array(quantified, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    const group = fc
      .tuple(fc.array(seq, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '?', '{2}'))
      .map(([alts, q]) => `(?:${alts.join('|')})${q}`);
    const pattern = fc
      .array(fc.oneof(seq, group), { minLength: 1, maxLength: 4 })
      .map((parts) => `^${parts.join('')}$`);
    fc.assert(
      fc.property(pattern, fc.string({ maxLength: 6 }), (p, seed) => {
        const text = samplePattern(p, seededRandom(seed));
        return text !== undefined && new RegExp(p, 'u').test(text);
      }),
      { numRuns: 300, seed: 0x5a3b1e },
    );
  });

  it('accepts anchors only where they are no-ops, and refuses the rest', () => {
    for (const pattern of ['^a$', '^^a$$', 'a$|^b', '^(?:a|b)$']) {
      const text = samplePattern(pattern, seededRandom('anchors'));
      expect(text, pattern).toBeDefined();
      expect(new RegExp(pattern, 'u').test(text as string), pattern).toBe(true);
    }
    for (const pattern of ['a^b', 'a$b', '(?:^a|b)c', '(a$)', '^*a']) {
      expect(samplePattern(pattern, seededRandom('anchors')), pattern).toBeUndefined();
    }
  });

  it('keeps samples bounded, and refuses a pattern whose shortest match is too long', () => {
    const random = seededRandom('bounded');
    const huge = samplePattern('^(?:(?:ab?){0,1000}){0,1000}$', random);
    expect(huge).toBeDefined();
    expect((huge as string).length).toBeLessThanOrEqual(2 * MAX_SAMPLE_LENGTH);
    expect(/^(?:ab?)*$/.test(huge as string)).toBe(true);
    expect(samplePattern('^(?:x?){1000000000}$', random)).toBeDefined();
    expect(samplePattern('^(?:){1000000000}a$', random)).toBe('a');
    expect(samplePattern(`^a{${String(MAX_SAMPLE_LENGTH + 1)}}$`, random)).toBeUndefined();
    expect(samplePattern('^(?:a{100000}){100000}$', random)).toBeUndefined();
    expect(samplePattern(`^a{${String(MAX_SAMPLE_LENGTH)}}$`, random)).toHaveLength(MAX_SAMPLE_LENGTH);
  });
});
