/**
 * Runs a step generator in time slices that give the event loop back between them, so long
 * CPU work (training a quantiser, coding 100,000 vectors) never holds a node for more than a
 * slice: each slice calls `next()` until `sliceMs` have passed, then schedules the next slice
 * (`setImmediate` by default, so pending I/O and requests run in between).
 */

/** Options of {@link slicedTask}. */
export interface SlicedTaskInit {
  /** Run of steps (at least one) before yielding to the event loop; 0 = one step a slice. @default 4 */
  readonly sliceMs?: number;
  /** Schedules the next slice. @default setImmediate */
  readonly schedule?: (run: () => void) => void;
  /** Clock in milliseconds. @default performance.now */
  readonly now?: () => number;
  /** Told the length of every slice (ms) after it ran: metrics. */
  readonly onSlice?: (ms: number) => void;
}

/** A running task. */
export interface SlicedTask {
  /** True once the generator returned, threw, or the task was cancelled. */
  readonly done: boolean;
  /** What the generator threw, if it did. */
  readonly error: unknown;
  /** Resolves when done (never rejects: see `error`). */
  readonly finished: Promise<void>;
  /** Stops: no more steps run (the generator is closed). */
  cancel(): void;
}

/**
 * Starts running `steps` at the next scheduled slice.
 *
 * @example
 * const task = slicedTask(trainSteps());
 * await task.finished;
 */
export function slicedTask(
  steps: Generator<undefined, void, undefined>,
  init: SlicedTaskInit = {},
): SlicedTask {
  const sliceMs = init.sliceMs ?? 4;
  const schedule = init.schedule ?? ((run: () => void) => void setImmediate(run));
  const now = init.now ?? (() => performance.now());
  let done = false;
  let error: unknown;
  let resolve: () => void = () => undefined;
  const finished = new Promise<void>((r) => {
    resolve = r;
  });
  const end = (): void => {
    done = true;
    resolve();
  };
  const isDone = (): boolean => done; // read through a call: closures change it
  /** Runs steps (at least one) until `until()` says stop or the generator ends. */
  const run = (until: () => boolean): void => {
    try {
      do {
        if (steps.next().done === true) end();
      } while (!done && !until());
    } catch (e) {
      error = e;
      end();
    }
  };
  const slice = (): void => {
    if (done) return;
    const started = now();
    run(() => now() - started >= sliceMs);
    init.onSlice?.(now() - started);
    if (!isDone()) schedule(slice);
  };
  schedule(slice);
  return {
    get done() {
      return done;
    },
    get error() {
      return error;
    },
    finished,
    cancel() {
      if (done) return;
      steps.return(undefined);
      end();
    },
  };
}
