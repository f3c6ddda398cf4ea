/**
 * The node's one cleanup stack: each part, once opened, pushes how to close it; a failed start
 * and `stop()` both run the stack, last pushed first. Every step runs even when one fails.
 */

/** One step of a {@link CleanupStack}; `context` is what the run was given. */
export type CleanupStep<C> = (context: C) => Promise<void>;

/** Steps that close what was opened, in reverse order. */
export interface CleanupStack<C> {
  /** Adds a step: it runs before every step pushed earlier. */
  push(step: CleanupStep<C>): void;
  /**
   * Runs every step, last pushed first, then empties the stack. Each step runs even when an
   * earlier one failed; the first failure is thrown at the end.
   */
  run(context: C): Promise<void>;
}

/**
 * Creates an empty cleanup stack.
 *
 * @example
 * const cleanup = cleanupStack<{ drainMs: number }>();
 * await log.start();
 * cleanup.push(() => log.stop());
 * await cleanup.run({ drainMs: 0 });
 */
export function cleanupStack<C>(): CleanupStack<C> {
  let steps: CleanupStep<C>[] = [];
  return {
    push(step) {
      steps.push(step);
    },
    async run(context) {
      const running = steps.reverse();
      steps = [];
      let failure: { readonly error: unknown } | undefined;
      for (const step of running) {
        try {
          await step(context);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure !== undefined) throw failure.error;
    },
  };
}
