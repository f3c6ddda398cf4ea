/**
 * W3C trace context out of the bridges and into the MCP face's other methods (issue 16 item 1,
 * OBS-45 … OBS-48). One traced node on 127.0.0.1 (in-memory span exporter) bridges a stock MCP
 * SDK server (`McpServer` behind `StreamableHTTPServerTransport`) and a stock A2A SDK server
 * (`DefaultRequestHandler` behind `JsonRpcTransportHandler`), both written here and recording
 * the headers of every request they receive: a bridged call's request carries a `traceparent`
 * header in the caller's trace whose span is the node's CLIENT span for that request (HTTP
 * semantic conventions), and the caller's `tracestate`. MCP `resources/read`, `prompts/get` and
 * `completion/complete` run in a SERVER span under `_meta.traceparent` and hand the trace to the
 * agent's loader; a resource of the bridged server read that way reaches it in the same trace.
 * A second node forwarding over `peers:` carries the tracestate to the first. Malformed values
 * are ignored, never an error.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonValue } from '../../src/core/json.js';
import { createNode, defaultFaces, type Node } from '../../src/node/index.js';
import { INVOCATION_SPAN } from '../../src/observability/span-names.js';
import { defineAgent, type OfferingCaller } from '../../src/runtime/index.js';
import { prompt, resource } from '../../src/sdk/index.js';
import { a2aBridgeFace } from '../../src/transports/a2a-bridge/a2a-bridge-face.js';
import { mcpBridgeFace } from '../../src/transports/mcp-bridge/mcp-bridge-face.js';
import { request } from '../runtime/helpers.js';
import {
  echoExecutor,
  sdkAgentCard,
  startA2aSdkServer,
  type A2aSdkServer,
} from '../support/a2a-sdk-server.js';
import { connectMcpClient } from '../support/mcp-client.js';
import { startMcpSdkServer, type McpSdkServer } from '../support/mcp-sdk-server.js';
import { eventually, until } from '../support/until.js';

const META_FIXTURE = fileURLToPath(new URL('../fixtures/mcp-bridge/meta-server.mjs', import.meta.url));
const TRACE = '5bf92f3577b34da6a3ce929d0e0e4737';
const CALLER_SPAN = '10f067aa0ba902b8';
const CALLER = `00-${TRACE}-${CALLER_SPAN}-01`;
const STATE = 'vendor=abc,other@tenant=x1';
const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** The value `look` finds, once it finds one (bounded polling). */
function found<T>(what: string, look: () => T | undefined): Promise<T> {
  return eventually(what, () => Promise.resolve(look()));
}

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const traceOf = (s: ReadableSpan): string => s.spanContext().traceId;
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const stateOf = (s: ReadableSpan): string => s.spanContext().traceState?.serialize() ?? '';

/** One request an SDK server received. */
interface Received {
  readonly method: string;
  readonly path: string;
  readonly rpc?: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly meta?: Record<string, unknown>;
}

function seen(headers: IncomingHttpHeaders, rest: Omit<Received, 'traceparent' | 'tracestate'>): Received {
  const { traceparent, tracestate } = headers;
  return {
    ...rest,
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
  };
}

// ---- a stock MCP SDK server that records what it receives ----------------------------------

const mcpSeen: Received[] = [];

function mcpFixture(): McpServer {
  const server = new McpServer({ name: 'trace-fixture', version: '1.0.0' });
  server.registerTool(
    'shout',
    { description: 'upper-cases', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  server.registerResource('notes', 'http://fixture/notes', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'the notes' }],
  }));
  return server;
}

/** The MCP server, recording each request's headers, JSON-RPC method and `_meta`. */
function mcpServer(): Promise<McpSdkServer> {
  return startMcpSdkServer({
    server: mcpFixture,
    onRequest: (req, parsed) => {
      const message = (parsed ?? {}) as { method?: string; params?: { _meta?: Record<string, unknown> } };
      mcpSeen.push(
        seen(req.headers, {
          method: req.method ?? '',
          path: req.url ?? '',
          ...(message.method === undefined ? {} : { rpc: message.method }),
          ...(message.params?._meta === undefined ? {} : { meta: message.params._meta }),
        }),
      );
    },
  });
}

