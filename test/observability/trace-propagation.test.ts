/**
 * W3C trace context across faces and hops (issue 16 item 1): two in-process nodes on
 * 127.0.0.1, each with an in-memory span exporter. A call given a caller's `traceparent` per
 * message — WebSocket JSON-RPC `params._meta`, MCP `tools/call` `_meta`, A2A message
 * `metadata` — runs in that trace; a malformed one starts a new trace and is never an error.
 * One call entering the near node and running on the far one through the A2A and the MCP
 * bridges (the far node's own faces) is one trace: the near node's execute span is the
 * parent of the far node's invocation. Effect handlers run in spans of their own.
 * Two nodes, started once for the file (loopback HTTP only, no process spawned).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { PlexusError } from '../../src/core/errors.js';
import type { JsonValue } from '../../src/core/json.js';
import { createNode, defaultFaces, type Node } from '../../src/node/index.js';
import { INVOCATION_SPAN } from '../../src/observability/span-names.js';
import { PARENT_SPAN_EXTENSION, defineAgent, type HandlerContext } from '../../src/runtime/index.js';
import { createPlexus, agent as sdkAgent, verb as sdkVerb } from '../../src/sdk/index.js';
import { a2aBridgeFace } from '../../src/transports/a2a-bridge/a2a-bridge-face.js';
import { mcpBridgeFace } from '../../src/transports/mcp-bridge/mcp-bridge-face.js';
import { wsJsonRpcClient } from '../../src/transports/ws-jsonrpc/client.js';
import { request, spec } from '../runtime/helpers.js';
import { connectMcpClient } from '../support/mcp-client.js';
import { eventually, until } from '../support/until.js';

/** The value `look` finds, once it finds one (bounded polling). */
function found<T>(what: string, look: () => T | undefined): Promise<T> {
  return eventually(what, () => Promise.resolve(look()));
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const CALLER = `00-${TRACE}-${CALLER_SPAN}-01`;
const MALFORMED = ['00-zz-not-a-trace', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, 42, { x: 1 }] as const;
/** A caller's W3C tracestate, and values that must be dropped (never an error). */
const STATE = 'vendor=abc,other@tenant=x1';
const MALFORMED_STATES = [
  'BAD KEY=1',
  'a=1,a=2', // a key twice
  Array.from({ length: 33 }, (_, i) => `k${String(i)}=v`).join(','), // 33 members
  `k=${'v'.repeat(600)}`, // too long
  'k=va\nlue',
  7,
] as const;

/** A verb that answers the span it ran in and its input; declared `audits` (an effect with an after phase). */
const probe = defineAgent({
  card: {
    id: 'probe',
    name: 'Probe',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'demo.probe', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'demo.fail', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  verbs: [
    spec('demo.probe', {
      input: { type: 'object' },
      output: { type: 'object' },
      effects: { audits: ['probe'] },
      deterministic: false,
    }),
    spec('demo.fail', { input: { type: 'object' }, output: { type: 'object' }, deterministic: false }),
  ],
  create: () => ({
    'demo.probe': (input: JsonValue, ctx: HandlerContext) => ({
      traceparent: ctx.traceparent ?? null,
      input,
    }),
    'demo.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'not today');
    },
  }),
});

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const traceOf = (s: ReadableSpan): string => s.spanContext().traceId;
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const stateOf = (s: ReadableSpan): string => s.spanContext().traceState?.serialize() ?? '';

interface Traced {
  readonly node: Node;
  readonly exporter: InMemorySpanExporter;
}

const dirs: string[] = [];
async function tracedNode(extra: (init: { dev: true }) => Parameters<typeof createNode>[0] = () => ({})) {
  const dataDir = await mkdtemp(join(tmpdir(), 'plexus-trace-prop-'));
  dirs.push(dataDir);
  const exporter = new InMemorySpanExporter();
  const node = createNode({
    dataDir,
    store: 'memory',
    host: '127.0.0.1',
    port: 0,
    dev: true,
    demo: false,
    primitives: false,
    agents: [probe],
    spanExporter: exporter,
    ...extra({ dev: true }),
  });
  await node.start();
  return { node, exporter };
}

/** The JSON-RPC SERVER span `id`, once it was exported. */
function rpcServerSpan(t: Traced, id: string | undefined): Promise<ReadableSpan> {
  return found(`the JSON-RPC server span ${String(id)}`, () =>
    t.exporter
      .getFinishedSpans()
      .find((s) => idOf(s) === id && s.kind === SpanKind.SERVER && s.attributes['rpc.system'] === 'jsonrpc'),
  );
}

/** The invocation span of the call of `verb` on `t` by face, once it was exported. */
async function invocationOf(t: Traced, face: string, verb = 'demo.probe'): Promise<ReadableSpan> {
  return found(`the ${face} invocation of ${verb}`, () =>
    t.exporter
      .getFinishedSpans()
      .find(
        (s) =>
          s.name === INVOCATION_SPAN &&
          s.attributes['plexus.face'] === face &&
          s.attributes['agentese.verb'] === verb,
      ),
  );
}

/** The MCP `tools/call` SERVER span on `t`, once it was exported. */
function toolCallSpan(t: Traced): Promise<ReadableSpan> {
  return found('the tools/call SERVER span', () =>
    t.exporter
      .getFinishedSpans()
      .find((s) => s.kind === SpanKind.SERVER && s.attributes['mcp.method.name'] === 'tools/call'),
  );
}

let far: Traced;
let near: Traced;

beforeAll(async () => {
  far = await tracedNode();
  near = await tracedNode(() => ({
    agents: [],
    faces: [
      ...defaultFaces({ dev: true }),
      a2aBridgeFace({ agents: [{ name: 'fa', url: far.node.url }] }),
      mcpBridgeFace({ servers: [{ name: 'fm', url: `${far.node.url}/mcp` }] }),
    ],
  }));
  await until(
    () =>
      near.node.runtime.agents.registry.find('fa') !== undefined &&
      near.node.runtime.agents.registry.find('fm') !== undefined,
    { what: 'the bridged agents hosted', limitMs: 30_000 },
  );
}, 60_000);

afterAll(async () => {
  await near.node.stop({ drainMs: 0 });
  await far.node.stop({ drainMs: 0 });
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  far.exporter.reset();
  near.exporter.reset();
});

describe('a traceparent per message continues the caller’s trace', () => {
  it('WebSocket JSON-RPC: a SERVER span per call under params._meta.traceparent, taken out of the input', async () => {
    const client = await wsJsonRpcClient({ url: `${far.node.url.replace('http', 'ws')}/rpc` });
    try {
      const out = (await client.call('demo.probe', { x: 1 }, { traceparent: CALLER, tracestate: STATE })) as {
        traceparent: string;
        input: JsonValue;
      };
      expect(out.input).toEqual({ x: 1 });
      const invocation = await invocationOf(far, 'hyperspace');
      expect(traceOf(invocation)).toBe(TRACE);
      // OBS-46: the call's SERVER span (RPC conventions) is the caller's child, the invocation its child
      const server = await rpcServerSpan(far, parentOf(invocation));
      expect(parentOf(server)).toBe(CALLER_SPAN);
      expect(traceOf(server)).toBe(TRACE);
      expect(server.name).toBe('demo.probe');
      expect(server.attributes).toMatchObject({
        'rpc.system': 'jsonrpc',
        'rpc.method': 'demo.probe',
        'rpc.jsonrpc.version': '2.0',
      });
      expect(typeof server.attributes['rpc.jsonrpc.request_id']).toBe('string');
      expect(server.status.code).toBe(SpanStatusCode.UNSET);
      // OBS-45: the caller's tracestate is kept in the span contexts of the call's spans
      expect(server.spanContext().traceState?.serialize()).toBe(STATE);
      expect(invocation.spanContext().traceState?.serialize()).toBe(STATE);
      // the handler runs in the execute span, a child of the invocation, in the caller's trace
      const execute = far.exporter
        .getFinishedSpans()
        .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(invocation));
      expect(out.traceparent).toBe(`00-${TRACE}-${execute === undefined ? '?' : idOf(execute)}-01`);
      expect(execute?.spanContext().traceState?.serialize()).toBe(STATE);

      for (const bad of MALFORMED) {
        far.exporter.reset();
        const answer = (await client.call('demo.probe', { x: 2, _meta: { traceparent: bad } })) as {
          input: JsonValue;
        };
        expect(answer.input).toEqual({ x: 2 }); // never an error, never part of the input
        const fresh = await invocationOf(far, 'hyperspace');
        expect(traceOf(fresh)).not.toBe(TRACE);
        const root = await rpcServerSpan(far, parentOf(fresh));
        expect(parentOf(root)).toBeUndefined(); // a new trace, started by the call's server span
      }
      // a malformed tracestate beside a valid traceparent is dropped; the trace is kept
      for (const bad of MALFORMED_STATES) {
        far.exporter.reset();
        await client.call('demo.probe', { x: 3, _meta: { traceparent: CALLER, tracestate: bad } });
        const invocation2 = await invocationOf(far, 'hyperspace');
        expect(traceOf(invocation2)).toBe(TRACE);
        expect(invocation2.spanContext().traceState?.serialize() ?? '').toBe('');
      }
    } finally {
      await client.close();
    }
  });

  it('WebSocket JSON-RPC: a failed call’s span has the error code; without _meta, the upgrade’s trace', async () => {
    const ws = new WebSocket(`${far.node.url.replace('http', 'ws')}/rpc`, {
      headers: { traceparent: CALLER, tracestate: STATE },
    });
    const answers = new Map<number, unknown>();
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: number };
      if (typeof message.id === 'number') answers.set(message.id, message);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => {
          resolve();
        });
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'no.such.verb', params: {} }));
      await until(() => answers.has(7), { what: 'the answer to call 7' });
      const failed = await found('the failed call’s server span', () =>
        far.exporter.getFinishedSpans().find((s) => s.attributes['rpc.method'] === 'no.such.verb'),
      );
      expect(parentOf(failed)).toBe(CALLER_SPAN); // the caller's span the upgrade named
      expect(traceOf(failed)).toBe(TRACE);
      expect(failed.spanContext().traceState?.serialize()).toBe(STATE);
      expect(failed.attributes).toMatchObject({
        'rpc.jsonrpc.request_id': '7',
        'rpc.jsonrpc.error_code': -32601,
        'error.type': 'UNKNOWN_VERB',
      });
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);

      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'demo.probe', params: { q: 1 } }));
      await until(() => answers.has(8), { what: 'the answer to call 8' });
      const invocation = await invocationOf(far, 'hyperspace');
      const server = await rpcServerSpan(far, parentOf(invocation));
      expect(parentOf(server)).toBe(CALLER_SPAN);
      expect(server.attributes['rpc.jsonrpc.request_id']).toBe('8');
    } finally {
      ws.close();
    }
  });

  it('MCP: tools/call is a SERVER span under _meta.traceparent, parent of the invocation; else under the HTTP request’s span', async () => {
    const client = await connectMcpClient(far.node.url);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name.endsWith('demo.probe'));
      expect(tool).toBeDefined();
      const name = tool?.name ?? '';
      const result = await client.callTool({
        name,
        arguments: { y: 1 },
        _meta: { traceparent: CALLER, tracestate: STATE },
      });
      expect(result.isError).not.toBe(true);
      const invocation = await invocationOf(far, 'mcp');
      const server = await toolCallSpan(far);
      expect(traceOf(server)).toBe(TRACE);
      expect(parentOf(server)).toBe(CALLER_SPAN);
      expect(server.name).toBe(`tools/call ${name}`);
      expect(server.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'rpc.system': 'jsonrpc',
        'rpc.method': 'tools/call',
        'rpc.jsonrpc.version': '2.0',
        'gen_ai.tool.name': name,
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(typeof server.attributes['rpc.jsonrpc.request_id']).toBe('string');
      expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(stateOf(server)).toBe(STATE);
      expect(traceOf(invocation)).toBe(TRACE);
      expect(parentOf(invocation)).toBe(idOf(server)); // OBS-57: the invocation is the server span's child
      expect(stateOf(invocation)).toBe(STATE);

      for (const bad of MALFORMED) {
        far.exporter.reset();
        const answer = await client.callTool({ name, arguments: { y: 2 }, _meta: { traceparent: bad } });
        expect(answer.isError).not.toBe(true);
        const fresh = await invocationOf(far, 'mcp');
        const freshServer = await toolCallSpan(far);
        expect(traceOf(freshServer)).not.toBe(TRACE);
        expect(parentOf(fresh)).toBe(idOf(freshServer));
        const post = await found('the HTTP server span of the POST, parent of the tools/call span', () =>
          far.exporter
            .getFinishedSpans()
            .find((s) => s.name === 'POST /mcp' && idOf(s) === parentOf(freshServer)),
        );
        expect(traceOf(post)).toBe(traceOf(fresh));
      }
    } finally {
      await client.close();
    }
  });

  it('MCP: a tools/call that fails (an unknown tool, a failed verb) ends its SERVER span with the error', async () => {
    const client = await connectMcpClient(far.node.url);
    try {
      const unknown = await client.callTool({
        name: 'no_such_tool',
        arguments: {},
        _meta: { traceparent: CALLER },
      });
      expect(unknown.isError).toBe(true);
      const span = await toolCallSpan(far);
      expect(parentOf(span)).toBe(CALLER_SPAN);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['error.type']).toBe('UNKNOWN_VERB');
      expect(span.attributes['rpc.jsonrpc.error_code']).toBeUndefined(); // a result, not a JSON-RPC error

      far.exporter.reset();
      const tool = (await client.listTools()).tools.find((t) => t.name.endsWith('demo.fail'));
      const failed = await client.callTool({
        name: tool?.name ?? '',
        arguments: {},
        _meta: { traceparent: CALLER },
      });
      expect(failed.isError).toBe(true);
      const failedSpan = await toolCallSpan(far);
      expect(failedSpan.status.code).toBe(SpanStatusCode.ERROR);
      expect(failedSpan.attributes['error.type']).toBe('PRECONDITION_FAILED');
      expect(failedSpan.status.message).toContain('not today');
      const invocation = await invocationOf(far, 'mcp', 'demo.fail');
      expect(parentOf(invocation)).toBe(idOf(failedSpan));
    } finally {
      await client.close();
    }
  });

  it('A2A: message metadata traceparent; a malformed one is ignored', async () => {
    const client = await new ClientFactory().createFromUrl(far.node.url);
    const message = (metadata: Record<string, unknown>): Message => ({
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'data', value: { verb: 'demo.probe', input: { z: 1 } } },
          metadata: undefined,
          filename: '',
          mediaType: '',
        },
      ],
      metadata,
      extensions: [],
      referenceTaskIds: [],
    });
    const send = (metadata: Record<string, unknown>) =>
      client.sendMessage({
        tenant: '',
        message: message(metadata),
        configuration: undefined,
        metadata: undefined,
      });
    await send({ traceparent: CALLER });
    const invocation = await invocationOf(far, 'a2a');
    expect(traceOf(invocation)).toBe(TRACE);
    expect(parentOf(invocation)).toBe(CALLER_SPAN);
    for (const bad of MALFORMED) {
      far.exporter.reset();
      await send({ traceparent: bad });
      const fresh = await invocationOf(far, 'a2a');
      expect(traceOf(fresh)).not.toBe(TRACE);
      expect(parentOf(fresh)).toBeDefined(); // the HTTP request's server span
    }
  });
});

