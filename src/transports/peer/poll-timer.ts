/**
 * The timer seam of the peer directory's poll loop: the real one uses `setTimeout` (unref'd,
 * so an idle directory never keeps the process alive); tests pass one they fire by hand.
 */

/** Sets one-shot timers; each answer cancels its timer (a no-op once it has run). */
export interface PollTimer {
  /** Runs `run` once after `delayMs`; answers the function that cancels it. */
  after(delayMs: number, run: () => void): () => void;
}

/** The real timer: `setTimeout`, unref'd. */
export function realPollTimer(): PollTimer {
  return {
    after(delayMs, run) {
      const timer = setTimeout(run, delayMs);
      timer.unref();
      return () => {
        clearTimeout(timer);
      };
    },
  };
}
