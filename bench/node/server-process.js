// Starts a server under test in its own child process, so it has an event loop (and, on a
// 2-core machine, a core) to itself, apart from the load generator's.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOST } from './servers/announce.js';

/**
 * @typedef {object} RunningServer
 * @property {string} url base URL, `http://127.0.0.1:<port>` (no trailing slash)
 * @property {number} port the port the server bound (it listens on port 0)
 * @property {number | undefined} pid the server process's id, for CPU sampling
 * @property {() => Promise<void>} stop ends the process (SIGTERM, SIGKILL after 5 s); safe to call twice
 */

/**
 * Forks `entry` (a server script that calls `announce()` from servers/announce.js) and resolves
 * once it reports its port over IPC. Rejects if the process exits or stays silent for
 * `readyTimeoutMs` first; the process is killed in that case.
 * @param {URL} entry the server script
 * @param {string[]} [args] argv for the script
 * @param {{ readyTimeoutMs?: number }} [opts]
 * @returns {Promise<RunningServer>}
 */
export function startServerProcess(entry, args = [], opts = {}) {
  const child = fork(fileURLToPath(entry), args, {
    // BENCH_SERVER_EXEC_ARGV (space-separated) passes Node flags to the server, e.g. `--cpu-prof`.
    execArgv: (process.env.BENCH_SERVER_EXEC_ARGV ?? '').split(' ').filter((a) => a !== ''),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () => {
    stopping ??= new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
    return stopping;
  };
  return new Promise((resolve, reject) => {
    const fail = (/** @type {Error} */ err) => {
      clearTimeout(timer);
      void stop();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error(`${entry.pathname}: no ready message within ${opts.readyTimeoutMs ?? 15000} ms`)),
      opts.readyTimeoutMs ?? 15000,
    );
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      fail(new Error(`${entry.pathname} exited before it was ready (code ${code}, signal ${signal})`)),
    );
    child.on('message', (/** @type {{ type?: string, port?: number }} */ msg) => {
      if (msg.type !== 'ready' || typeof msg.port !== 'number') return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: `http://${HOST}:${msg.port}`, port: msg.port, pid: child.pid, stop });
    });
  });
}