// ---- a stock A2A SDK server that records what it receives ----------------------------------

const a2aSeen: Received[] = [];
/** The metadata of each message the A2A agent was sent. */
const a2aMetadata: Record<string, unknown>[] = [];

/** An A2A SDK server answering with echoes, recording each request's headers and each message's metadata. */
function a2aServer(): Promise<A2aSdkServer> {
  return startA2aSdkServer({
    executor: echoExecutor({
      received: (ctx) => {
        a2aMetadata.push(ctx.userMessage.metadata ?? {});
      },
    }),
    card: (port) => sdkAgentCard({ port }),
    serveCard: true,
    intercept: (req) => {
      a2aSeen.push(seen(req.headers, { method: req.method ?? '', path: req.url ?? '' }));
      return false;
    },
  });
}

// ---- an agent whose resource, prompt and completer record the trace they ran in -------------

const callers: { what: string; caller: OfferingCaller }[] = [];

const notes = defineAgent({
  card: {
    id: 'notes',
    name: 'Notes',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'notes.echo', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({ 'notes.echo': (input: JsonValue) => ({ echoed: input }) }),
  resources: [
    resource(
      'notes://{id}/page',
      {
        name: 'page',
        complete: {
          id: (value, caller) => {
            callers.push({ what: 'complete', caller });
            return ['alpha', 'beta'].filter((v) => v.startsWith(value));
          },
        },
      },
      (_uri, { id }, caller) => {
        callers.push({ what: 'read', caller });
        return `page ${id ?? ''}`;
      },
    ),
  ],
  prompts: [
    prompt('greet', { arguments: [{ name: 'name', required: true }] }, (args, caller) => {
      callers.push({ what: 'prompt', caller });
      return `Hello ${args['name'] ?? ''}`;
    }),
  ],
});

// ---- the nodes ------------------------------------------------------------------------------

const dirs: string[] = [];
const servers: { close(): Promise<void> }[] = [];
let node: Node;
let exporter: InMemorySpanExporter;
let mcpUrl: string;
let a2aUrl: string;
/** What the node's start left: its spans, and what the A2A server saw (the card fetch). */
const startup: { spans: ReadableSpan[]; a2a: Received[] } = { spans: [], a2a: [] };

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-trace-out-'));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  const mcp = await mcpServer();
  const a2a = await a2aServer();
  servers.push(mcp, a2a);
  mcpUrl = mcp.url;
  a2aUrl = a2a.url;
  exporter = new InMemorySpanExporter();
  node = createNode({
    dataDir: await dataDir(),
    store: 'memory',
    host: '127.0.0.1',
    port: 0,
    dev: true,
    demo: false,
    primitives: false,
    agents: [notes],
    spanExporter: exporter,
    faces: [
      ...defaultFaces({ dev: true }),
      mcpBridgeFace({
        servers: [
          { name: 'sm', url: mcp.url },
          { name: 'ss', command: process.execPath, args: [META_FIXTURE] },
        ],
        register: true,
      }),
      a2aBridgeFace({ agents: [{ name: 'sa', url: a2a.url }], announce: { allowLoopback: true } }),
    ],
  });
  await node.start();
  await until(
    () =>
      node.runtime.agents.registry.find('sm') !== undefined &&
      node.runtime.agents.registry.find('ss') !== undefined &&
      node.runtime.agents.registry.find('sa') !== undefined,
    { what: 'the bridged agents hosted', limitMs: 30_000 },
  );
  await until(() => exporter.getFinishedSpans().some((s) => s.name === 'GET'), {
    what: 'the card fetch exported',
  });
  startup.spans = exporter.getFinishedSpans().slice();
  startup.a2a = a2aSeen.slice();
}, 60_000);

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  for (const s of servers.splice(0)) await s.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  exporter.reset();
  mcpSeen.length = 0;
  a2aSeen.length = 0;
  a2aMetadata.length = 0;
  callers.length = 0;
});

/** The verb the bridge made of `agent`'s first capability. */
function bridgedVerb(agent: string): string {
  return node.runtime.agents.registry.get(agent).capabilities[0]?.verb ?? '';
}

