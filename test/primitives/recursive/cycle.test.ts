import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeStack, cyclePattern, findCycle } from '../../../src/primitives/recursive/index.js';

const SEED_STACK = [
  'plan-research',
  'web-search',
  'analyze-results',
  'refine-search-query',
  'web-search',
  'analyze-results',
  'refine-search-query',
];

/** Brute force: for every period, the repetitions at the end; most repetitions, then shortest. */
function oracle(stack: readonly string[]): { period: number; iterations: number } | undefined {
  let best: { period: number; iterations: number } | undefined;
  for (let p = 1; p <= stack.length; p++) {
    let k = 1;
    while ((k + 1) * p <= stack.length) {
      const a = stack.slice(stack.length - (k + 1) * p, stack.length - k * p);
      const b = stack.slice(stack.length - p);
      if (a.join('\u0000') !== b.join('\u0000')) break;
      k++;
    }
    if (k >= 2 && (best === undefined || k > best.iterations)) best = { period: p, iterations: k };
  }
  return best;
}

/** True when `word` is not a power of a shorter word. */
function primitiveWord(word: readonly string[]): boolean {
  for (let d = 1; d < word.length; d++) {
    if (word.length % d !== 0) continue;
    if (word.every((x, i) => x === word[i % d])) return false;
  }
  return true;
}

describe('findCycle', () => {
  it('finds the seed example cycle of three steps repeated twice', () => {
    expect(findCycle(SEED_STACK)).toEqual({
      cycle: ['web-search', 'analyze-results', 'refine-search-query'],
      period: 3,
      iterations: 2,
    });
  });

  it('answers undefined when the stack does not end in a repetition', () => {
    expect(findCycle([])).toBeUndefined();
    expect(findCycle(['a'])).toBeUndefined();
    expect(findCycle(['a', 'b', 'a'])).toBeUndefined();
    expect(findCycle(['a', 'b', 'c', 'a', 'b'])).toBeUndefined();
  });

  it('prefers the cycle with more repetitions, then the shorter one', () => {
    expect(findCycle(['a', 'a'])).toEqual({ cycle: ['a'], period: 1, iterations: 2 });
    // [a,b,b] five times beats the stutter [b] twice.
    const stack = Array.from({ length: 5 }, () => ['a', 'b', 'b']).flat();
    expect(findCycle(stack)).toMatchObject({ cycle: ['a', 'b', 'b'], iterations: 5 });
    // A tie between [a] ×2 and [b,a,a] ×2 goes to the shorter.
    expect(findCycle(['b', 'a', 'a', 'b', 'a', 'a'])).toMatchObject({ cycle: ['a'], iterations: 2 });
  });

  it('handles a long stack of one step quickly enough to answer', () => {
    const stack = Array.from({ length: 10_000 }, () => 'again');
    expect(findCycle(stack)).toEqual({ cycle: ['again'], period: 1, iterations: 10_000 });
  });

  it('detects prefix + k repetitions of a cycle with at least k iterations and a minimal cycle (property)', () => {
    const step = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 8 }),
        fc.array(step, { minLength: 1, maxLength: 5 }).filter(primitiveWord),
        fc.integer({ min: 2, max: 6 }),
        (prefix, cycle, k) => {
          const stack = [...prefix, ...Array.from({ length: k }, () => cycle).flat()];
          const found = findCycle(stack);
          expect(found).toBeDefined();
          expect(found!.iterations).toBeGreaterThanOrEqual(k);
          // The reported block really repeats that many times at the end.
          const tail = stack.slice(stack.length - found!.iterations * found!.period);
          expect(tail).toEqual(Array.from({ length: found!.iterations }, () => found!.cycle).flat());
          // Most repetitions, then the shortest period: what an exhaustive search picks.
          expect({ period: found!.period, iterations: found!.iterations }).toEqual(oracle(stack));
          // The generated cycle repeats k times, so a result with k iterations is no longer than it.
          if (found!.iterations === k) expect(found!.period).toBeLessThanOrEqual(cycle.length);
          if (found!.iterations === k && found!.period === cycle.length) expect(found!.cycle).toEqual(cycle);
        },
      ),
    );
  });

  it('agrees with a brute-force search on random stacks (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 40 }), (stack) => {
        const found = findCycle(stack);
        const expected = oracle(stack);
        expect(
          found === undefined ? undefined : { period: found.period, iterations: found.iterations },
        ).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('cyclePattern', () => {
  it('starts from the step the stack ends on, like the seed', () => {
    expect(cyclePattern(['web-search', 'analyze-results', 'refine-search-query'])).toBe(
      'refine-search-query -> web-search -> analyze-results',
    );
    expect(cyclePattern(['a'])).toBe('a');
    expect(cyclePattern([])).toBe('');
  });
});

describe('analyzeStack', () => {
  it('warns on the seed example', () => {
    expect(analyzeStack(SEED_STACK, 'refine-search-query', 10, 50)).toMatchObject({
      isLooping: true,
      pattern: 'refine-search-query -> web-search -> analyze-results',
      iterations: 2,
      depth: 7,
      recommendation: 'warn',
    });
  });

  it('halts when the cycle has repeated maxIterations times or the depth passes maxDepth', () => {
    expect(analyzeStack(SEED_STACK, 'refine-search-query', 2, 50).recommendation).toBe('halt');
    const deep = analyzeStack(['a', 'b', 'c', 'd'], 'e', 10, 4);
    expect(deep).toMatchObject({ isLooping: false, depth: 5, recommendation: 'halt' });
  });

  it('continues when nothing repeats, and counts currentStep once', () => {
    expect(analyzeStack(['plan', 'search'], 'analyze', 10, 50)).toMatchObject({
      isLooping: false,
      iterations: 0,
      depth: 3,
      recommendation: 'continue',
    });
    // currentStep not yet on the stack makes the repetition.
    expect(analyzeStack(['search', 'analyze', 'search'], 'analyze', 10, 50)).toMatchObject({
      isLooping: true,
      iterations: 2,
      depth: 4,
      pattern: 'analyze -> search',
    });
  });
});
