// Client kind `http`: POST of a JSON body over keep-alive connections. All clients share one
// `node:http` Agent with keepAlive and maxSockets = clients; since each client has one request
// in flight at a time, that is one connection per client, reused for every request, so the
// run measures request throughput, not connection setup.
import { Agent, request } from 'node:http';
import { isDeepStrictEqual } from 'node:util';

/**
 * @param {import('../load.js').KindInit} init
 * @returns {Promise<import('../load.js').ClientKind>}
 */
export function createHttpKind({ url, subject, clients, timeoutMs }) {
  const target = new URL(subject.path ?? '/', url);
  const agent = new Agent({ keepAlive: true, maxSockets: clients, keepAliveMsecs: 10_000 });
  const check = subject.check ?? ((req, answer) => isDeepStrictEqual(answer, req));

  /** One POST; resolves with the parsed body of a 2xx answer, rejects otherwise. */
  const post = (/** @type {unknown} */ body) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            ...subject.headers,
          },
        },
        (res) => {
          /** @type {Buffer[]} */
          const chunks = [];
          res.on('data', (/** @type {Buffer} */ c) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              reject(new Error(`HTTP ${status}: ${text.slice(0, 200)}`));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new Error(`HTTP ${status}: body is not JSON: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });

  return Promise.resolve({
    open: () =>
      Promise.resolve({
        async call(i) {
          const body = subject.makeRequest(i);
          const answer = await post(body);
          if (!check(body, answer, i)) throw new Error(`wrong answer to request ${i}`);
        },
        close: () => Promise.resolve(),
      }),
    close: () => {
      agent.destroy();
      return Promise.resolve();
    },
  });
}