/** The span of `id`, once it was exported. */
function spanWithId(id: string | undefined): Promise<ReadableSpan> {
  return found(`span ${String(id)}`, () => exporter.getFinishedSpans().find((s) => idOf(s) === id));
}

/** Checks `got` is a CLIENT span (HTTP semconv) to `url` answered 200, in the caller's trace under `execute`. */
function expectClientSpan(client: ReadableSpan, url: string, parent: string): void {
  const target = new URL(url);
  expect(client.kind).toBe(SpanKind.CLIENT);
  expect(traceOf(client)).toBe(TRACE);
  expect(parentOf(client)).toBe(parent);
  expect(client.attributes).toMatchObject({
    'http.request.method': 'POST',
    'url.full': `${target.origin}${target.pathname}`,
    'server.address': '127.0.0.1',
    'server.port': Number(target.port),
    'http.response.status_code': 200,
  });
  expect(stateOf(client)).toBe(STATE);
}

describe('the bridges send W3C trace context on their HTTP requests', () => {
  it('MCP bridge: tools/call carries traceparent (its CLIENT span) and tracestate headers and _meta', async () => {
    const verb = bridgedVerb('sm');
    const { envelope } = await node.runtime.invoke(
      request(verb, { text: 'hi' }, `capability:${verb}`, { traceparent: CALLER, tracestate: STATE }),
      { face: 'internal' },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    const call = mcpSeen.find((r) => r.rpc === 'tools/call');
    expect(call).toBeDefined();
    const header = W3C.exec(call?.traceparent ?? '');
    expect(header?.[1]).toBe(TRACE); // the far side's header carries the caller's trace id
    expect(call?.tracestate).toBe(STATE);
    const client = await spanWithId(header?.[2]);
    const invocation = await found('the invocation', () =>
      exporter
        .getFinishedSpans()
        .find((s) => s.name === INVOCATION_SPAN && s.attributes['agentese.verb'] === verb),
    );
    const execute = await found('the execute span', () =>
      exporter
        .getFinishedSpans()
        .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(invocation)),
    );
    expectClientSpan(client, mcpUrl, idOf(execute));
    // OBS-67: the message's own _meta names the same CLIENT span as the header, and the tracestate
    expect(call?.meta?.['traceparent']).toBe(`00-${TRACE}-${idOf(client)}-01`);
    expect(call?.meta?.['traceparent']).toBe(call?.traceparent);
    expect(call?.meta?.['tracestate']).toBe(STATE);
  });

  it('MCP bridge over stdio: tools/call is a CLIENT span of the execute span, named by _meta (OBS-67)', async () => {
    const verb = bridgedVerb('ss');
    const { envelope } = await node.runtime.invoke(
      request(verb, {}, `capability:${verb}`, { traceparent: CALLER, tracestate: STATE }),
      { face: 'internal' },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    const meta = JSON.parse(envelope.data as string) as Record<string, unknown>;
    const named = W3C.exec(String(meta['traceparent']));
    expect(named?.[1]).toBe(TRACE);
    expect(meta['tracestate']).toBe(STATE);
    const client = await spanWithId(named?.[2]);
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.name).toBe('tools/call meta');
    expect(client.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'meta',
      'rpc.system': 'jsonrpc',
      'network.transport': 'pipe',
    });
    expect(stateOf(client)).toBe(STATE);
    const execute = await spanWithId(parentOf(client));
    expect(execute.name).toBe('runtime.execute');
    expect(traceOf(client)).toBe(TRACE);
  });

  it('bridge.registerMCPServer: the connect and the lists are CLIENT spans of the registering call (OBS-68)', async () => {
    const other = await mcpServer();
    servers.push(other);
    mcpSeen.length = 0;
    const { envelope } = await node.runtime.invoke(
      request(
        'bridge.register_mcp_server',
        { name: 'registered', url: other.url },
        'capability:bridge.register_mcp_server',
        { traceparent: CALLER, tracestate: STATE },
      ),
      { face: 'internal', principal: { id: 'admin', kind: 'local' } },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    const invocation = await found('the registering invocation', () =>
      exporter
        .getFinishedSpans()
        .find(
          (s) => s.name === INVOCATION_SPAN && s.attributes['agentese.verb'] === 'bridge.register_mcp_server',
        ),
    );
    expect(parentOf(invocation)).toBe(CALLER_SPAN);
    const execute = await found('the execute span', () =>
      exporter
        .getFinishedSpans()
        .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(invocation)),
    );
    for (const rpc of ['initialize', 'tools/list']) {
      const sent = mcpSeen.find((r) => r.rpc === rpc);
      const header = W3C.exec(sent?.traceparent ?? '');
      expect(header?.[1], rpc).toBe(TRACE); // the registering call's trace, not a new one
      expect(sent?.tracestate, rpc).toBe(STATE);
      const client = await spanWithId(header?.[2]);
      expectClientSpan(client, other.url, idOf(execute));
    }
    // a call of the registered server's tool afterwards is a trace of its own
    mcpSeen.length = 0;
    const verb = bridgedVerb('registered');
    const called = await node.runtime.invoke(request(verb, { text: 'later' }, `capability:${verb}`), {
      face: 'internal',
    });
    expect(called.envelope.kind, JSON.stringify(called.envelope.data)).toBe('response');
    const call = mcpSeen.find((r) => r.rpc === 'tools/call');
    expect(W3C.exec(call?.traceparent ?? '')?.[1]).not.toBe(TRACE);
  });

  it('A2A bridge: message/send carries the headers and the metadata; card fetches are CLIENT spans', async () => {
    const verb = bridgedVerb('sa');
    const { envelope } = await node.runtime.invoke(
      request(verb, 'hello', `capability:${verb}`, { traceparent: CALLER, tracestate: STATE }),
      { face: 'internal' },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    const post = a2aSeen.find((r) => r.method === 'POST');
    const header = W3C.exec(post?.traceparent ?? '');
    expect(header?.[1]).toBe(TRACE);
    expect(post?.tracestate).toBe(STATE);
    const client = await spanWithId(header?.[2]);
    const execute = await spanWithId(parentOf(client));
    expect(execute.name).toBe('runtime.execute');
    expectClientSpan(client, `${a2aUrl}/rpc`, idOf(execute));
    // OBS-58: the metadata names the same CLIENT span as the header (the far side's spans are its
    // children whichever it reads)
    expect(a2aMetadata[0]).toMatchObject({
      traceparent: `00-${TRACE}-${idOf(client)}-01`,
      tracestate: STATE,
    });
    expect(a2aMetadata[0]?.['traceparent']).toBe(post?.traceparent);
  });

  it('bridge.announceA2AAgent: the card fetch is a CLIENT span of the announcing call (OBS-59)', async () => {
    const other = await a2aServer();
    servers.push(other);
    a2aSeen.length = 0;
    const { envelope } = await node.runtime.invoke(
      request(
        'bridge.announce_a2a_agent',
        { url: other.url, name: 'announced' },
        'capability:bridge.announce_a2a_agent',
        { traceparent: CALLER, tracestate: STATE },
      ),
      { face: 'internal', principal: { id: 'admin', kind: 'local' } },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    const fetch = a2aSeen.find((r) => r.method === 'GET' && r.path === '/.well-known/agent-card.json');
    const header = W3C.exec(fetch?.traceparent ?? '');
    expect(header?.[1]).toBe(TRACE); // the announcing call's trace, not a new one
    expect(fetch?.tracestate).toBe(STATE);
    const client = await spanWithId(header?.[2]);
    const execute = await spanWithId(parentOf(client));
    expect(execute.name).toBe('runtime.execute');
    const invocation = await spanWithId(parentOf(execute));
    expect(invocation.name).toBe(INVOCATION_SPAN);
    expect(invocation.attributes['agentese.verb']).toBe('bridge.announce_a2a_agent');
    expect(parentOf(invocation)).toBe(CALLER_SPAN);
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.full': `${other.url}/.well-known/agent-card.json`,
      'http.response.status_code': 200,
    });
    expect(stateOf(client)).toBe(STATE);
    // a call of the announced agent's verb is a trace of its own, not the announcement's
    exporter.reset();
    a2aSeen.length = 0;
    const verb = bridgedVerb('announced');
    const called = await node.runtime.invoke(request(verb, 'again', `capability:${verb}`), {
      face: 'internal',
    });
    expect(called.envelope.kind, JSON.stringify(called.envelope.data)).toBe('response');
    const post = a2aSeen.find((r) => r.method === 'POST');
    expect(W3C.exec(post?.traceparent ?? '')?.[1]).not.toBe(TRACE);
  });

  it('card fetches are CLIENT spans too, named by their traceparent header', () => {
    const card = startup.a2a.find((r) => r.method === 'GET' && r.path === '/.well-known/agent-card.json');
    const header =
      W3C.exec(card?.traceparent ?? '') ??
      /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/.exec(card?.traceparent ?? '');
    expect(header).not.toBeNull();
    const client = startup.spans.find((s) => idOf(s) === header?.[2]);
    expect(client?.kind).toBe(SpanKind.CLIENT);
    expect(client?.name).toBe('GET');
    expect(client?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.full': `${a2aUrl}/.well-known/agent-card.json`,
      'http.response.status_code': 200,
    });
    expect(client === undefined ? 'none' : parentOf(client)).toBeUndefined(); // outside any call: its own trace
  });

  it('a malformed tracestate is dropped from the headers; the trace is kept', async () => {
    const verb = bridgedVerb('sm');
    for (const bad of ['BAD KEY=1', 'a=1,a=2', `k=${'v'.repeat(600)}`]) {
      mcpSeen.length = 0;
      const { envelope } = await node.runtime.invoke(
        // a new text each time: an identical call may be answered without a new request
        request(verb, { text: bad }, `capability:${verb}`, { traceparent: CALLER, tracestate: bad }),
        { face: 'internal' },
      );
      expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
      const call = mcpSeen.find((r) => r.rpc === 'tools/call');
      expect(W3C.exec(call?.traceparent ?? '')?.[1], bad).toBe(TRACE);
      expect(call?.tracestate).toBeUndefined();
      expect(call?.meta?.['tracestate']).toBeUndefined();
    }
  });
});

