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
 * @property {() => Promise<ServerMemory>} memory the process's memory, after a full GC when it
 *   was started with `--expose-gc` (see `execArgv`)
 * @property {(file: string) => Promise<string>} heapSnapshot writes a heap snapshot of the
 *   server's main thread to `file` (`v8.writeHeapSnapshot`) and resolves with its path once written
 */

/**
 * @typedef {object} ServerMemory bytes, from the server's `process.memoryUsage()`
 * @property {boolean} gc whether two full garbage collections ran first
 * @property {number} rss
 * @property {number} heapUsed
 * @property {number} external
 * @property {number} arrayBuffers
 */

/**
 * Forks `entry` (a server script that calls `announce()` from servers/announce.js) and resolves
 * once it reports its port over IPC. Rejects if the process exits or stays silent for
 * `readyTimeoutMs` first; the process is killed in that case.
 * @param {URL} entry the server script
 * @param {string[]} [args] argv for the script
 * @param {{ readyTimeoutMs?: number, execArgv?: string[] }} [opts] `execArgv`: Node flags for the
 *   server, before those of BENCH_SERVER_EXEC_ARGV (e.g. `--expose-gc` for `memory()`)
 * @returns {Promise<RunningServer>}
 */
export function startServerProcess(entry, args = [], opts = {}) {
  const child = fork(fileURLToPath(entry), args, {
    // BENCH_SERVER_EXEC_ARGV (space-separated) passes Node flags to the server, e.g. `--cpu-prof`.
    execArgv: [
      ...(opts.execArgv ?? []),
      ...(process.env.BENCH_SERVER_EXEC_ARGV ?? '').split(' ').filter((a) => a !== ''),
    ],
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
  /** Sends `question` to the server and resolves with its first answer of the same type. */
  const ask = (/** @type {{ type: string }} */ question) =>
    new Promise((resolve, reject) => {
      const onMessage = (/** @type {{ type?: string }} */ msg) => {
        if (msg.type !== question.type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(msg);
      };
      const onExit = () => {
        child.off('message', onMessage);
        reject(new Error(`${entry.pathname} exited before it answered ${question.type}`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(question);
    });
  const memory = () => /** @type {Promise<ServerMemory>} */ (ask({ type: 'memory' }));
  const heapSnapshot = async (/** @type {string} */ file) =>
    /** @type {{ file: string }} */ (await ask({ type: 'heap-snapshot', file })).file;
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
      resolve({
        url: `http://${HOST}:${msg.port}`,
        port: msg.port,
        pid: child.pid,
        stop,
        memory,
        heapSnapshot,
      });
    });
  });
}
