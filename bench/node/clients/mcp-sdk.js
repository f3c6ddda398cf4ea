// Client kind `mcp-sdk`: the MCP SDK's stock `Client` over its `StreamableHTTPClientTransport`,
// one per load client. `open` does the real protocol handshake (initialize, then the
// initialized notification; the session id the server assigns, if any, is kept by the
// transport); each measured request is one `callTool`. `makeRequest(i)` returns the
// `callTool` params `{ name, arguments }`; the default check expects the tool's first content
// item to be the arguments as JSON text.
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** @param {unknown} req @param {any} result */
function defaultCheck(req, result) {
  const first = result?.content?.[0];
  if (first?.type !== 'text') return false;
  return isDeepStrictEqual(JSON.parse(first.text), /** @type {{ arguments: unknown }} */ (req).arguments);
}

/**
 * @param {import('../load.js').KindInit} init
 * @returns {Promise<import('../load.js').ClientKind>}
 */
export function createMcpSdkKind({ url, subject, timeoutMs }) {
  const target = new URL(subject.path ?? '/mcp', url);
  const check = subject.check ?? defaultCheck;
  /** @type {Set<Client>} */
  const open = new Set();
  return Promise.resolve({
    async open() {
      const client = new Client({ name: 'plexus-bench', version: '0.1.0' });
      const transport = new StreamableHTTPClientTransport(target, {
        requestInit: subject.headers ? { headers: subject.headers } : undefined,
      });
      await client.connect(transport, { timeout: timeoutMs });
      open.add(client);
      return {
        /** @param {number} i */
        async call(i) {
          const req = subject.makeRequest(i);
          // `progress: true` asks for progress (a progress token), which Plexus answers on SSE
          const options =
            subject.progress === true
              ? { timeout: timeoutMs, onprogress: () => undefined }
              : { timeout: timeoutMs };
          const result = await client.callTool(req, undefined, options);
          if (result.isError === true) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
          if (!check(req, result, i)) throw new Error(`wrong answer to request ${i}`);
        },
        async close() {
          open.delete(client);
          // Ends the session on the server (DELETE) when there is one; stateless servers say 405.
          await transport.terminateSession().catch(() => undefined);
          await client.close();
        },
      };
    },
    async close() {
      await Promise.all([...open].map((c) => c.close()));
    },
  });
}
