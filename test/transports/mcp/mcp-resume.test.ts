/**
 * Resumability of the MCP face's SSE streams (issue 13 item 1; docs/decisions/mcp.md MCP-15),
 * driven by the SDK's own `StreamableHTTPClientTransport`: a POST's reply stream cut after the
 * first progress event is resumed by the client with `Last-Event-ID` (a GET), and the events
 * sent while it was away (the other progress, the result) arrive once each. Raw HTTP for what a
 * conforming client never sends: an id the session did not give.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { MCP_INVOCATION_EVENT } from '../../../src/transports/mcp/invocation-record.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { until } from '../../support/until.js';

const key = generateApiKey();

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

let release = deferred();

/** Reports step 1, waits for the test, then steps 2 and 3. */
const gate = defineAgent({
  card: {
    id: 'gate',
    name: 'Gate',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'gate.steps', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({
    'gate.steps': async (_input: JsonValue, context) => {
      context.progress({ step: 1 });
      await release.promise;
      context.progress({ step: 2 });
      context.progress({ step: 3 });
      return { steps: 3 };
    },
  }),
});

/**
 * A body that passes the response through until a chunk containing `marker` has been read,
 * then fails like a dropped connection (and drops the real one).
 */
function cutAfter(
  body: ReadableStream<Uint8Array>,
  marker: string,
  onCut: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  let cutting = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (cutting) {
        await reader.cancel().catch(() => undefined);
        onCut();
        controller.error(new TypeError('terminated: the test cut the stream'));
        return;
      }
      const { value, done } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      seen += decoder.decode(value, { stream: true });
      controller.enqueue(value);
      if (seen.includes(marker)) cutting = true;
    },
  });
}

describe('MCP face: resumable streams', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    release.resolve();
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-resume-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [{ hash: key.hash, subject: 'alice', tenant: 'tenant-a' }],
      agents: [gate],
      faces: [mcpFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  it('a tools/call stream cut after the first progress is resumed with Last-Event-ID, losing nothing', async () => {
    release = deferred();
    const node = await serve();
    const resumeAllowed = deferred();
    const resumedWith: string[] = [];
    let cut = false;
    let cutDone = false;
    const fetchFn = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers);
      const last = headers.get('last-event-id');
      if ((init?.method ?? 'GET') === 'GET' && last !== null) {
        resumedWith.push(last);
        await resumeAllowed.promise;
      }
      const response = await fetch(url, init);
      const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
      const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
      if (init?.method !== 'POST' || !isCall || !streaming || cut || response.body === null) return response;
      cut = true;
      const body = cutAfter(response.body, 'notifications/progress', () => {
        cutDone = true;
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key.key}` } },
        fetch: fetchFn,
        reconnectionOptions: {
          initialReconnectionDelay: 10,
          maxReconnectionDelay: 100,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 3,
        },
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    const name = tools.find((t) => t._meta?.['plexus/verb'] === 'gate.steps')?.name ?? '';
    const progress: Progress[] = [];
    const call = client.callTool({ name, arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p);
      },
    });
    await until(() => cutDone && resumedWith.length === 1, { what: 'the cut and the client reconnecting' });
    // the rest of the call runs while the client is away
    release.resolve();
    await until(async () => (await node.log.read({ type: MCP_INVOCATION_EVENT })).length === 1, {
      what: 'the call to finish on the node',
    });
    resumeAllowed.resolve();
    const result = await call;
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ steps: 3 });
    expect(progress.map((p) => p.message)).toEqual([
      JSON.stringify({ step: 1 }),
      JSON.stringify({ step: 2 }),
      JSON.stringify({ step: 3 }),
    ]);
    expect(resumedWith[0]).toMatch(/^p[0-9a-f]{16}-\d+$/);
    // the session keeps serving on fresh streams
    expect((await client.listTools()).tools.length).toBe(1);
  });

  it('refuses a Last-Event-ID the session did not give, and another session cannot resume it', async () => {
    const node = await serve();
    const headers = {
      authorization: `Bearer ${key.key}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    };
    const open = async (): Promise<string> => {
      const res = await fetch(`${node.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      });
      await res.text();
      return res.headers.get('mcp-session-id') ?? '';
    };
    const a = await open();
    const b = await open();
    // a POST stream on session a: its priming id is an id of a
    const listed = await fetch(`${node.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': a },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const text = await listed.text();
    const id = /^id: (p[0-9a-f]{16}-\d+)$/m.exec(text)?.[1] ?? '';
    expect(id).not.toBe('');
    for (const [session, lastEventId] of [
      [a, 'nonsense'],
      [a, '999-999999'],
      [a, 'p0123456789abcdef-1'], // well-formed, a stream a never had (nor its log)
      [a, `${id.split('-')[0] ?? ''}-999999`], // a's stream, an event it never sent
      [b, id], // a's stream, from session b
    ] as const) {
      const res = await fetch(`${node.url}/mcp`, {
        headers: {
          ...headers,
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'last-event-id': lastEventId,
        },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Last-Event-ID/);
    }
    // resuming the finished stream of a replays its answer and ends
    const again = await fetch(`${node.url}/mcp`, {
      headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': a, 'last-event-id': id },
    });
    expect(again.status).toBe(200);
    const replayed = await again.text();
    expect(replayed).toContain('"id":2');
    expect(replayed).toContain('"tools"');
    // the GET stream of a previous process (MCP-57): a new GET stream, with a new key
    const controller = new AbortController();
    const fresh = await fetch(`${node.url}/mcp`, {
      headers: {
        ...headers,
        accept: 'text/event-stream',
        'mcp-session-id': b,
        'last-event-id': 'g0123456789abcdef-3',
      },
      signal: controller.signal,
    });
    expect(fresh.status).toBe(200);
    const reader = (fresh.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^id: g[0-9a-f]{16}-\d+\n/);
    expect(first).not.toContain('g0123456789abcdef');
    controller.abort();
  });
});
