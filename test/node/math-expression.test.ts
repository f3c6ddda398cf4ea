import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { MAX_EXPRESSION_DEPTH, evaluateExpression } from '../../src/node/demo/math-expression.js';

function failure(text: string): PlexusError {
  try {
    evaluateExpression(text);
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

type Tree = number | { op: '+' | '-' | '*'; left: Tree; right: Tree } | { neg: Tree };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 1000 }),
    fc.record({ op: fc.constantFrom('+', '-', '*'), left: tie('node'), right: tie('node') }),
    fc.record({ neg: tie('node') }),
  ),
})).node;

function render(t: Tree): string {
  if (typeof t === 'number') return String(t);
  if ('neg' in t) return `-(${render(t.neg)})`;
  return `(${render(t.left)} ${t.op} ${render(t.right)})`;
}

function value(t: Tree): number {
  if (typeof t === 'number') return t;
  if ('neg' in t) return -value(t.neg);
  const a = value(t.left);
  const b = value(t.right);
  return t.op === '+' ? a + b : t.op === '-' ? a - b : a * b;
}

describe('evaluateExpression', () => {
  it.each([
    ['1 + 2', 3],
    ['2 * (3 + 4) ^ 2', 98],
    ['10 / 4', 2.5],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['+4 - -4', 8],
    ['1 - 2 - 3', -4],
    ['8 / 2 / 2', 2],
    ['.5 + 1.25e1', 13],
    ['  7\t\n', 7],
    ['-0', 0],
  ])('evaluates %s to %s', (text, expected) => {
    expect(evaluateExpression(text)).toBe(expected);
  });

  it('agrees with a direct evaluation of random integer expressions', () => {
    fc.assert(
      fc.property(tree, (t) => {
        const expected = value(t);
        fc.pre(Number.isFinite(expected) && Math.abs(expected) < 2 ** 53);
        expect(evaluateExpression(render(t))).toBe(expected === 0 ? 0 : expected);
      }),
    );
  });

  it.each([
    ['', 'the expression is empty at position 1'],
    ['1 +', 'unexpected end of expression at position 4'],
    ['2 * x', 'unexpected character "x" at position 5'],
    ['(1 + 2', 'expected ")" to close the "(" at position 1, found end of expression at position 7'],
    ['1 + 2)', 'unexpected ")" at position 6'],
    ['1 / (2 - 2)', 'division by zero at position 3'],
    ['3 4', 'unexpected "4" at position 3'],
    ['* 3', 'expected a number or "(", found "*" at position 1'],
    ['10 ^ 400', 'the result of "^" is not a finite number at position 4'],
    ['(-8) ^ 0.5', 'the result of "^" is not a finite number at position 6'],
    ['1e999', 'the number 1e999 is too large at position 1'],
    ['alert(1)', 'unexpected character "a" at position 1'],
  ])('refuses %j with INVALID_PARAMS: %s', (text, message) => {
    const error = failure(text);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toBe(message);
    expect(error.details?.['position']).toBeTypeOf('number');
  });

  it('refuses nesting deeper than the bound instead of overflowing the stack', () => {
    const deep = `${'('.repeat(MAX_EXPRESSION_DEPTH + 1)}1${')'.repeat(MAX_EXPRESSION_DEPTH + 1)}`;
    expect(failure(deep).message).toMatch(/nests deeper than 200 levels/);
    const ok = `${'('.repeat(50)}1${')'.repeat(50)}`;
    expect(evaluateExpression(ok)).toBe(1);
    expect(failure('-'.repeat(5_000) + '1').message).toMatch(/nests deeper/);
  });

  it('refuses an expression longer than the limit', () => {
    expect(failure('1+'.repeat(6000) + '1').message).toMatch(/longer than 10000 characters/);
  });
});