describe('MCP resources/read, prompts/get, completion/complete continue _meta.traceparent', () => {
  const mcpClient = () => connectMcpClient(node.url, { name: 'trace-test' });

  /** The MCP SERVER span of `method`, once exported. */
  function mcpSpan(method: string): Promise<ReadableSpan> {
    return found(`the ${method} span`, () =>
      exporter
        .getFinishedSpans()
        .find((s) => s.kind === SpanKind.SERVER && s.attributes['mcp.method.name'] === method),
    );
  }

  it('runs each in a SERVER span under the caller’s span, and the loader gets the trace', async () => {
    const client = await mcpClient();
    try {
      const meta = { traceparent: CALLER, tracestate: STATE };
      const read = await client.readResource({ uri: 'notes://one/page', _meta: meta });
      expect(read.contents[0]).toMatchObject({ text: 'page one' });
      const got = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' }, _meta: meta });
      expect(JSON.stringify(got.messages)).toContain('Hello Ada');
      const done = await client.complete({
        ref: { type: 'ref/resource', uri: 'notes://{id}/page' },
        argument: { name: 'id', value: 'al' },
        _meta: meta,
      });
      expect(done.completion.values).toEqual(['alpha']);

      for (const [method, what] of [
        ['resources/read', 'read'],
        ['prompts/get', 'prompt'],
        ['completion/complete', 'complete'],
      ] as const) {
        const span = await mcpSpan(method);
        expect(traceOf(span), method).toBe(TRACE);
        expect(parentOf(span), method).toBe(CALLER_SPAN);
        expect(stateOf(span), method).toBe(STATE);
        expect(span.attributes).toMatchObject({ 'rpc.system': 'jsonrpc', 'rpc.method': method });
        const caller = callers.find((c) => c.what === what)?.caller;
        expect(caller?.traceparent, what).toBe(`00-${TRACE}-${idOf(span)}-01`);
        expect(caller?.tracestate, what).toBe(STATE);
      }
      expect((await mcpSpan('resources/read')).attributes['mcp.resource.uri']).toBe('notes://one/page');
      expect((await mcpSpan('prompts/get')).name).toBe('prompts/get greet');
    } finally {
      await client.close();
    }
  });

  it('a failure ends the span with its error; a malformed _meta falls back to the HTTP request’s span', async () => {
    const client = await mcpClient();
    try {
      await expect(
        client.getPrompt({ name: 'no-such-prompt', _meta: { traceparent: CALLER } }),
      ).rejects.toThrow();
      const failed = await mcpSpan('prompts/get');
      expect(parentOf(failed)).toBe(CALLER_SPAN);
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      expect(typeof failed.attributes['rpc.jsonrpc.error_code']).toBe('number');

      for (const bad of ['00-zz-not-a-trace', 42, { x: 1 }]) {
        exporter.reset();
        const read = await client.readResource({
          uri: 'notes://two/page',
          _meta: { traceparent: bad },
        });
        expect(read.contents[0]).toMatchObject({ text: 'page two' }); // never an error
        const span = await mcpSpan('resources/read');
        expect(traceOf(span)).not.toBe(TRACE);
        const post = await spanWithId(parentOf(span));
        expect(post.name).toBe('POST /mcp');
      }
    } finally {
      await client.close();
    }
  });

  it('a bridged server’s resource read in a trace reaches it in that trace (header and _meta)', async () => {
    const client = await mcpClient();
    try {
      const read = await client.readResource({
        uri: 'http://fixture/notes',
        _meta: { traceparent: CALLER, tracestate: STATE },
      });
      expect(read.contents[0]).toMatchObject({ text: 'the notes' });
      const span = await mcpSpan('resources/read');
      const far = mcpSeen.find((r) => r.rpc === 'resources/read');
      const header = W3C.exec(far?.traceparent ?? '');
      expect(header?.[1]).toBe(TRACE);
      expect(far?.tracestate).toBe(STATE);
      const client2 = await spanWithId(header?.[2]);
      expect(client2.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(client2)).toBe(idOf(span));
      expect(far?.meta?.['traceparent']).toBe(`00-${TRACE}-${idOf(span)}-01`);
    } finally {
      await client.close();
    }
  });
});

