/**
 * Cycle detection at the end of a call stack, for `recursive.analyze`.
 *
 * A stack ends in a loop when its last `k·p` steps are one block of `p` steps repeated `k ≥ 2`
 * times. Among all periods, the one with the most repetitions wins (a longer loop that has run
 * five times says more than a one-step stutter that has run twice); ties go to the shortest
 * period, so the reported cycle is minimal. Pure, and fast on long stacks: candidate periods
 * stop as soon as a longer one can no longer repeat more often than the best found.
 */

/** A repeating cycle at the end of a stack. */
export interface StackCycle {
  /** The repeated block, in stack order (the last `period` steps). */
  readonly cycle: readonly string[];
  /** Its length. */
  readonly period: number;
  /** How many times it repeats back to back at the end of the stack (≥ 2). */
  readonly iterations: number;
}

/**
 * The repeating cycle at the end of `stack`, or `undefined` when the stack does not end with
 * a block repeated at least twice.
 *
 * @example
 * findCycle(['plan', 'search', 'analyze', 'refine', 'search', 'analyze', 'refine'])
 * // { cycle: ['search', 'analyze', 'refine'], period: 3, iterations: 2 }
 */
export function findCycle(stack: readonly string[]): StackCycle | undefined {
  const n = stack.length;
  // Intern steps so comparisons are integer compares.
  const ids = new Map<string, number>();
  const s = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const step = stack[i] ?? '';
    let id = ids.get(step);
    if (id === undefined) {
      id = ids.size;
      ids.set(step, id);
    }
    s[i] = id;
  }
  let bestPeriod = 0;
  let bestIterations = 1;
  for (let p = 1; p * 2 <= n; p++) {
    if (Math.floor(n / p) <= bestIterations) break; // no longer period can repeat more often
    let j = n - 1 - p;
    while (j >= 0 && s[j] === s[j + p]) j--;
    const periodicLength = n - 1 - j; // the suffix s[j+1 … n-1] has period p
    const iterations = Math.floor(periodicLength / p);
    if (iterations > bestIterations) {
      bestIterations = iterations;
      bestPeriod = p;
    }
  }
  if (bestPeriod === 0) return undefined;
  return { cycle: stack.slice(n - bestPeriod), period: bestPeriod, iterations: bestIterations };
}

/**
 * The cycle as a person reads it: starting from the step the stack ends on (the step being
 * run now) and going round, joined by ` -> ` (`refine -> search -> analyze`).
 */
export function cyclePattern(cycle: readonly string[]): string {
  if (cycle.length === 0) return '';
  const last = cycle[cycle.length - 1] ?? '';
  return [last, ...cycle.slice(0, -1)].join(' -> ');
}
