import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { samplePattern } from '../../../src/node/mock/sample-pattern.js';
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

  it('matches random patterns built from the supported grammar (property)', () => {
    const atom = fc.oneof(
      fc.constantFrom('a', 'b', 'x', '7', '\\.', '\\d', '\\w', '\\s', '.', '[a-f]', '[^0-9]', '[A-Z_]'),
    );
    const quantified = fc
      .tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '{2,}'))
      .map(([a, q]) => `${a}${q}`);
    const seq = fc.array(quantified, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));
    const group = fc
      .tuple(fc.array(seq, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '?', '+', '{2}'))
      .map(([alts, q]) => `(?:${alts.join('|')})${q}`);
    const pattern = fc
      .array(fc.oneof(seq, group), { minLength: 1, maxLength: 4 })
      .map((parts) => `^${parts.join('')}$`);
    fc.assert(
      fc.property(pattern, fc.string({ maxLength: 6 }), (p, seed) => {
        const text = samplePattern(p, seededRandom(seed));
        return text !== undefined && new RegExp(p, 'u').test(text);
      }),
      { numRuns: 300 },
    );
  });
});
