/**
 * MCP resources, prompts, logging and completions (issue 13 items 4–6) on a real node on
 * loopback, driven by the MCP SDK's own `Client` over Streamable HTTP.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { prompt, resource } from '../../../src/sdk/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { until } from '../../support/until.js';

const keyA = generateApiKey();
const keyB = generateApiKey();
const BEARER_A = `Bearer ${keyA.key}`;
const BEARER_B = `Bearer ${keyB.key}`;

/** The gate the gated verb waits on; `release` opens it (made before each job). */
let gate: Promise<void> = Promise.resolve();
let release: () => void = () => undefined;
function closeGate(): void {
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
}

const notes = defineAgent({
  card: {
    id: 'notes',
    name: 'Notes',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'notes.gate', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'notes.echo', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  create: () => ({
    'notes.gate': async (_input: JsonValue, context) => {
      context.progress({ step: 'waiting' });
      await gate;
      return { done: true };
    },
    'notes.echo': (input: JsonValue) => ({ echoed: input }),
  }),
  resources: [
    resource('notes://readme', { name: 'readme', mimeType: 'text/plain' }, () => 'read me'),
    resource(
      'notes://{id}/who',
      {
        name: 'who',
        complete: { id: (value) => ['alpha', 'beta', 'bravo'].filter((v) => v.startsWith(value)) },
      },
      (_uri, { id }, caller) => ({ id: id ?? '', tenant: caller.principal.tenantId ?? null }),
    ),
  ],
  prompts: [
    prompt(
      'greet',
      {
        description: 'Greets someone',
        arguments: [
          { name: 'name', required: true, complete: (v) => ['Ada', 'Alan'].filter((n) => n.startsWith(v)) },
          { name: 'mood' },
        ],
      },
      'Hello {{name}}, feeling {{ mood }}?',
    ),
    prompt('shout', { arguments: [{ name: 'word', required: true }] }, (args) =>
      (args['word'] ?? '').toUpperCase(),
    ),
  ],
});

describe('MCP resources, prompts, logging, completions', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    release();
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-res-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents: [notes],
      faces: [mcpFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node, authorization = BEARER_A): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { authorization } },
      }),
    );
    clients.push(client);
    return client;
  }

  /** Submits a gated job of tenant-a straight to the runtime. */
  async function gatedJob(node: Node): Promise<string> {
    closeGate();
    const { job } = await node.runtime.submit(
      {
        id: randomUUID(),
        kind: 'request',
        from: 'alice',
        to: 'notes',
        verb: 'notes.gate',
        data: {},
        tenantId: 'tenant-a',
      },
      {
        face: 'mcp',
        principal: { id: 'alice', kind: 'api-key', tenantId: 'tenant-a' },
        idempotencyKey: randomUUID(),
      },
    );
    return job.id;
  }

  async function rejection(promise: Promise<unknown>): Promise<McpError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  it('declares the capabilities in initialize', async () => {
    const client = await connect(await serve());
    const caps = client.getServerCapabilities();
    expect(caps?.resources).toEqual({ subscribe: true, listChanged: true });
    expect(caps?.prompts).toEqual({ listChanged: true });
    expect(caps?.logging).toEqual({});
    expect(caps?.completions).toEqual({});
  });

  it('lists and reads agent cards, agent resources and templates', async () => {
    const client = await connect(await serve());
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['plexus://agents/notes', 'notes://readme']));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['plexus://agents/{id}', 'plexus://jobs/{id}', 'notes://{id}/who']),
    );
    const card = await client.readResource({ uri: 'plexus://agents/notes' });
    const first = card.contents[0] as { text: string; mimeType: string };
    expect(first.mimeType).toBe('application/json');
    expect((JSON.parse(first.text) as { id: string }).id).toBe('notes');
    const readme = await client.readResource({ uri: 'notes://readme' });
    expect(readme.contents[0]).toMatchObject({
      uri: 'notes://readme',
      mimeType: 'text/plain',
      text: 'read me',
    });
    // the loader runs with the caller's tenant
    const who = await client.readResource({ uri: 'notes://beta/who' });
    expect(JSON.parse((who.contents[0] as { text: string }).text)).toEqual({
      id: 'beta',
      tenant: 'tenant-a',
    });
  });

  it('answers an unknown URI with -32002 naming it, and keeps serving', async () => {
    const client = await connect(await serve());
    const error = await rejection(client.readResource({ uri: 'nothing://here' }));
    expect(error.code).toBe(-32002);
    expect(error.message).toContain('nothing://here');
    const missingCard = await rejection(client.readResource({ uri: 'plexus://agents/nobody' }));
    expect(missingCard.code).toBe(-32002);
    const subscribe = await rejection(client.subscribeResource({ uri: 'nothing://here' }));
    expect(subscribe.code).toBe(-32002);
    await expect(client.ping()).resolves.toBeDefined();
  });

  it("reads a job of the caller's tenant; another tenant's job is not found", async () => {
    const node = await serve();
    const id = await gatedJob(node);
    const alice = await connect(node);
    const mine = await alice.readResource({ uri: `plexus://jobs/${id}` });
    expect((JSON.parse((mine.contents[0] as { text: string }).text) as { id: string }).id).toBe(id);
    const bob = await connect(node, BEARER_B);
    const error = await rejection(bob.readResource({ uri: `plexus://jobs/${id}` }));
    expect(error.code).toBe(-32002);
    expect(error.message).toContain(id);
    expect((await rejection(bob.subscribeResource({ uri: `plexus://jobs/${id}` }))).code).toBe(-32002);
  });

  it('sends resources/updated to a subscriber as a job runs', async () => {
    const node = await serve();
    const id = await gatedJob(node);
    const client = await connect(node);
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    const uri = `plexus://jobs/${id}`;
    await client.subscribeResource({ uri });
    release();
    await node.runtime.jobs.wait(id);
    await until(() => updated.includes(uri), { what: 'a resources/updated for the job' });
    const after = await client.readResource({ uri });
    expect((JSON.parse((after.contents[0] as { text: string }).text) as { state: string }).state).toBe(
      'COMPLETED',
    );
    await client.unsubscribeResource({ uri });
  });

  it('lists prompts and gets one with its arguments substituted', async () => {
    const client = await connect(await serve());
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet', 'shout']);
    expect(prompts[0]?.arguments).toEqual([{ name: 'name', required: true }, { name: 'mood' }]);
    const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', mood: 'fine' } });
    expect(greet.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada, feeling fine?' });
    const noMood = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(noMood.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada, feeling ?' });
    const shout = await client.getPrompt({ name: 'shout', arguments: { word: 'hey' } });
    expect(shout.messages[0]?.content).toEqual({ type: 'text', text: 'HEY' });
  });

  it('refuses a missing required argument with -32602 naming it', async () => {
    const client = await connect(await serve());
    const error = await rejection(client.getPrompt({ name: 'greet', arguments: { mood: 'x' } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('"name"');
    expect((await rejection(client.getPrompt({ name: 'nope' }))).code).toBe(-32602);
    await expect(client.ping()).resolves.toBeDefined();
  });

  it('completes prompt arguments and template variables', async () => {
    const client = await connect(await serve());
    const names = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'Al' },
    });
    expect(names.completion.values).toEqual(['Alan']);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{id}/who' },
      argument: { name: 'id', value: 'b' },
    });
    expect(ids.completion.values).toEqual(['beta', 'bravo']);
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'mood', value: '' },
    });
    expect(none.completion.values).toEqual([]);
  });

  it('logs tool-call outcomes to a session once it sets a level', async () => {
    const client = await connect(await serve());
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'Notes.notes.echo', arguments: { a: 1 } });
    await until(() => messages.length > 0, { what: 'a notifications/message' });
    expect(messages[0]).toMatchObject({
      level: 'info',
      logger: 'plexus.mcp',
      data: { event: 'tools/call', tool: 'Notes.notes.echo', agent: 'notes', outcome: 'ok' },
    });
  });

  it('answers bad params with -32602 and keeps the session working', async () => {
    const node = await serve();
    const client = await connect(node);
    const bad = [
      { method: 'resources/read', params: { uri: 42 } },
      { method: 'resources/subscribe', params: {} },
      { method: 'prompts/get', params: { name: 'greet', arguments: { name: 7 } } },
      { method: 'completion/complete', params: { ref: { type: 'ref/other' }, argument: {} } },
      { method: 'logging/setLevel', params: { level: 'loud' } },
      { method: 'resources/list', params: { cursor: 'not-ours' } },
    ];
    for (const request of bad) {
      const error = await rejection(
        client.request(request, LoggingMessageNotificationSchema.shape.params as never),
      );
      expect(error.code, request.method).toBe(-32602);
    }
    await expect(client.listResources()).resolves.toBeDefined();
  });
});
