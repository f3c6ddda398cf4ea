import { describe, expect, it } from 'vitest';
import { cleanupStack } from '../../src/node/cleanup-stack.js';
import { late } from '../../src/node/late.js';
import { PlexusError } from '../../src/core/errors.js';

describe('cleanupStack', () => {
  it('runs the steps last pushed first, with the run context, once', async () => {
    const ran: string[] = [];
    const stack = cleanupStack<{ drainMs: number }>();
    for (const name of ['lock', 'log', 'runtime']) {
      stack.push(({ drainMs }) => {
        ran.push(`${name}:${drainMs}`);
        return Promise.resolve();
      });
    }
    await stack.run({ drainMs: 5 });
    expect(ran).toEqual(['runtime:5', 'log:5', 'lock:5']);
    await stack.run({ drainMs: 0 });
    expect(ran).toHaveLength(3);
  });

  it('runs every step when some fail, and throws the first failure', async () => {
    const ran: string[] = [];
    const stack = cleanupStack<null>();
    stack.push(() => (ran.push('a'), Promise.resolve()));
    stack.push(() => (ran.push('b'), Promise.reject(new Error('second'))));
    stack.push(() => (ran.push('c'), Promise.reject(new Error('first'))));
    await expect(stack.run(null)).rejects.toThrow('first');
    expect(ran).toEqual(['c', 'b', 'a']);
  });
});

describe('late', () => {
  it('refuses a read before the value is handed over, then gives it; a second hand-over is refused', () => {
    const slot = late<number>('the runtime');
    expect(slot.peek()).toBeUndefined();
    expect(() => slot.get()).toThrow(PlexusError);
    expect(() => slot.get()).toThrow('the runtime is not started yet');
    slot.set(7);
    const { get } = slot;
    expect(get()).toBe(7);
    expect(slot.peek()).toBe(7);
    expect(() => {
      slot.set(8);
    }).toThrow(/handed over twice/);
    expect(slot.get()).toBe(7);
  });
});
