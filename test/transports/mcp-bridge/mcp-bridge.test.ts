/**
 * The MCP client bridge (issue 13 items 8 and 10): MCP servers as Plexus agents. Against real
 * SDK servers written here — a stdio child process (test/fixtures/mcp-bridge/stdio-server.mjs)
 * and an in-process `McpServer` behind the SDK's `StreamableHTTPServerTransport` on node:http:
 * tools appear as verbs, calls round-trip, progress, cancellation, a killed stdio server is
 * restarted, a removed tool disappears, `mcp://` targets, resources and prompts through this
 * node's `/mcp`, `bridge.registerMCPServer` over the Hyperspace face (privileged, persisted
 * across a restart), bad configuration.
 */
import { createHash, randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CompleteResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Envelope } from '../../../src/core/envelope.js';
import type { ErrorData } from '../../../src/core/errors.js';
import { parseNodeConfig } from '../../../src/node/config.js';
import { createNode, type Node, type NodeInit } from '../../../src/node/index.js';
import { defaultFaces } from '../../../src/node/faces.js';
import { TARGET_EXTENSION } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { mcpBridgeFace } from '../../../src/transports/mcp-bridge/mcp-bridge-face.js';
import { parseMcpServerEntry } from '../../../src/transports/mcp-bridge/mcp-server-entry.js';
import { perRequestSignalFetch } from '../../../src/transports/mcp-bridge/per-request-fetch.js';
import { wsJsonRpcClient } from '../../../src/transports/ws-jsonrpc/client.js';
import { connectMcpClient } from '../../support/mcp-client.js';
import { startMcpSdkServer } from '../../support/mcp-sdk-server.js';
import { eventually, until } from '../../support/until.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp-bridge/stdio-server.mjs', import.meta.url));
const stdio = (name = 'fix') => ({ name, command: process.execPath, args: [FIXTURE] });

/** Requests the HTTP server's `wait` tool is running, and those it saw cancelled. */
const waiting = new Set<string>();
const cancelled: string[] = [];
/** The `authorization` headers the HTTP server received. */
const authorizations = new Set<string>();

function httpMcpServer(): McpServer {
  const server = new McpServer({ name: 'http-fixture', version: '1.0.0' });
  server.registerTool(
    'shout',
    { description: 'upper-cases', inputSchema: { text: z.string() }, outputSchema: { text: z.string() } },
    ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
      structuredContent: { text: text.toUpperCase() },
    }),
  );
  server.registerTool(
    'wait',
    { description: 'runs until cancelled', inputSchema: { id: z.string() } },
    ({ id }, extra) => {
      waiting.add(id);
      return new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => {
          cancelled.push(id);
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
      });
    },
  );
  server.registerResource('notes', 'http://fixture/notes', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'the notes' }],
  }));
  return server;
}

/** A stateful Streamable HTTP MCP server on loopback: one McpServer and transport per session. */
async function httpServer(): Promise<{ url: string; server: Server }> {
  const started = await startMcpSdkServer({
    server: httpMcpServer,
    onRequest: (req) => {
      if (req.headers.authorization !== undefined) authorizations.add(req.headers.authorization);
    },
  });
  return { url: started.url, server: started.server };
}

function request(verb: string, data: Envelope['data'], target?: string): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'test',
    to: `capability:${verb}`,
    verb,
    data,
    ...(target === undefined ? {} : { extensions: { [TARGET_EXTENSION]: target } }),
  };
}

