import { describe, expect, it } from 'vitest';
import { slicedTask } from '../../../src/primitives/memory/sliced-task.js';

/** Steps that record themselves; `failAt` throws at that step. */
function* counting(log: string[], steps: number, failAt = -1): Generator<undefined, void, undefined> {
  try {
    for (let i = 0; i < steps; i++) {
      if (i === failAt) throw new Error(`step ${i} failed`);
      log.push(`step ${i}`);
      yield;
    }
  } finally {
    log.push('closed');
  }
}

describe('slicedTask', () => {
  it('runs steps only in scheduled slices, as many as fit in sliceMs (at least one)', async () => {
    const queue: (() => void)[] = [];
    let clock = 0;
    const log: string[] = [];
    const slices: number[] = [];
    const task = slicedTask(counting(log, 5), {
      sliceMs: 2,
      schedule: (run) => queue.push(run),
      now: () => clock++, // each reading advances the clock by 1 ms
      onSlice: (ms) => slices.push(ms),
    });
    expect(log).toEqual([]); // nothing runs before the first slice
    expect(queue).toHaveLength(1);
    queue.shift()!();
    expect(log).toEqual(['step 0', 'step 1']);
    expect(task.done).toBe(false);
    while (queue.length > 0) queue.shift()!();
    await task.finished;
    expect(task.done).toBe(true);
    expect(task.error).toBeUndefined();
    expect(log).toEqual(['step 0', 'step 1', 'step 2', 'step 3', 'step 4', 'closed']);
    expect(slices.length).toBe(3);
  });

  it('records a failing step without rejecting, and cancel closes the steps', async () => {
    const queue: (() => void)[] = [];
    const failing: string[] = [];
    const task = slicedTask(counting(failing, 5, 2), { schedule: (run) => queue.push(run) });
    while (queue.length > 0) queue.shift()!();
    await task.finished;
    expect(task.done).toBe(true);
    expect((task.error as Error).message).toBe('step 2 failed');
    expect(failing).toEqual(['step 0', 'step 1', 'closed']);

    const cancelled: string[] = [];
    const other = slicedTask(counting(cancelled, 100), { sliceMs: 0, schedule: (run) => queue.push(run) });
    queue.shift()!();
    other.cancel();
    await other.finished;
    while (queue.length > 0) queue.shift()!();
    expect(cancelled).toEqual(['step 0', 'closed']);
    expect(other.done).toBe(true);
  });
});
