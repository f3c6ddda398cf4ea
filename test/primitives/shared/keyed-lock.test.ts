import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyedLock } from '../../../src/primitives/keyed-lock.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('keyedLock', () => {
  it('runs work for one key one at a time, in arrival order', async () => {
    const lock = keyedLock();
    const log: string[] = [];
    let inside = 0;
    const job = (name: string) =>
      lock.run('k', async () => {
        inside++;
        expect(inside).toBe(1);
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
        inside--;
        return name;
      });
    expect(await Promise.all([job('a'), job('b'), job('c')])).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('lets different keys run at the same time', async () => {
    const lock = keyedLock();
    let release: () => void = () => undefined;
    const blocked = lock.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    let ranB = false;
    await lock.run('b', () => {
      ranB = true;
    });
    expect(ranB).toBe(true);
    release();
    await blocked;
  });

  it('rejects only the failing work; later work for the key still runs', async () => {
    const lock = keyedLock();
    const failing = lock.run('k', () => {
      throw new Error('boom');
    });
    const later = lock.run('k', () => 'after');
    await expect(failing).rejects.toThrow('boom');
    await expect(later).resolves.toBe('after');
  });

  it('forgets keys once their work has settled', async () => {
    const lock = keyedLock();
    const a = lock.run('a', tick);
    const b = lock.run('b', tick);
    expect(lock.size).toBe(2);
    await Promise.all([a, b]);
    await tick();
    expect(lock.size).toBe(0);
  });

  it('makes a read-then-write counter atomic under concurrency (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('x', 'y', 'z'), { minLength: 1, maxLength: 30 }),
        async (keys) => {
          const lock = keyedLock();
          const counters = new Map<string, number>();
          await Promise.all(
            keys.map((key) =>
              lock.run(key, async () => {
                const seen = counters.get(key) ?? 0;
                await tick(); // a racing writer would overwrite here
                counters.set(key, seen + 1);
              }),
            ),
          );
          for (const key of new Set(keys))
            expect(counters.get(key)).toBe(keys.filter((k) => k === key).length);
        },
      ),
      { numRuns: 30 },
    );
  });
});
