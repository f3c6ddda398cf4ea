/**
 * A {@link PollTimer} the test fires by hand: every timer set is queued, `next()` hands the
 * test the next one (waiting until the code under test sets it), and nothing runs by itself.
 */
import type { PollTimer } from '../../src/transports/peer/poll-timer.js';

/** One timer set through a {@link ManualTimer}. */
export interface SetTimer {
  /** The delay the code asked for, ms. */
  readonly delayMs: number;
  /** True once cancelled by the code. */
  readonly cancelled: boolean;
  /** Runs the callback now (once; not after a cancel). */
  fire(): void;
}

/** A poll timer driven by the test. */
export interface ManualTimer extends PollTimer {
  /** The next timer set and not yet handed out (waits for it to be set). */
  next(): Promise<SetTimer>;
  /** The timers set, neither fired nor cancelled. */
  pending(): readonly SetTimer[];
}

/** Creates a {@link ManualTimer}. */
export function manualTimer(): ManualTimer {
  const all: { timer: SetTimer; done: boolean }[] = [];
  const queue: SetTimer[] = [];
  const waiters: ((timer: SetTimer) => void)[] = [];
  return {
    after(delayMs, run) {
      const entry = { timer: undefined as unknown as SetTimer, done: false, cancelled: false };
      entry.timer = {
        delayMs,
        get cancelled() {
          return entry.cancelled;
        },
        fire() {
          if (entry.done) return;
          entry.done = true;
          run();
        },
      };
      all.push(entry);
      const waiter = waiters.shift();
      if (waiter === undefined) queue.push(entry.timer);
      else waiter(entry.timer);
      return () => {
        entry.cancelled = true;
        entry.done = true;
      };
    },
    next() {
      const timer = queue.shift();
      if (timer !== undefined) return Promise.resolve(timer);
      return new Promise((resolve) => waiters.push(resolve));
    },
    pending: () => all.filter((e) => !e.done).map((e) => e.timer),
  };
}