describe('one call across two nodes is one trace', () => {
  for (const [bridge, face] of [
    ['fa', 'a2a'],
    ['fm', 'mcp'],
  ] as const) {
    it(`through the ${face} bridge: the far invocation is a child of the near execute span`, async () => {
      const verb =
        near.node.runtime.agents.registry.get(bridge).capabilities.find((c) => c.verb.endsWith('probe'))
          ?.verb ?? '';
      const { envelope } = await near.node.runtime.invoke(
        request(verb, { w: 1 }, `capability:${verb}`, { traceparent: CALLER }),
        { face: 'internal' },
      );
      expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
      const nearInvocation = await invocationOf(near, 'internal', verb);
      expect(traceOf(nearInvocation)).toBe(TRACE);
      expect(parentOf(nearInvocation)).toBe(CALLER_SPAN);
      const nearExecute = await found('the near execute span', () =>
        near.exporter
          .getFinishedSpans()
          .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(nearInvocation)),
      );
      const farInvocation = await invocationOf(far, face);
      expect(traceOf(farInvocation)).toBe(TRACE);
      // OBS-58, OBS-67: the message (A2A metadata, MCP `_meta`) and the header both name the near
      // CLIENT span of the POST
      const nearClient = await found('the near CLIENT span', () =>
        near.exporter
          .getFinishedSpans()
          .find((s) => s.kind === SpanKind.CLIENT && parentOf(s) === idOf(nearExecute)),
      );
      expect(traceOf(nearClient)).toBe(TRACE);
      const farHttp = await found('the far HTTP SERVER span', () =>
        far.exporter
          .getFinishedSpans()
          .find(
            (s) =>
              s.kind === SpanKind.SERVER &&
              s.attributes['http.request.method'] === 'POST' &&
              traceOf(s) === TRACE,
          ),
      );
      expect(parentOf(farHttp)).toBe(idOf(nearClient));
      if (face === 'a2a') expect(parentOf(farInvocation)).toBe(idOf(nearClient));
      else {
        // OBS-57: the far tools/call SERVER span is under the span `_meta` names
        const farServer = await toolCallSpan(far);
        expect(traceOf(farServer)).toBe(TRACE);
        expect(parentOf(farServer)).toBe(idOf(nearClient));
        expect(parentOf(farInvocation)).toBe(idOf(farServer));
      }
      // the far steps are the far invocation's children, in the same trace
      const farSteps = far.exporter.getFinishedSpans().filter((s) => parentOf(s) === idOf(farInvocation));
      expect(farSteps.map((s) => s.name)).toContain('runtime.execute');
      for (const s of farSteps) expect(traceOf(s), s.name).toBe(TRACE);
      // the far handler ran in the far execute span, in the same trace
      const output = envelope.data as { traceparent?: string } | string;
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      expect(text).toContain(`00-${TRACE}-`);
    });
  }

  it('runs each effect handler phase in a span under the execute span', async () => {
    await near.node.runtime.invoke(
      request('demo.probe', {}, 'capability:demo.probe', { traceparent: CALLER }),
      {
        face: 'internal',
      },
    );
    // near has no probe: ask the far node directly
    await far.node.runtime.invoke(
      request('demo.probe', {}, 'capability:demo.probe', { traceparent: CALLER }),
      {
        face: 'internal',
      },
    );
    const invocation = await invocationOf(far, 'internal');
    const execute = await found('the execute span', () =>
      far.exporter
        .getFinishedSpans()
        .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(invocation)),
    );
    const effect = await found('the audits effect span', () =>
      far.exporter.getFinishedSpans().find((s) => s.name === 'effect.audits'),
    );
    expect(parentOf(effect)).toBe(idOf(execute));
    expect(traceOf(effect)).toBe(TRACE);
    expect(effect.attributes).toMatchObject({ 'plexus.effect': 'audits', 'plexus.phase': 'after' });
  });
});

