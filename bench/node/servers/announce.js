// Shared by every server process of the node benchmark: report the bound port to the parent
// over IPC and exit when the parent asks (SIGTERM) or goes away (IPC channel closed), so no
// server outlives a benchmark run, even one that crashed. Also answers the parent's memory
// questions over the same channel (`{ type: 'memory' }`, `{ type: 'heap-snapshot', file }`).
import { writeHeapSnapshot } from 'node:v8';

/**
 * Announces a listening server to the parent process as `{ type: 'ready', port }`.
 * Assumes the process was started with an IPC channel (child_process.fork); throws otherwise.
 * @param {import('node:net').Server | number} server a server already listening on a TCP
 *   port, or the port itself (for a server the script does not hold, e.g. a Plexus node's)
 * @param {{ shutdown?: () => Promise<void> }} [opts] `shutdown` runs before the process exits
 *   on SIGTERM or disconnect (e.g. to stop a node and remove its data directory); the process
 *   exits when it settles, or after 4 s, whichever comes first (the parent SIGKILLs at 5 s)
 */
export function announce(server, opts = {}) {
  if (!process.send) throw new Error('announce(): this server must be started with child_process.fork');
  let port = server;
  if (typeof server !== 'number') {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('announce(): server is not on TCP');
    port = address.port;
  }
  let exiting = false;
  const exit = () => {
    if (exiting) return;
    exiting = true;
    const { shutdown } = opts;
    if (shutdown === undefined) process.exit(0);
    setTimeout(() => process.exit(0), 4000).unref();
    shutdown().then(
      () => process.exit(0),
      (/** @type {unknown} */ err) => {
        console.error('shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', exit);
  process.on('disconnect', exit);
  process.on('message', (/** @type {{ type?: string, file?: string }} */ msg) => {
    if (msg?.type === 'memory') void reportMemory();
    if (msg?.type === 'heap-snapshot' && typeof msg.file === 'string') {
      process.send?.({ type: 'heap-snapshot', file: writeHeapSnapshot(msg.file) });
    }
  });
  process.send({ type: 'ready', port });
}

/**
 * Answers the parent's `{ type: 'memory' }` with this process's memory (bytes) as
 * `{ type: 'memory', gc, rss, heapUsed, external, arrayBuffers }`, after two full garbage
 * collections when the process runs with `--expose-gc` (`gc: true`), so `heapUsed` is what
 * is still reachable: what a benchmark of retained memory compares between checkpoints.
 */
async function reportMemory() {
  const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc;
  if (typeof gc === 'function') {
    // twice, with a turn of the event loop between: finalizers and weak callbacks run in between
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  const m = process.memoryUsage();
  process.send?.({
    type: 'memory',
    gc: typeof gc === 'function',
    rss: m.rss,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  });
}

/** The loopback address every baseline binds to. */
export const HOST = '127.0.0.1';
