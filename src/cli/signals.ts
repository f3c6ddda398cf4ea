/**
 * Process signals for long-running commands: `plexus start` stops on the first SIGTERM or
 * SIGINT (draining), and gives up draining on a second one; `plexus call --follow` cancels
 * its job on Ctrl-C.
 */

/** A pending shutdown request: resolves with the signal's name. */
export interface ShutdownRequest {
  readonly requested: Promise<string>;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Resolves `requested` on the first SIGTERM or SIGINT. A second signal calls `onForce`
 * (by default: exit at once with 128 + the signal's number).
 */
export function shutdownOnSignals(onForce: (signal: string) => void = forceExit): ShutdownRequest {
  let resolve: (signal: string) => void = () => undefined;
  const requested = new Promise<string>((r) => (resolve = r));
  let count = 0;
  const handler = (signal: NodeJS.Signals): void => {
    count++;
    if (count === 1) resolve(signal);
    else onForce(signal);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return {
    requested,
    dispose(): void {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
    },
  };
}

function forceExit(signal: string): void {
  process.stderr.write(`plexus: ${signal} again: exiting without finishing the drain\n`);
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** Calls `handler` on SIGINT (Ctrl-C) until the returned function is called. */
export function onInterrupt(handler: () => void): () => void {
  const listener = (): void => {
    handler();
  };
  process.on('SIGINT', listener);
  return () => {
    process.off('SIGINT', listener);
  };
}