describe('MCP servers as Plexus agents', () => {
  const nodes: Node[] = [];
  const servers: Server[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
    waiting.clear();
    cancelled.length = 0;
    authorizations.clear();
  });

  async function dataDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'plexus-mcp-bridge-'));
    dirs.push(dir);
    return dir;
  }

  async function bridgeNode(init: NodeInit, wait: readonly string[]): Promise<Node> {
    const node = createNode({
      primitives: false,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      ...init,
    });
    nodes.push(node);
    await node.start();
    for (const id of wait)
      await until(() => node.runtime.agents.registry.find(id) !== undefined, { what: `agent ${id} hosted` });
    return node;
  }

  /**
   * Invokes in-process, as an operator (`kind: local`: nodes with auth on need a principal),
   * each call a new one (a fresh idempotency key: the same input twice is two calls).
   */
  async function call(node: Node, verb: string, data: Envelope['data'], target?: string): Promise<Envelope> {
    const principal = { id: 'operator', kind: 'local' };
    const context = { face: 'internal' as const, principal, idempotencyKey: randomUUID() };
    return (await node.runtime.invoke(request(verb, data, target), context)).envelope;
  }

  it('hosts a stdio server: tools become verbs with their schemas, calls round-trip, isError is an error', async () => {
    const node = await bridgeNode(
      { dataDir: await dataDir(), faces: [mcpBridgeFace({ servers: [stdio()] })] },
      ['fix'],
    );
    const card = node.runtime.agents.registry.get('fix');
    expect(card.capabilities.map((c) => c.verb).sort()).toEqual([
      'mcp.fix.add',
      'mcp.fix.drop',
      'mcp.fix.echo',
      'mcp.fix.extra',
      'mcp.fix.fail',
      'mcp.fix.pid',
      'mcp.fix.secret',
      'mcp.fix.slow',
    ]);
    const add = card.capabilities.find((c) => c.verb === 'mcp.fix.add');
    expect(add?.input).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
    expect(add?.output).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    expect(await call(node, 'mcp.fix.echo', { text: 'hi there' })).toMatchObject({
      kind: 'response',
      data: 'hi there',
    });
    expect(await call(node, 'mcp.fix.add', { a: 2, b: 40 })).toMatchObject({
      kind: 'response',
      data: { sum: 42 },
    });
    const failed = await call(node, 'mcp.fix.fail', {});
    expect(failed.kind).toBe('error');
    expect(failed.data).toMatchObject({ code: 'UNAVAILABLE', retryable: false });
    expect((failed.data as unknown as ErrorData).message).toMatch(/tool fail failed: the disk is on fire/);
    // bad input is refused at the door against the tool's own schema
    expect((await call(node, 'mcp.fix.add', { a: 'two' })).data).toMatchObject({ code: 'INVALID_PARAMS' });
    // the server's progress is the job's progress
    const { job } = await node.runtime.submit(request('mcp.fix.slow', { steps: 3 }), { face: 'internal' });
    await node.runtime.jobs.wait(job.id);
    expect((await node.runtime.jobs.get(job.id)).outputs).toBe('done after 3');
    const progress = (await node.runtime.jobs.events(job.id)).filter((e) => e.type === 'job.progress');
    expect(progress.map((e) => (e.data as { progress?: { progress?: number } }).progress?.progress)).toEqual([
      1, 2, 3,
    ]);
  });

  it('follows the tool list: a removed tool disappears', async () => {
    const node = await bridgeNode(
      { dataDir: await dataDir(), faces: [mcpBridgeFace({ servers: [stdio()] })] },
      ['fix'],
    );
    expect(await call(node, 'mcp.fix.extra', {})).toMatchObject({ kind: 'response', data: 'still here' });
    expect(await call(node, 'mcp.fix.drop', {})).toMatchObject({ kind: 'response', data: 'dropped' });
    await until(
      () => !node.runtime.agents.registry.get('fix').capabilities.some((c) => c.verb === 'mcp.fix.extra'),
      { what: 'mcp.fix.extra gone from the card' },
    );
    expect((await call(node, 'mcp.fix.extra', {})).data).toMatchObject({ code: 'UNKNOWN_VERB' });
    expect(await call(node, 'mcp.fix.echo', { text: 'still serving' })).toMatchObject({
      data: 'still serving',
    });
  });

  it('restarts a stdio server that was killed, under the agent supervisor', async () => {
    const node = await bridgeNode(
      { dataDir: await dataDir(), faces: [mcpBridgeFace({ servers: [stdio()] })] },
      ['fix'],
    );
    const first = Number((await call(node, 'mcp.fix.pid', {})).data);
    expect(first).toBeGreaterThan(0);
    process.kill(first, 'SIGKILL');
    const restarted = await eventually('the agent restarted', async () =>
      (await node.log.read({ type: ['agent.restarted'], afterSeq: 0, limit: 10 })).find(
        (e) => (e.data as { id?: string }).id === 'fix',
      ),
    );
    expect(restarted.data).toMatchObject({ id: 'fix', restarts: 1 });
    const second = await eventually('the restarted server answering', async () => {
      const answer = await call(node, 'mcp.fix.pid', {});
      return answer.kind === 'response' ? Number(answer.data) : undefined;
    });
    expect(second).not.toBe(first);
  });

  it('bridges a Streamable HTTP server: structured output, cancellation reaches the server, mcp:// targets', async () => {
    const http = await httpServer();
    servers.push(http.server);
    const node = await bridgeNode(
      {
        dataDir: await dataDir(),
        faces: [
          mcpBridgeFace({
            servers: [{ name: 'web', url: http.url, headers: { Authorization: 'Bearer t0k' } }],
          }),
        ],
      },
      ['web'],
    );
    expect(await call(node, 'mcp.web.shout', { text: 'hey' })).toMatchObject({ data: { text: 'HEY' } });
    expect([...authorizations]).toEqual(['Bearer t0k']); // the entry's headers go with every request
    // mcp://<server>/<tool>
    expect(await call(node, 'mcp.web.shout', { text: 'x' }, 'mcp://web/shout')).toMatchObject({
      kind: 'response',
      data: { text: 'X' },
    });
    expect(await call(node, 'mcp.web.shout', { text: 'y' }, 'mcp://web')).toMatchObject({
      data: { text: 'Y' },
    });
    expect((await call(node, 'mcp.web.wait', { id: 'a' }, 'mcp://web/shout')).data).toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringMatching(/is the verb mcp\.web\.shout/) as unknown,
    });
    expect((await call(node, 'mcp.web.shout', {}, 'mcp://web/nope')).data).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/has no tool "nope"; its tools: shout, wait/) as unknown,
    });
    expect((await call(node, 'mcp.web.shout', {}, 'mcp://elsewhere/shout')).data).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/does not bridge/) as unknown,
    });
    // cancelling the job sends notifications/cancelled
    const { job } = await node.runtime.submit(request('mcp.web.wait', { id: 'w1' }), { face: 'internal' });
    await until(() => waiting.has('w1'), { what: 'the remote tool running' });
    await node.runtime.jobs.cancel(job.id);
    await until(() => cancelled.includes('w1'), { what: 'the remote request cancelled' });
    expect((await node.runtime.jobs.get(job.id)).state).toBe('CANCELED');
  });

  it("re-exposes the bridged server's resources and prompts through this node's /mcp", async () => {
    const node = await bridgeNode(
      {
        dataDir: await dataDir(),
        faces: [...defaultFaces({ dev: true }), mcpBridgeFace({ servers: [stdio()] })],
      },
      ['fix'],
    );
    const client = await connectMcpClient(node.url);
    clients.push(client);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('fixture://greeting');
    const read = await client.readResource({ uri: 'fixture://greeting' });
    expect(read.contents[0]).toMatchObject({ text: 'hello from stdio' });
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === 'greet')?.arguments).toEqual([
      expect.objectContaining({ name: 'name', required: true }),
    ]);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Say hello to Ada.');
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name.endsWith('mcp.fix.echo'));
    expect(echo).toBeDefined();
    const result = await client.callTool({ name: echo?.name ?? '', arguments: { text: 'round trip' } });
    expect(JSON.stringify(result.content)).toContain('round trip');
  });

  it("forwards completion/complete for the bridged server's prompts and resource templates", async () => {
    const node = await bridgeNode(
      {
        dataDir: await dataDir(),
        faces: [...defaultFaces({ dev: true }), mcpBridgeFace({ servers: [stdio()] })],
      },
      ['fix'],
    );
    const client = await connectMcpClient(node.url);
    clients.push(client);
    expect(client.getServerCapabilities()?.completions).toBeDefined();
    const values = async (
      ref: Parameters<Client['complete']>[0]['ref'],
      name: string,
      value: string,
      context?: Record<string, string>,
    ) =>
      (
        await client.complete({
          ref,
          argument: { name, value },
          ...(context === undefined ? {} : { context: { arguments: context } }),
        })
      ).completion.values;
    const travel = { type: 'ref/prompt' as const, name: 'travel' };
    expect(await values(travel, 'country', 'f')).toEqual(['france']);
    // the other arguments the client chose travel along (context.arguments)
    expect(await values(travel, 'city', 'l', { country: 'france' })).toEqual(['lyon', 'lille']);
    expect(await values(travel, 'city', 'l')).toEqual(['lyon', 'lille', 'lima']);
    const weather = { type: 'ref/resource' as const, uri: 'weather://{country}/{city}' };
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain(weather.uri);
    expect(await values(weather, 'country', 'p')).toEqual(['peru']);
    expect(await values(weather, 'city', 'c', { country: 'peru' })).toEqual(['cusco']);
    const read = await client.readResource({ uri: 'weather://peru/lima' });
    expect(read.contents[0]).toMatchObject({ text: 'sunny in lima, peru' });
    // an argument the server offers no completions for: none
    expect(await values({ type: 'ref/prompt', name: 'greet' }, 'name', 'A')).toEqual([]);
    // bad input: the protocol's own errors, and the node keeps serving
    await expect(values({ type: 'ref/prompt', name: 'no_such_prompt' }, 'x', '')).rejects.toMatchObject({
      code: -32602,
    });
    await expect(values({ type: 'ref/resource', uri: 'nowhere://{x}' }, 'x', '')).rejects.toMatchObject({
      code: -32602,
    });
    await expect(values(travel, 'city', '', { country: 'atlantis' })).rejects.toThrow(
      /atlantis has no cities/,
    );
    await expect(
      client.request(
        { method: 'completion/complete', params: { ref: { type: 'ref/prompt' }, argument: { value: 1 } } },
        CompleteResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await values(travel, 'country', '')).toEqual(['france', 'peru']);
  });

  it('bridge.registerMCPServer: privileged only, bad entries refused, persisted across a restart', async () => {
    const admin = generateApiKey();
    const user = generateApiKey();
    const dir = await dataDir();
    const init: NodeInit = {
      dataDir: dir,
      store: 'sqlite',
      dev: false,
      apiKeys: [
        { hash: admin.hash, subject: 'ops', scopes: ['bridge:admin'] },
        { hash: user.hash, subject: 'someone' },
      ],
      mcp: { register: true },
    };
    const first = await bridgeNode(init, ['mcp-bridge']);
    const url = first.url.replace(/^http/, 'ws');
    const asUser = await wsJsonRpcClient({ url: `${url}/rpc`, token: user.key });
    await expect(asUser.call('bridge.registerMCPServer', stdio('late'))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await asUser.close();
    const asAdmin = await wsJsonRpcClient({ url: `${url}/rpc`, token: admin.key });
    await expect(
      asAdmin.call('bridge.registerMCPServer', { name: 'late', command: 'x', url: 'http://a' }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(
      asAdmin.call('bridge.registerMCPServer', { name: 'gone', command: join(dir, 'no-such-program') }),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/could not be reached/) as unknown,
    });
    const answer = await asAdmin.call('bridge.registerMCPServer', stdio('late'));
    expect(answer).toMatchObject({
      name: 'late',
      verbs: expect.arrayContaining(['mcp.late.echo']) as unknown,
    });
    expect(await asAdmin.call('mcp.late.echo', { text: 'over the wire' })).toBe('over the wire');
    await asAdmin.close();
    expect(first.runtime.agents.registry.find('gone')).toBeUndefined();
    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);

    const second = await bridgeNode({ ...init, port: 0 }, ['mcp-bridge', 'late']);
    expect(await call(second, 'mcp.late.echo', { text: 'after restart' })).toMatchObject({
      data: 'after restart',
    });
    expect(second.runtime.agents.registry.find('gone')).toBeUndefined();
  });

  it('bridge.unregisterMCPServer removes a registered server for good; env and headers are ${NAME} references, no secret reaches the log', async () => {
    const admin = generateApiKey();
    const user = generateApiKey();
    const dir = await dataDir();
    const http = await httpServer();
    servers.push(http.server);
    const envSecret = `sk-live-${randomUUID()}`;
    const headerSecret = `tok-${randomUUID()}`;
    const init: NodeInit = {
      dataDir: dir,
      store: 'sqlite',
      dev: false,
      apiKeys: [
        { hash: admin.hash, subject: 'ops', scopes: ['bridge:admin'] },
        { hash: user.hash, subject: 'someone' },
      ],
      mcp: { register: true, servers: [stdio('cfg')] },
    };
    const rpc = async (node: Node, key: string) =>
      wsJsonRpcClient({ url: `${node.url.replace(/^http/, 'ws')}/rpc`, token: key });

    // the node's environment holds the secrets; registrations name them
    process.env['PLEXUS_TEST_FIXTURE_SECRET'] = envSecret;
    process.env['PLEXUS_TEST_WEB_TOKEN'] = headerSecret;
    const first = await bridgeNode(init, ['mcp-bridge', 'cfg']);
    const asAdmin = await rpc(first, admin.key);
    // a literal value is refused at the door (it would be kept in the log), naming the field
    await expect(
      asAdmin.call('bridge.registerMCPServer', { ...stdio('late'), env: { FIXTURE_SECRET: envSecret } }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(
      asAdmin.call('bridge.registerMCPServer', {
        name: 'web',
        url: http.url,
        headers: { Authorization: `Bearer ${headerSecret}` },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    // a reference to a variable the node does not have is refused naming it
    await expect(
      asAdmin.call('bridge.registerMCPServer', {
        ...stdio('late'),
        env: { FIXTURE_SECRET: '${PLEXUS_TEST_NOT_SET_ANYWHERE}' },
      }),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /env\.FIXTURE_SECRET refers to \$\{PLEXUS_TEST_NOT_SET_ANYWHERE\}, which is not set/,
      ) as unknown,
    });
    expect(first.runtime.agents.registry.find('late')).toBeUndefined();
    await asAdmin.call('bridge.registerMCPServer', {
      ...stdio('late'),
      env: { FIXTURE_SECRET: '${PLEXUS_TEST_FIXTURE_SECRET}' },
    });
    await asAdmin.call('bridge.registerMCPServer', {
      name: 'web',
      url: http.url,
      headers: { Authorization: 'Bearer ${PLEXUS_TEST_WEB_TOKEN}' },
    });
    expect(await asAdmin.call('mcp.late.secret', {})).toBe(sha256(envSecret));
    expect(await asAdmin.call('mcp.web.shout', { text: 'a' })).toEqual({ text: 'A' });
    expect([...authorizations]).toEqual([`Bearer ${headerSecret}`]);
    await asAdmin.close();
    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);

    // the log (and everything else in the data directory) holds neither secret, not even from
    // the refused calls; it holds the references
    const leaks: string[] = [];
    let references = false;
    for (const file of await readdir(dir, { recursive: true })) {
      const path = join(dir, file);
      if (!(await stat(path)).isFile()) continue;
      const bytes = await readFile(path);
      if (bytes.includes(envSecret) || bytes.includes(headerSecret)) leaks.push(file);
      if (bytes.includes('${PLEXUS_TEST_WEB_TOKEN}')) references = true;
    }
    expect(leaks).toEqual([]);
    expect(references).toBe(true);

    // after a restart both are bridged again with their secrets
    authorizations.clear();
    const second = await bridgeNode({ ...init, port: 0 }, ['mcp-bridge', 'late', 'web']);
    expect(await call(second, 'mcp.late.secret', {})).toMatchObject({ data: sha256(envSecret) });
    expect(await call(second, 'mcp.web.shout', { text: 'b' })).toMatchObject({ data: { text: 'B' } });
    expect([...authorizations]).toEqual([`Bearer ${headerSecret}`]);

    let listChanged = 0;
    const client = await connectMcpClient(second.url, {
      name: 'watcher',
      headers: { authorization: `Bearer ${admin.key}` },
      prepare: (c) => {
        c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          listChanged++;
        });
      },
    });
    clients.push(client);
    const toolNames = async () => (await client.listTools()).tools.map((t) => t.name);
    expect((await toolNames()).some((n) => n.endsWith('mcp.late.echo'))).toBe(true);

    // bad input: not privileged, not a name, unknown, configured — each refused, nothing changes
    const asUser = await rpc(second, user.key);
    await expect(asUser.call('bridge.unregisterMCPServer', { name: 'late' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await asUser.close();
    const admin2 = await rpc(second, admin.key);
    await expect(admin2.call('bridge.unregisterMCPServer', {})).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(admin2.call('bridge.unregisterMCPServer', { name: 7 })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(admin2.call('bridge.unregisterMCPServer', { name: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(
        /no MCP server named "nope" was registered at run time; registered: late, web/,
      ) as unknown,
    });
    await expect(admin2.call('bridge.unregisterMCPServer', { name: 'cfg' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/configured in plexus\.yaml/) as unknown,
    });
    expect(second.runtime.agents.registry.find('late')).toBeDefined();

    const pid = Number((await call(second, 'mcp.late.pid', {})).data);
    const seen = listChanged;
    expect(await admin2.call('bridge.unregisterMCPServer', { name: 'late' })).toMatchObject({
      name: 'late',
      verbs: expect.arrayContaining(['mcp.late.echo']) as unknown,
    });
    expect(second.runtime.agents.registry.find('late')).toBeUndefined();
    expect((await call(second, 'mcp.late.echo', { text: 'x' })).kind).toBe('error');
    await until(() => listChanged > seen, { what: 'tools/list_changed after the removal' });
    expect((await toolNames()).some((n) => n.includes('mcp.late.'))).toBe(false);
    await until(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'the unregistered server process gone' },
    );
    await expect(admin2.call('bridge.unregisterMCPServer', { name: 'late' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await admin2.close();
    await second.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(second), 1);

    // the removal survives a restart: web and cfg are bridged again, late is not
    const third = await bridgeNode({ ...init, port: 0 }, ['mcp-bridge', 'cfg', 'web']);
    expect(third.runtime.agents.registry.find('late')).toBeUndefined();
    expect(await call(third, 'mcp.web.shout', { text: 'c' })).toMatchObject({ data: { text: 'C' } });
    delete process.env['PLEXUS_TEST_FIXTURE_SECRET'];
    delete process.env['PLEXUS_TEST_WEB_TOKEN'];
  });

  it('refuses bad mcp configuration with a message naming the field', () => {
    expect(() => parseNodeConfig({ mcp: { servers: [{ name: 'a' }] } })).toThrow(
      /mcp\.servers\[0\].*exactly one of command .* and url/,
    );
    expect(() =>
      parseNodeConfig({ mcp: { servers: [{ name: 'a', url: 'http://h/mcp', args: ['x'] }] } }),
    ).toThrow(/mcp\.servers\[0\]\.args.*goes with command, not url/);
    expect(() => parseNodeConfig({ mcp: { servers: [{ name: 'Bad Name', command: 'x' }] } })).toThrow(
      /mcp\.servers\[0\]\.name.*lower case/,
    );
    expect(() => parseNodeConfig({ mcp: { servers: [stdio('a'), stdio('a')] } })).toThrow(
      /names a server twice: a/,
    );
    expect(() => parseNodeConfig({ mcp: { servers: [{ name: 'a', url: 'ftp://h' }] } })).toThrow(/http/);
    expect(parseNodeConfig({ mcp: { servers: [stdio('a')], register: true } }).mcp).toMatchObject({
      register: true,
    });
    expect(() => parseMcpServerEntry({ name: 'a', command: 'x', headers: {} })).toThrow(
      /headers go with url/,
    );
    expect(() => parseMcpServerEntry({ name: 'a', url: 'http://h', shell: true })).toThrow(
      /shell is not a field/,
    );
  });

  it('gives each HTTP request its own abort signal: the shared one gets one listener, however many calls', async () => {
    const http = await httpServer();
    servers.push(http.server);
    const shared = new AbortController();
    const wrapped = perRequestSignalFetch();
    for (let i = 0; i < 50; i++) {
      const res = await wrapped(http.url, { method: 'GET', signal: shared.signal });
      await res.arrayBuffer();
    }
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    // and the shared signal still aborts a request in flight
    const held = createServer(() => undefined);
    servers.push(held);
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const address = held.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const pending = wrapped(`http://127.0.0.1:${address.port}/`, { signal: shared.signal });
    shared.abort(new Error('closed'));
    await expect(pending).rejects.toThrow();
  });
});
