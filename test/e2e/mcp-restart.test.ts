/**
 * MCP sessions that outlive the node process (issue 13 item 1; docs/decisions/mcp.md MCP-55 –
 * MCP-57), with real `plexus start` processes on one data directory and one port, and the
 * official SDK `Client` over `StreamableHTTPClientTransport`: a session goes on after a
 * restart without a new `initialize`; a `tools/call` whose node is killed with SIGKILL mid-call
 * gets its result after the restart on the resumed stream (the job re-run by crash recovery);
 * another credential cannot revive the session; a deleted session stays gone; forged ids are
 * 404.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBuiltDist } from '../support/e2e-fixture.js';
import { until } from '../support/until.js';
import { exitOf, freePort, startNodeProcess, tenantKeys, type NodeProcess } from './harness.js';

useBuiltDist();

const { acme, globex, config } = tenantKeys();
const bearer = (key: { key: string }): Record<string, string> => ({ authorization: `Bearer ${key.key}` });

let port = 0;
let node: NodeProcess;
const clients: Client[] = [];

async function start(dataDir?: string): Promise<NodeProcess> {
  return startNodeProcess({ flags: ['--demo'], config, port, ...(dataDir === undefined ? {} : { dataDir }) });
}

/** An SDK client of `key` on the node's `/mcp`, reconnecting for as long as a restart takes. */
async function connect(key: {
  key: string;
}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: bearer(key) },
    reconnectionOptions: {
      initialReconnectionDelay: 200,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 120,
    },
  });
  const client = new Client({ name: 'restart-e2e', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

/** A raw POST of one JSON-RPC message on session `session` with credential `key`. */
async function rawPost(session: string, key: { key: string }, body: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      ...bearer(key),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(body),
  });
}

const listTools = { jsonrpc: '2.0', id: 7, method: 'tools/list' };

beforeAll(async () => {
  port = await freePort();
  node = await start();
}, 60_000);

afterAll(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

describe('MCP sessions across a node restart', () => {
  let main: { client: Client; transport: StreamableHTTPClientTransport };
  let slowTool = '';
  let slowWrapped = false;
  let echoTool = '';

  it('keeps a session through a restart: tools/list and tools/call work without initialize again', async () => {
    main = await connect(acme);
    const before = main.transport.sessionId ?? '';
    expect(before).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { tools } = await main.client.listTools();
    const slow = tools.find((t) => t._meta?.['plexus/verb'] === 'demo.slow');
    slowTool = slow?.name ?? '';
    // MCP-3: a verb input that is not a plain object is the tool's `input` argument
    slowWrapped = slow?.inputSchema.required?.includes('input') === true;
    echoTool = tools.find((t) => t._meta?.['plexus/verb'] === 'echo.echo')?.name ?? '';
    expect(slowTool).not.toBe('');
    expect(echoTool).not.toBe('');
    await main.client.setLoggingLevel('info');

    // a second session, deleted before the restart
    const deleted = await connect(acme);
    const deletedId = deleted.transport.sessionId ?? '';
    await deleted.transport.terminateSession();

    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
    node = await start(node.dataDir);

    // another credential cannot revive it (404, as for an unknown session) …
    const foreign = await rawPost(before, globex, listTools);
    expect(foreign.status).toBe(404);
    // … the one that opened it can, with no initialize: the SDK client just goes on
    const listed = await main.client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(main.transport.sessionId).toBe(before);
    const echoed = await main.client.callTool({ name: echoTool, arguments: { input: { after: 'restart' } } });
    expect(echoed.isError).not.toBe(true);
    expect(JSON.stringify(echoed.content)).toContain('restart');
    // once revived, still not the other credential's
    expect((await rawPost(before, globex, listTools)).status).toBe(404);

    // the deleted session stays deleted
    const gone = await rawPost(deletedId, acme, listTools);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'SESSION_NOT_FOUND',
    );
  }, 90_000);

  it('answers forged and malformed session ids 404 and keeps serving', async () => {
    for (const forged of [
      randomBytes(32).toString('base64url'), // well-formed, never opened
      'x',
      'not a session id at all',
      'A'.repeat(4096),
      `${main.transport.sessionId ?? ''}x`,
    ]) {
      const res = await rawPost(forged, acme, listTools);
      expect(res.status, forged.slice(0, 50)).toBe(404);
    }
    expect((await main.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('delivers the result of a tools/call cut by SIGKILL, after the restart, on the resumed stream', async () => {
    const progress: Progress[] = [];
    const input = { seconds: 4, steps: 4 };
    const call = main.client.callTool(
      { name: slowTool, arguments: slowWrapped ? { input } : input },
      undefined,
      {
        onprogress: (p) => progress.push(p),
        timeout: 60_000,
      },
    );
    let settled: unknown;
    void call.then(
      (r) => (settled = r),
      (e: unknown) => (settled = e),
    );
    await until(() => progress.length >= 1 || settled !== undefined, {
      what: 'the first progress before the kill',
      limitMs: 20_000,
      everyMs: 20,
    });
    expect(settled).toBeUndefined();
    const seenBefore = progress.length;
    node.child.kill('SIGKILL');
    expect(await exitOf(node)).toBe('SIGKILL');
    node = await start(node.dataDir);

    const result = await call;
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ seconds: 4, steps: 4, completed: true });
    // the re-run job's progress reached the client after the restart
    expect(progress.length).toBeGreaterThan(seenBefore);
    // and the session goes on
    expect((await main.client.listTools()).tools.length).toBeGreaterThan(0);
  }, 120_000);
});
