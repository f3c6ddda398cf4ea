/**
 * What the MCP conformance work added to the face (docs/decisions/mcp.md MCP-40…44): tool names
 * and MCP content results declared by a verb (`mcp:tool`), progress numbers and progress logged
 * to a logging session, prompts that render messages, JSON Schema keywords kept, and the DNS
 * rebinding Host check — on a real node on loopback, driven by the SDK's own `Client`.
 */
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import type { VerbSpec } from '../../../src/core/records/verb-spec.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent, type AgentDefinition, type HandlerContext } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { progressParams } from '../../../src/transports/mcp/tool-call.js';
import { withoutBooleanSchemas } from '../../../src/transports/mcp/tool-catalog.js';
import { MCP_TOOL_NAME_MAX, plainToolName, toolNames } from '../../../src/transports/mcp/tool-names.js';
import { until } from '../../support/until.js';

const PNG = 'iVBORw0KGgo=';

function spec(name: string, hint: JsonValue | undefined, input: JsonValue = { type: 'object' }): VerbSpec {
  return {
    name,
    version: 1,
    status: 'stable',
    input: input as VerbSpec['input'],
    output: { type: 'object' },
    effects: {},
    capabilities: [],
    category: 'query',
    deterministic: false,
    description: name,
    ...(hint === undefined ? {} : { projection: { 'mcp:tool': hint as Record<string, JsonValue> } }),
  };
}

type Handler = (input: JsonValue, context: HandlerContext) => JsonValue | Promise<JsonValue>;

const VERBS: Record<string, { hint?: JsonValue; input?: JsonValue; run: Handler }> = {
  'hint.image': {
    hint: { name: 'draw_image', content: true },
    run: () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  },
  'hint.broken': {
    hint: { name: 'broken_result', content: true },
    run: () => ({ content: 'not a list' }),
  },
  'hint.steps': {
    run: (_input, context) => {
      for (const progress of [0, 50, 100]) context.progress({ progress, total: 100 });
      context.progress({ note: 'free-form' });
      return { done: true };
    },
  },
  'hint.strict': {
    input: {
      type: 'object',
      $defs: { n: { type: 'integer' } },
      properties: { a: { $ref: '#/$defs/n' }, b: true, c: false },
      additionalProperties: false,
    },
    run: () => ({}),
  },
};

const hinted: AgentDefinition = defineAgent({
  card: {
    id: 'hint',
    name: 'Hint',
    version: '1.0.0',
    tier: 'L3',
    capabilities: Object.entries(VERBS).map(([verb, v]) => ({
      verb,
      input: (v.input ?? { type: 'object' }) as VerbSpec['input'],
      output: { type: 'object' },
    })),
  },
  verbs: Object.entries(VERBS).map(([verb, v]) => spec(verb, v.hint, v.input)),
  create: () => Object.fromEntries(Object.entries(VERBS).map(([verb, v]) => [verb, v.run])),
  prompts: [
    {
      name: 'with_image',
      arguments: [],
      render: () => [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'assistant', content: { type: 'text', text: 'an image' } },
      ],
    },
    {
      name: 'not_messages',
      arguments: [],
      render: () => [{ role: 'robot', content: { type: 'text', text: 'x' } }] as never,
    },
  ],
});

describe('MCP tool names a verb declares (MCP-40)', () => {
  const plain = (verb: string) => ({ agentId: verb, agentName: 'A', verb });
  it('uses a valid, unclaimed declared name as it is', () => {
    expect(toolNames([{ ...plain('a.x'), declared: 'read_file' }, plain('a.y')])).toEqual([
      'read_file',
      'A.a.y',
    ]);
  });

  it('gives every source of a name claimed twice its hashed unique name', () => {
    const names = toolNames([
      { ...plain('a.x'), declared: 'same' },
      { ...plain('a.y'), declared: 'same' },
      { ...plain('a.z'), declared: 'A.a.w' },
      plain('a.w'),
    ]);
    expect(new Set(names).size).toBe(4);
    for (const [i, verb] of ['a.x', 'a.y', 'a.z', 'a.w'].entries()) {
      expect(names[i]).toMatch(
        new RegExp(`^${plainToolName('A', verb).replaceAll('.', '\\.')}-[0-9a-f]{10}$`),
      );
    }
  });

  it('ignores a declared name outside the MCP charset or over 128 characters', () => {
    const names = toolNames([
      { ...plain('a.x'), declared: 'has space' },
      { ...plain('a.y'), declared: 'n'.repeat(MCP_TOOL_NAME_MAX + 1) },
      { ...plain('a.z'), declared: '' },
    ]);
    expect(names).toEqual(['A.a.x', 'A.a.y', 'A.a.z']);
  });
});

describe('progress numbers (MCP-41) and schemas as written (MCP-44)', () => {
  it('sends a report’s own progress, total and message; anything else is counted', () => {
    expect(progressParams({ progress: 50, total: 100, message: 'half' }, 7)).toEqual({
      progress: 50,
      total: 100,
      message: 'half',
    });
    expect(progressParams({ progress: 3, total: 'lots' }, 7)).toEqual({ progress: 3 });
    expect(progressParams({ step: 2 }, 7)).toEqual({ progress: 7, message: '{"step":2}' });
    expect(progressParams(null, 1)).toEqual({ progress: 1, message: 'null' });
    expect(progressParams(undefined, 2)).toEqual({ progress: 2 });
  });

  it('rewrites only the boolean root properties', () => {
    const schema = {
      type: 'object',
      properties: { a: true, b: false, c: { type: 'object', properties: { d: true } } },
      additionalProperties: false,
      $defs: { e: false },
    };
    expect(withoutBooleanSchemas(schema)).toEqual({
      ...schema,
      properties: { a: {}, b: { not: {} }, c: { type: 'object', properties: { d: true } } },
    });
    const untouched = { type: 'object', additionalProperties: false };
    expect(withoutBooleanSchemas(untouched)).toBe(untouched);
  });
});