describe('a nested ctx.invoke carries the trace and its tracestate on (OBS-56)', () => {
  it('the child invocation keeps the caller’s tracestate, under the outer execute span; a malformed one is dropped', async () => {
    const inner: Envelope[] = [];
    const plexus = createPlexus({ node: far.node });
    await plexus.register(
      sdkAgent('nest', [
        sdkVerb('nest.outer', { input: { type: 'object' }, output: true }, (input, ctx) =>
          ctx.invoke('nest.inner', input),
        ),
        sdkVerb('nest.inner', { input: { type: 'object' }, output: true }, (_input, ctx) => {
          inner.push(ctx.envelope);
          return { ok: true };
        }),
      ]),
    );
    await plexus.invoke('nest.outer', { n: 1 }, { traceparent: CALLER, tracestate: STATE });
    const outer = await invocationOf(far, 'sdk', 'nest.outer');
    expect(traceOf(outer)).toBe(TRACE);
    expect(stateOf(outer)).toBe(STATE);
    const outerExecute = await found('the outer execute span', () =>
      far.exporter
        .getFinishedSpans()
        .find((s) => s.name === 'runtime.execute' && parentOf(s) === idOf(outer)),
    );
    const child = await invocationOf(far, 'sdk', 'nest.inner');
    expect(traceOf(child)).toBe(TRACE);
    expect(stateOf(child)).toBe(STATE); // the gap: only the traceparent went on before
    const sent = inner[0];
    expect(sent?.tracestate).toBe(STATE);
    // the child call is a span of the outer handler's (its execute span), named in the extension
    expect(sent?.extensions?.[PARENT_SPAN_EXTENSION]).toBe(idOf(outerExecute));
    expect(parentOf(child)).toBe(sent?.traceparent?.split('-')[2]);
    const childSteps = far.exporter.getFinishedSpans().filter((s) => parentOf(s) === idOf(child));
    expect(childSteps.map((s) => s.name)).toContain('runtime.execute');
    for (const s of childSteps) expect(stateOf(s), s.name).toBe(STATE);

    for (const bad of MALFORMED_STATES) {
      far.exporter.reset();
      inner.length = 0;
      await plexus.invoke('nest.outer', { n: 2 }, { traceparent: CALLER, tracestate: bad as string });
      expect(inner[0]?.tracestate, String(bad)).toBeUndefined();
      const fresh = await invocationOf(far, 'sdk', 'nest.inner');
      expect(traceOf(fresh)).toBe(TRACE);
      expect(stateOf(fresh)).toBe('');
    }
    // a tracestate without a traceparent belongs to no trace: not sent on
    inner.length = 0;
    await plexus.invoke('nest.outer', { n: 3 }, { tracestate: STATE });
    expect(inner[0]?.tracestate).toBeUndefined();
  });
});
