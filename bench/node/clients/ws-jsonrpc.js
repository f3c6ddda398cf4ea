// Client kind `ws-jsonrpc`: one `ws` connection per client; JSON-RPC 2.0 requests sent one at
// a time per connection and matched to their answers by `id`.
import { isDeepStrictEqual } from 'node:util';
import WebSocket from 'ws';

/**
 * @typedef {{ resolve: (result: unknown) => void, reject: (err: Error) => void, timer: NodeJS.Timeout }} Pending
 */

/**
 * @param {import('../load.js').KindInit} init
 * @returns {Promise<import('../load.js').ClientKind>}
 */
export function createWsJsonRpcKind({ url, subject, timeoutMs }) {
  const target = new URL(subject.path ?? '/', url);
  target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
  const check = subject.check ?? ((req, answer) => isDeepStrictEqual(answer, req.params));
  /** @type {Set<WebSocket>} */
  const sockets = new Set();

  /** Opens one connection and returns a client that sends on it. */
  const open = async () => {
    const ws = new WebSocket(target, { headers: subject.headers });
    sockets.add(ws);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    /** @type {Map<number, Pending>} */
    const pending = new Map();
    let nextId = 1;
    const failAll = (/** @type {Error} */ err) => {
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      pending.clear();
    };
    ws.on('error', failAll);
    ws.on('close', () => failAll(new Error('connection closed')));
    ws.on('message', (data) => {
      /** @type {{ id?: unknown, result?: unknown, error?: { code?: number, message?: string } }} */
      let msg;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        failAll(new Error('server sent a frame that is not JSON'));
        return;
      }
      const p = typeof msg.id === 'number' ? pending.get(msg.id) : undefined;
      if (!p) return; // a notification, or an answer to a request that timed out
      pending.delete(/** @type {number} */ (msg.id));
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(`JSON-RPC error ${msg.error.code}: ${msg.error.message}`));
      else p.resolve(msg.result);
    });
    return {
      /** @param {number} i */
      async call(i) {
        const req = subject.makeRequest(i);
        const id = nextId++;
        const answer = await new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            pending.delete(id);
            reject(new Error(`no answer within ${timeoutMs} ms`));
          }, timeoutMs);
          pending.set(id, { resolve, reject, timer });
          ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: req.method, params: req.params }));
        });
        if (!check(req, answer, i)) throw new Error(`wrong answer to request ${i}`);
      },
      close: () =>
        new Promise((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) {
            resolve(undefined);
            return;
          }
          ws.once('close', () => resolve(undefined));
          ws.close();
        }).then(() => {
          sockets.delete(ws);
        }),
    };
  };

  return Promise.resolve({
    open,
    close: () => {
      for (const ws of sockets) ws.terminate();
      return Promise.resolve();
    },
  });
}
