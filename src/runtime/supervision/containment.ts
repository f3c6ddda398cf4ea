/**
 * Containment of stray failures: a handler's promise that rejects with nobody listening
 * (a fire-and-forget call inside a handler) must not crash the node. Handlers run inside an
 * AsyncLocalStorage scope; while a runtime is started, one process-wide `unhandledRejection`
 * listener routes a rejection born in such a scope to its agent (counted as a crash).
 *
 * A rejection from outside every handler scope is not swallowed: when no other listener is
 * installed, it is rethrown, which keeps Node's default (the process fails loudly).
 * Synchronous exceptions thrown from a handler's stray timers are not contained (Node has no
 * safe way to resume after them).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a contained rejection is reported. */
export interface ContainmentScope {
  /** The agent whose handler created the rejected promise. */
  readonly agentId: string;
  /** The job the handler was running. */
  readonly jobId: string;
  /** Called with the rejection reason. Must not throw. */
  readonly onRejection: (reason: unknown, scope: ContainmentScope) => void;
}

const storage = new AsyncLocalStorage<ContainmentScope>();
let holders = 0;

function onUnhandledRejection(reason: unknown): void {
  const scope = storage.getStore();
  if (scope !== undefined) {
    try {
      scope.onRejection(reason, scope);
    } catch {
      // a reporting failure must not turn a contained rejection into a crash
    }
    return;
  }
  if (process.listenerCount('unhandledRejection') === 1) throw reason;
}

/** Runs `fn` inside a containment scope: rejections it leaves unhandled are reported to `scope`. */
export function runContained<T>(scope: ContainmentScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * Installs the process-wide listener (once, however many runtimes hold it) and returns the
 * function that releases this hold; the listener is removed when the last hold is released.
 * Releasing twice is a no-op.
 */
export function holdContainment(): () => void {
  if (holders === 0) process.on('unhandledRejection', onUnhandledRejection);
  holders++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0) process.off('unhandledRejection', onUnhandledRejection);
  };
}
