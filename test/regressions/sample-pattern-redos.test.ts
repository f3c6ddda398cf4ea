/**
 * Issue 11, item 11: the mock's pattern sampler ran each schema `pattern` (untrusted) with the
 * backtracking regex engine on its own sample, so a pattern with nested quantifiers could hang
 * the process (and its property test hung about one run in seven). The sampler now builds a
 * string from the pattern's grammar and never runs the pattern.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { samplePattern } from '../../src/node/mock/sample-pattern.js';
import { sampleString } from '../../src/node/mock/sample-string.js';
import { seededRandom } from '../../src/node/mock/seeded-random.js';

// Catastrophic for a backtracking engine even on a string that matches: the greedy \w+ has to
// hand back 30 digits, and each hand-back re-partitions them among the outer +'s iterations.
const PATHOLOGICAL = '^(?:\\w+)+\\d{30}$';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Refuses to run `pattern` itself (so a regression fails at once instead of hanging). */
function forbidRunning(pattern: string): void {
  const source = new RegExp(pattern, 'u').source;
  const { test, exec } = RegExp.prototype; // eslint-disable-line @typescript-eslint/unbound-method -- called with their own `this` below
  vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === source) throw new Error(`ran the pattern ${pattern}`);
    return test.call(this, text);
  });
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === source) throw new Error(`ran the pattern ${pattern}`);
    return exec.call(this, text);
  });
}

describe('samplePattern never runs the (untrusted) pattern', () => {
  it('samples a pattern with nested quantifiers without executing it', () => {
    forbidRunning(PATHOLOGICAL);
    for (let i = 0; i < 20; i++) {
      const text = samplePattern(PATHOLOGICAL, seededRandom(`redos-${String(i)}`));
      expect(text).toBeDefined();
      const sample = text as string;
      // Checked with linear-time means, not with the pattern:
      expect(sample.length).toBeGreaterThan(30);
      expect(sample.split('').every((c) => /\w/.test(c))).toBe(true);
      expect(
        sample
          .slice(-30)
          .split('')
          .every((c) => c >= '0' && c <= '9'),
      ).toBe(true);
    }
  });

  it('still refuses what it cannot sample, without running it', () => {
    const lookahead = '^(?=a)(?:\\w+)+$';
    forbidRunning(lookahead);
    expect(samplePattern(lookahead, seededRandom('x'))).toBeUndefined();
  });
});

describe('sampleString runs no nested base32 pattern', () => {
  it('samples a content-id-like pattern with nested quantifiers without executing it', () => {
    // Hangs a backtracking engine on a 59-character CID (which it was tried against before).
    const nested = '^(?:[a-z2-7]+)+!$';
    forbidRunning(nested);
    const text = sampleString({ pattern: nested }, seededRandom('redos-cid'));
    expect(text.endsWith('!')).toBe(true);
  });
});
