/**
 * The MCP face (issue 13) on a real node on loopback, driven by the MCP SDK's own `Client`
 * over `StreamableHTTPClientTransport`, and by raw HTTP for what a conforming client never
 * sends (bad JSON, deep and oversized bodies, a foreign Origin, a wrong protocol version).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent, type AgentDefinition } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { until } from '../../support/until.js';

const keyA = generateApiKey();
const keyB = generateApiKey();
const BEARER_A = `Bearer ${keyA.key}`;
const BEARER_B = `Bearer ${keyB.key}`;
const BODY_LIMIT = 4096;

function agent(
  id: string,
  name: string,
  verbs: Record<string, (input: JsonValue) => JsonValue>,
): AgentDefinition {
  return defineAgent({
    card: {
      id,
      name,
      version: '1.0.0',
      tier: 'L3',
      capabilities: Object.keys(verbs).map((verb) => ({
        verb,
        input: { type: 'object' },
        output: { type: 'object' },
      })),
    },
    create: () =>
      Object.fromEntries(Object.entries(verbs).map(([verb, fn]) => [verb, (input: JsonValue) => fn(input)])),
  });
}

/** A verb that reports three steps of progress, and one that runs until it is cancelled. */
const slow = defineAgent({
  card: {
    id: 'slow',
    name: 'Slow',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'slow.steps', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'slow.wait', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  create: () => ({
    'slow.steps': (_input: JsonValue, context) => {
      for (let i = 1; i <= 3; i++) context.progress({ step: i });
      return { steps: 3 };
    },
    'slow.wait': (_input: JsonValue, context) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener(
          'abort',
          () => {
            reject(new PlexusError('CANCELLED', 'cancelled'));
          },
          {
            once: true,
          },
        );
      }),
  }),
});

const echo = agent('echo', 'Echo', {
  'echo.say': (input) => ({ said: input }),
  'echo.fail': () => {
    throw new PlexusError('PRECONDITION_FAILED', 'the echo refuses');
  },
});

