// Client kind `a2a-sdk`: the A2A JS SDK's stock client (`ClientFactory.createFromUrl`, which
// fetches the agent card at /.well-known/agent-card.json and picks its JSON-RPC interface),
// one per load client; each measured request is one `sendMessage` (A2A v1.0 `SendMessage`).
// `makeRequest(i)` returns the SendMessage params `{ message }`; the default check expects a
// Message back whose parts equal the ones sent.
import { isDeepStrictEqual } from 'node:util';
import { ClientFactory } from '@a2a-js/sdk/client';

/** @param {any} req @param {any} result */
function defaultCheck(req, result) {
  return result?.parts !== undefined && isDeepStrictEqual(result.parts, req.message.parts);
}

/**
 * @param {import('../load.js').KindInit} init
 * @returns {Promise<import('../load.js').ClientKind>}
 */
export function createA2aSdkKind({ url, subject, timeoutMs }) {
  const base = new URL(subject.path ?? '/', url).href;
  const check = subject.check ?? defaultCheck;
  const factory = new ClientFactory();
  return Promise.resolve({
    async open() {
      const client = await factory.createFromUrl(base);
      return {
        /** @param {number} i */
        async call(i) {
          const req = subject.makeRequest(i);
          const result = await client.sendMessage(req, { signal: AbortSignal.timeout(timeoutMs) });
          if (!check(req, result, i)) throw new Error(`wrong answer to request ${i}`);
        },
        close: () => Promise.resolve(),
      };
    },
    close: () => Promise.resolve(),
  });
}
