// Shared by every baseline server process: report the bound port to the parent over IPC and
// exit when the parent asks (SIGTERM) or goes away (IPC channel closed), so no server outlives
// a benchmark run, even one that crashed.

/**
 * Announces a listening server to the parent process as `{ type: 'ready', port }`.
 * Assumes the process was started with an IPC channel (child_process.fork); throws otherwise.
 * @param {import('node:net').Server} server a server already listening on a TCP port
 */
export function announce(server) {
  if (!process.send) throw new Error('announce(): this server must be started with child_process.fork');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('announce(): server is not on TCP');
  process.on('SIGTERM', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', port: address.port });
}

/** The loopback address every baseline binds to. */
export const HOST = '127.0.0.1';