describe('MCP face', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(pageSize?: number, agents: readonly AgentDefinition[] = [echo]): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      bodyLimitBytes: BODY_LIMIT,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents,
      faces: [mcpFace(pageSize === undefined ? {} : { pageSize })],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(
    node: Node,
    authorization = BEARER_A,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
      requestInit: { headers: { authorization } },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  async function raw(
    node: Node,
    method: string,
    body: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(`${node.url}/mcp`, {
      method,
      headers: {
        authorization: BEARER_A,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('lists the verbs as tools and calls one', async () => {
    const node = await serve();
    const { client } = await connect(node);
    const { tools } = await client.listTools();
    const names = tools.map((t: Tool) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Echo.echo.say', 'Echo.echo.fail']));
    const say = tools.find((t: Tool) => t.name === 'Echo.echo.say');
    expect(say?.inputSchema.type).toBe('object');
    expect(say?.outputSchema?.type).toBe('object');
    const result = await client.callTool({ name: 'Echo.echo.say', arguments: { text: 'hi' } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ said: { text: 'hi' } });
    await expect(client.ping()).resolves.toBeDefined();
  });

  it('answers a failing verb with isError naming the code and the agent', async () => {
    const node = await serve();
    const { client } = await connect(node);
    const result = await client.callTool({ name: 'Echo.echo.fail', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(text).toContain('PRECONDITION_FAILED');
    expect(text).toContain('the echo refuses');
    expect(text).toContain('echo');
    expect(result._meta?.['plexus/code']).toBe('PRECONDITION_FAILED');
  });

  it('pages tools/list with an opaque cursor', async () => {
    const node = await serve(1);
    const { client } = await connect(node);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await client.listTools(cursor === undefined ? {} : { cursor });
      expect(answer.tools.length).toBeLessThanOrEqual(1);
      seen.push(...answer.tools.map((t: Tool) => t.name));
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    expect(cursor).toBeUndefined();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['Echo.echo.say', 'Echo.echo.fail']));
    await expect(client.listTools({ cursor: 'not-ours' })).rejects.toThrow();
  });

  it('sends tools/list_changed when an agent is added', async () => {
    const node = await serve();
    const { client } = await connect(node);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    // the notification travels on the session's GET stream, which the SDK client opens
    await node.runtime.agents.add(agent('later', 'Later', { 'later.go': () => ({}) }));
    await until(() => changed > 0, 10_000);
    const { tools } = await client.listTools();
    expect(tools.map((t: Tool) => t.name)).toContain('Later.later.go');
  });

  it('forwards job progress to the progress token, and cancelling the request cancels the job', async () => {
    const node = await serve(undefined, [echo, slow]);
    const { client } = await connect(node);
    const steps: number[] = [];
    const result = await client.callTool({ name: 'Slow.slow.steps', arguments: {} }, undefined, {
      onprogress: (p) => steps.push(p.progress),
    });
    expect(result.structuredContent).toEqual({ steps: 3 });
    expect(steps).toEqual([1, 2, 3]);
    const controller = new AbortController();
    const call = client.callTool({ name: 'Slow.slow.wait', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => undefined,
    });
    // slow.wait's job runs (a sync job's events are held until it ends: listing writes them)
    const started = async (): Promise<boolean> =>
      (await node.runtime.jobs.list()).jobs.some((j) => j.verb === 'slow.wait' && j.state === 'WORKING');
    await until(started, 10_000);
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    await until(async () => (await node.log.read()).some((e) => e.type === 'job.canceled'), 10_000);
  });

  it('binds a session to the credential that opened it, and DELETE ends it', async () => {
    const node = await serve();
    const opened = await raw(node, 'POST', initialize);
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session.length).toBeGreaterThanOrEqual(40);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await raw(node, 'POST', list, headers)).status).toBe(200);
    const other = await raw(node, 'POST', list, { ...headers, authorization: BEARER_B });
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text)).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    expect((await raw(node, 'POST', list, {})).status).toBe(400);
    expect((await raw(node, 'POST', list, { ...headers, 'mcp-protocol-version': '1999-01-01' })).status).toBe(
      400,
    );
    expect((await raw(node, 'DELETE', undefined, headers)).status).toBe(200);
    expect((await raw(node, 'POST', list, headers)).status).toBe(404);
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const again = (await raw(node, 'POST', initialize)).headers.get('mcp-session-id') ?? '';
    expect((await raw(node, 'POST', note, { 'mcp-session-id': again })).status).toBe(202);
  });

  it('refuses a foreign Origin and a missing credential', async () => {
    const node = await serve();
    const foreign = await raw(node, 'POST', initialize, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text)).toMatchObject({
      jsonrpc: '2.0',
      error: { data: { code: 'FORBIDDEN' } },
    });
    expect((await raw(node, 'POST', initialize, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await raw(node, 'POST', initialize, { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('answers bad JSON, 300-deep and oversized bodies with JSON-RPC errors and keeps serving', async () => {
    const node = await serve();
    const bad = await raw(node, 'POST', '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const deep = await raw(node, 'POST', `${'['.repeat(300)}${']'.repeat(300)}`);
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const big = await raw(node, 'POST', JSON.stringify({ text: 'x'.repeat(BODY_LIMIT * 2) }));
    expect(big.status).toBe(413);
    expect(big.text).not.toMatch(/FST_/);
    expect(JSON.parse(big.text)).toMatchObject({
      jsonrpc: '2.0',
      error: { data: { code: 'INPUT_TOO_LARGE' } },
    });
    expect((await raw(node, 'POST', initialize)).status).toBe(200);
  });
});

describe('MCP face on a default node (the Hyperspace primitives hosted)', () => {
  it('lists every tool to the SDK client, boolean subschemas written as objects', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-primitives-'));
    const node = createNode({ dataDir, store: 'memory', host: '127.0.0.1', port: 0, dev: true, demo: true });
    await node.start();
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`)));
      const names: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const answer = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...answer.tools.map((t: Tool) => t.name));
        cursor = answer.nextCursor;
        if (cursor === undefined) break;
      }
      expect(cursor).toBeUndefined();
      expect(names.some((n) => n.includes('state.'))).toBe(true);
      expect(JSON.stringify(names)).toContain('math.evaluate');
    } finally {
      await client.close();
      await node.stop({ drainMs: 0 });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