describe('tracestate over an HTTP peer hop', () => {
  it('the forwarding node sends it (header and envelope); the far node keeps it in its spans', async () => {
    const nearExporter = new InMemorySpanExporter();
    const near = createNode({
      dataDir: await dataDir(),
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      demo: false,
      primitives: false,
      agents: [],
      peers: [{ url: node.url }],
      peerPollMs: 100,
      spanExporter: nearExporter,
    });
    await near.start();
    try {
      await until(() => near.runtime.agents.registry.byCapability('notes.echo').length > 0, {
        what: 'the near node to learn notes.echo',
        limitMs: 30_000,
      });
      exporter.reset();
      const answer = await fetch(`${near.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: CALLER, tracestate: STATE },
        body: JSON.stringify({
          esrp_version: '1.0',
          request_id: randomUUID(),
          timestamp: new Date().toISOString(),
          caller: { system: 'test' },
          target: { service: 'notes', operation: 'echo' },
          inputs: [{ name: 'input', content_type: 'application/json', data: '{"n":1}', encoding: 'utf-8' }],
        }),
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      expect(answer.headers.get('tracestate')).toBe(STATE);
      const far = await found('the far invocation', () =>
        exporter
          .getFinishedSpans()
          .find((s) => s.name === INVOCATION_SPAN && s.attributes['agentese.verb'] === 'notes.echo'),
      );
      expect(traceOf(far)).toBe(TRACE);
      expect(stateOf(far)).toBe(STATE);
      const route = await found('the far peer route span', () =>
        exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.name.includes('/v1/peer')),
      );
      expect(stateOf(route)).toBe(STATE); // from the tracestate header
      const hop = await found('the near hop', () =>
        nearExporter.getFinishedSpans().find((s) => s.name === 'routing.forward'),
      );
      expect(stateOf(hop)).toBe(STATE);
    } finally {
      await near.stop({ drainMs: 0 });
    }
  });
});
