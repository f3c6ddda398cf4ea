// The load generator's process (see forkLoad in load.js): receives one ForkLoadInit over IPC,
// imports the module that defines the subject, runs the load, sends back
// `{ type: 'result', result }` or `{ type: 'error', message }`, and exits.
import { runLoad } from './load.js';

process.once('message', (/** @type {import('./load.js').ForkLoadInit} */ init) => {
  void (async () => {
    /** @type {{ type: string, result?: unknown, message?: string }} */
    let reply;
    try {
      const { subjects } = /** @type {{ subjects?: import('./load.js').Subject[] }} */ (
        await import(init.module)
      );
      const subject = subjects?.find((s) => s.name === init.subject);
      if (subject === undefined) throw new Error(`no subject named "${init.subject}" in ${init.module}`);
      reply = { type: 'result', result: await runLoad({ ...init, subject }) };
    } catch (err) {
      reply = { type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    // Exit once the reply is flushed, whatever sockets or timers the clients left behind.
    process.send?.(reply, () => process.exit(0));
  })();
});
