/**
 * Traces end to end (issue 16 item 1): two real nodes on 127.0.0.1, A forwarding `math.evaluate`
 * to B through its `peers:` configuration, exporting OTLP/HTTP to a receiver started here
 * (test/support/otlp-receiver.ts): A as OTLP/JSON, B as protobuf, the default (OBS-60). One ESRP call with a W3C
 * `traceparent` arrives as one trace: A's HTTP server span under the caller's span, A's
 * invocation under it, the forwarded hop a CLIENT span under A's execute step, and B's spans
 * under that hop, with the seed's attributes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode, nodeInitFromConfig, parseNodeConfig, type Node } from '../../src/node/index.js';
import { startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from '../support/otlp-receiver.js';
import { esrpRequest, eventually } from './harness.js';

const TRACE = 'ab'.repeat(16);
const CALLER_SPAN = 'cd'.repeat(8);
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (v === undefined) return undefined;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue;
}

describe('one ESRP call across two nodes is one OTLP trace', () => {
  const dirs: string[] = [];
  const nodes: Node[] = [];
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    for (const node of nodes.reverse()) await node.stop({ drainMs: 0 }).catch(() => undefined);
    await receiver?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('arrives with one trace id, the seed attributes and the right parents', async () => {
    receiver = await startOtlpReceiver();
    const start = async (config: Record<string, unknown>): Promise<Node> => {
      const dataDir = await mkdtemp(join(tmpdir(), 'plexus-otlp-'));
      dirs.push(dataDir);
      const node = createNode(
        nodeInitFromConfig(parseNodeConfig(config), { dataDir, host: '127.0.0.1', port: 0, dev: true }),
      );
      nodes.push(node);
      await node.start();
      return node;
    };
    const tracing = (name: string) => ({ endpoint: receiver?.url, serviceName: name, sampling: 1 });
    const b = await start({ store: 'memory', demo: ['math'], primitives: false, tracing: tracing('node-b') });
    const a = await start({
      store: 'memory',
      demo: ['echo'],
      primitives: false,
      peerPollMs: 100,
      peers: [{ url: b.url }],
      tracing: { ...tracing('node-a'), protocol: 'http/json' },
    });
    await eventually('A to learn B’s math agent', async () => {
      const r = await fetch(`${a.url}/agents?origin=remote`);
      const body = (await r.json()) as { agents: { id: string }[] };
      return body.agents.some((c) => c.id === 'math') ? true : undefined;
    });

    const res = await fetch(`${a.url}/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify(esrpRequest('math.evaluate', { expression: '2 * (3 + 4) ^ 2' })),
    });
    expect(res.status).toBe(200);
    const answered = res.headers.get('traceparent') ?? '';
    expect(answered.slice(3, 35)).toBe(TRACE);
    const served = answered.slice(36, 52);
    await res.text();

    // stopping flushes each node's batch of spans to the receiver
    for (const node of nodes.splice(0).reverse()) await node.stop({ drainMs: 0 });
    expect(receiver.bad).toEqual([]);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json', 'application/x-protobuf']));
    const trace = receiver.spans.filter((r) => r.span.traceId === TRACE);
    const on = (service: string, name: string): OtlpSpan[] =>
      trace.filter((r) => r.service === service && r.span.name === name).map((r) => r.span);
    const only = (service: string, name: string): OtlpSpan => {
      const found = on(service, name);
      expect(found, `${service} ${name}`).toHaveLength(1);
      return found[0] as OtlpSpan;
    };

    // A: the HTTP server span is the one the answer named, under the caller's span
    const serverA = only('node-a', 'POST /v1/execute');
    expect(serverA.spanId).toBe(served);
    expect(serverA.parentSpanId).toBe(CALLER_SPAN);
    expect(serverA.kind).toBe(SPAN_KIND_SERVER);
    expect(attr(serverA, 'http.request.method')).toBe('POST');
    expect(attr(serverA, 'http.response.status_code')).toBe(200);
    const invocationA = only('node-a', 'runtime.invocation');
    expect(invocationA.parentSpanId).toBe(serverA.spanId);
    expect(attr(invocationA, 'agentese.verb')).toBe('math.evaluate');
    expect(attr(invocationA, 'agentese.cache.hit')).toBe(false);
    const executeA = only('node-a', 'runtime.execute');
    expect(executeA.parentSpanId).toBe(invocationA.spanId);
    // the hop: a CLIENT span under A's execute step
    const hop = only('node-a', 'routing.forward');
    expect(hop.kind).toBe(SPAN_KIND_CLIENT);
    expect(hop.parentSpanId).toBe(executeA.spanId);
    expect(attr(hop, 'server.address')).toBe('127.0.0.1');

    // B: its invocation is a child of A's hop, with the seed's attributes of the verb it ran
    const invocationB = only('node-b', 'runtime.invocation');
    expect(invocationB.parentSpanId).toBe(hop.spanId);
    expect(attr(invocationB, 'agentese.verb')).toBe('math.evaluate');
    expect(attr(invocationB, 'agentese.version')).toBe('1');
    expect(attr(invocationB, 'agentese.deterministic')).toBe(true);
    for (const key of ['agentese.capability.scopes', 'agentese.effects', 'agentese.projection']) {
      expect(typeof attr(invocationB, key), key).toBe('string');
    }
    const serverB = only('node-b', 'POST /v1/peer/invoke');
    expect(serverB.parentSpanId).toBe(hop.spanId);
    for (const step of ['runtime.validate_input', 'runtime.execute', 'runtime.post_effects']) {
      expect(only('node-b', step).parentSpanId, step).toBe(invocationB.spanId);
    }
    // nothing of this call left its trace
    const names = new Set(trace.map((r) => `${r.service} ${r.span.name}`));
    expect(names.has('node-b store.commit')).toBe(true);
  });
});
