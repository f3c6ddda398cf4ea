/**
 * The start/stop state machine shared by the event log, the runtime and the node: `start()`
 * is idempotent and concurrent calls share one promise; `stop()` waits for a start in
 * progress, concurrent calls share one promise, and a second stop is a no-op; a stopped
 * component can be started again. A failed start or stop leaves it `idle`.
 */

/** Where a {@link Startable} is in its life. */
export type StartableState = 'idle' | 'starting' | 'running' | 'stopping';

/** The two steps a component runs: opening and closing what it holds. */
export interface StartableSteps<StartArgs extends unknown[], StopArgs extends unknown[]> {
  /** Opens the component; runs only from `idle`. Throwing leaves it `idle`. */
  start(...args: StartArgs): Promise<void>;
  /** Closes it; runs only from `running`. Whatever it does, the component ends `idle`. */
  stop(...args: StopArgs): Promise<void>;
}

/** A component's lifecycle, driven by {@link startable}. */
export interface Startable<StartArgs extends unknown[], StopArgs extends unknown[]> {
  /** The current state. */
  readonly state: StartableState;
  /** Runs the start step unless running; joins a start in progress; waits for a stop in progress first. */
  start(...args: StartArgs): Promise<void>;
  /** Runs the stop step when running; waits for a start in progress first; joins a stop in progress. */
  stop(...args: StopArgs): Promise<void>;
}

/**
 * Wraps a component's start and stop steps in the shared state machine.
 *
 * @example
 * const life = startable({ start: () => backend.open(), stop: () => backend.close() });
 * await Promise.all([life.start(), life.start()]); // one open
 * await life.stop();
 */
export function startable<StartArgs extends unknown[], StopArgs extends unknown[]>(
  steps: StartableSteps<StartArgs, StopArgs>,
): Startable<StartArgs, StopArgs> {
  let state: StartableState = 'idle';
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  return {
    get state() {
      return state;
    },
    async start(...args: StartArgs): Promise<void> {
      if (stopping !== undefined) await stopping;
      if (state === 'running') return;
      if (starting !== undefined) return starting;
      state = 'starting';
      starting = (async () => {
        try {
          await steps.start(...args);
          state = 'running';
        } catch (error) {
          state = 'idle';
          throw error;
        } finally {
          starting = undefined;
        }
      })();
      return starting;
    },
    async stop(...args: StopArgs): Promise<void> {
      if (starting !== undefined) await starting.catch(() => undefined);
      if (stopping !== undefined) return stopping;
      if (state !== 'running') return;
      state = 'stopping';
      stopping = (async () => {
        try {
          await steps.stop(...args);
        } finally {
          state = 'idle';
          stopping = undefined;
        }
      })();
      return stopping;
    },
  };
}