describe('MCP face: hints, progress, logging, prompt messages, DNS rebinding', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  const key = generateApiKey();

  async function serve(dev: boolean): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-hints-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      demo: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev,
      ...(dev ? {} : { apiKeys: [{ hash: key.hash, subject: 'alice', tenant: 'tenant-a' }] }),
      agents: [hinted],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`)));
    clients.push(client);
    return client;
  }

  it('lists declared names, answers declared MCP content, and refuses a result that is not one', async () => {
    const client = await connect(await serve(true));
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain('draw_image');
    expect(names).toContain('broken_result');
    // a clashing or invalid declared name is refused at registration (MCP-52, mcp-tool-name-clash.test.ts)
    const strict = tools.find((t) => t.name === 'Hint.hint.strict');
    expect(strict?.inputSchema).toMatchObject({
      additionalProperties: false,
      $defs: { n: { type: 'integer' } },
      properties: { a: { $ref: '#/$defs/n' }, b: {}, c: { not: {} } },
    });

    const image = await client.callTool({ name: 'draw_image', arguments: {} });
    expect(image).toMatchObject({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] });
    expect(image.isError).toBeUndefined();
    const broken = await client.callTool({ name: 'broken_result', arguments: {} });
    expect(broken.isError).toBe(true);
    expect(JSON.stringify(broken.content)).toMatch(/INTERNAL: verb hint\.broken declares an MCP tool result/);
    expect(await client.ping()).toEqual({});
  });

  it('sends the reports’ progress numbers on the token, and logs them once the session asks', async () => {
    const client = await connect(await serve(true));
    const seen: Progress[] = [];
    const result = await client.request(
      {
        method: 'tools/call',
        params: { name: 'Hint.hint.steps', arguments: {}, _meta: { progressToken: 'p1' } },
      },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(result.isError).toBeUndefined();
    expect(seen.slice(0, 3).map((p) => [p.progress, p.total])).toEqual([
      [0, 100],
      [50, 100],
      [100, 100],
    ]);
    expect(seen[3]).toMatchObject({ progress: 4, message: '{"note":"free-form"}' });

    const logs: LoggingMessageNotification[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n);
    });
    await client.callTool({ name: 'Hint.hint.steps', arguments: {} });
    expect(logs).toEqual([]); // no level set: nothing is logged (MCP-13)
    await client.setLoggingLevel('info');
    // with a progress token the answer streams: the call's logs come on it, before its result
    await client.request(
      {
        method: 'tools/call',
        params: { name: 'Hint.hint.steps', arguments: {}, _meta: { progressToken: 'p2' } },
      },
      CallToolResultSchema,
      { onprogress: () => undefined },
    );
    const progress = logs.filter((n) => (n.params.data as { event?: string }).event === 'progress');
    expect(progress.map((n) => (n.params.data as { progress: unknown }).progress)).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
      { note: 'free-form' },
    ]);
    expect(progress.every((n) => n.params.level === 'info' && n.params.logger === 'plexus.mcp')).toBe(true);
    // the call's outcome follows (MCP-13)
    await until(() => logs.some((n) => (n.params.data as { event?: string }).event === 'tools/call'), {
      what: 'the outcome log',
    });
  });

  it('answers a prompt’s messages, and −32603 naming a prompt whose messages are not MCP ones', async () => {
    const client = await connect(await serve(true));
    const got = await client.getPrompt({ name: 'with_image' });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'assistant', content: { type: 'text', text: 'an image' } },
    ]);
    await expect(client.getPrompt({ name: 'not_messages' })).rejects.toThrow(
      /-32603.*prompt not_messages did not render to text or MCP prompt messages/,
    );
    expect(await client.ping()).toEqual({});
  });

  function post(node: Node, host: string, authorization?: string): Promise<number> {
    const url = new URL(`${node.url}/mcp`);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host,
            origin: `http://${host}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization === undefined ? {} : { authorization }),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  }

  it('refuses an anonymous loopback request naming a foreign Host (DNS rebinding, MCP-43)', async () => {
    const dev = await serve(true);
    const port = new URL(dev.url).port;
    expect(await post(dev, 'evil.example.com')).toBe(403);
    expect(await post(dev, `evil.example.com:${port}`)).toBe(403);
    expect(await post(dev, `localhost:${port}`)).toBe(200);
    expect(await post(dev, `127.0.0.1:${port}`)).toBe(200);
    expect(await post(dev, `[::1]:${port}`)).toBe(200);
    // an authenticated caller (a reverse proxy's Host) is not affected
    const authed = await serve(false);
    expect(await post(authed, 'mesh.example.com', `Bearer ${key.key}`)).toBe(200);
    expect(await post(authed, 'mesh.example.com')).toBe(401);
  });
});
