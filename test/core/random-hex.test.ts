import { describe, expect, it } from 'vitest';
import { randomHexId } from '../../src/core/random-hex.js';

describe('randomHexId', () => {
  it('gives lower-case hex of twice the byte count, never all zeros', () => {
    for (const bytes of [8, 16, 1, 64]) {
      for (let i = 0; i < 200; i++) {
        const id = randomHexId(bytes);
        expect(id).toMatch(new RegExp(`^[0-9a-f]{${2 * bytes}}$`));
        expect(/^0+$/.test(id)).toBe(false);
      }
    }
  });

  it('does not repeat across pool refills', () => {
    const seen = new Set<string>();
    // 3,000 span ids span several 4 KiB refills of the pool
    for (let i = 0; i < 3000; i++) seen.add(randomHexId(8));
    expect(seen.size).toBe(3000);
  });
});
