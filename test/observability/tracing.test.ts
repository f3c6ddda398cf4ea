/**
 * Traces with an in-memory exporter (issue 16 item 1): the runtime's invocation is a span tree
 * (one span per pipeline step, the store commit under post_effects), with the seed's
 * `agentese.*` attributes, parented on the request's W3C traceparent, and a handler's
 * `ctx.telemetry` on the invocation span. Two tracers never share spans.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNode } from '../../src/node/index.js';
import { esrpRequest } from '../e2e/harness.js';
import { PlexusError } from '../../src/core/errors.js';
import { AGENTESE_ATTRIBUTES } from '../../src/observability/tracing/span-attributes.js';
import { nodeTracing, tracesUrl } from '../../src/observability/tracing/node-tracing.js';
import { INVOCATION_SPAN, STORE_COMMIT_SPAN } from '../../src/observability/span-names.js';
import { PIPELINE_STEPS, memoryObserver, teeObserver, type HandlerContext } from '../../src/runtime/index.js';
import { agent, cap, request, spec, startRuntime } from '../runtime/helpers.js';
import { telemetryAttributes } from '../../src/runtime/pipeline/telemetry.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const FACE_SPAN = '00f067aa0ba902b7';
const PARENT = `00-${TRACE}-${FACE_SPAN}-01`;

function tracer() {
  const exporter = new InMemorySpanExporter();
  const tracing = nodeTracing({ exporter, batch: false, serviceName: 'test-node' });
  return { exporter, tracing };
}

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] =>
  spans.filter((s) => s.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};

const echo = agent(
  'echo',
  {
    'demo.echo': (input, ctx: HandlerContext) => {
      ctx.telemetry({ llm: { model: 'claude-opus-4-5', inputTokens: 1234, outputTokens: 567 } });
      return input;
    },
  },
  {
    capabilities: [cap('demo.echo')],
    verbs: [
      spec('demo.echo', {
        version: 2,
        effects: { reads: ['budget'] },
        projection: { 'ui:form': {} },
        deterministic: false,
      }),
    ],
  },
);

describe('traces of an invocation', () => {
  it('is a span tree: the invocation under the face span, every step under the invocation', async () => {
    const { exporter, tracing } = tracer();
    const h = await startRuntime({
      agents: [echo],
      observer: teeObserver(memoryObserver(), tracing.observer),
    });
    try {
      const { envelope } = await h.runtime.invoke(
        request('demo.echo', { text: 'hi' }, 'capability:demo.echo', {
          traceparent: PARENT,
          tenantId: 'acme',
        }),
        { face: 'internal' },
      );
      expect(envelope.kind).toBe('response');
      const spans = exporter.getFinishedSpans();
      expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE]));
      const invocation = one(spans, INVOCATION_SPAN);
      expect(parentOf(invocation)).toBe(FACE_SPAN);
      const invocationId = invocation.spanContext().spanId;
      // every pipeline step ran under the invocation (idempotency twice for an archived duplicate)
      for (const step of PIPELINE_STEPS) {
        const found = byName(spans, `runtime.${step}`);
        expect(found.length, step).toBeGreaterThanOrEqual(1);
        for (const s of found) expect(parentOf(s), step).toBe(invocationId);
      }
      const commit = one(spans, STORE_COMMIT_SPAN);
      expect(parentOf(commit)).toBe(one(spans, 'runtime.post_effects').spanContext().spanId);
      expect(invocation.attributes).toMatchObject({
        'agentese.verb': 'demo.echo',
        'agentese.version': '2',
        'agentese.tenant_id': 'acme',
        'agentese.capability.scopes': '',
        'agentese.effects': 'reads',
        'agentese.projection': 'ui:form',
        'agentese.deterministic': false,
        'agentese.cache.hit': false,
        'agentese.llm.model': 'claude-opus-4-5',
        'agentese.llm.tokens.input': 1234,
        'agentese.llm.tokens.output': 567,
      });
      for (const name of AGENTESE_ATTRIBUTES) expect(invocation.attributes, name).toHaveProperty(name);
      expect(invocation.resource.attributes['service.name']).toBe('test-node');
    } finally {
      await h.close();
      await tracing.shutdown();
    }
  });

  it('marks an idempotent duplicate as a cache hit, and a refusal as an error span', async () => {
    const { exporter, tracing } = tracer();
    const h = await startRuntime({ agents: [echo], observer: tracing.observer });
    try {
      const first = request('demo.echo', { text: 'a' }, 'capability:demo.echo', { traceparent: PARENT });
      await h.runtime.invoke(first, { face: 'internal', idempotencyKey: 'k-1' });
      await h.runtime.invoke(
        { ...first, id: crypto.randomUUID() },
        { face: 'internal', idempotencyKey: 'k-1' },
      );
      const hits = byName(exporter.getFinishedSpans(), INVOCATION_SPAN).map(
        (s) => s.attributes['agentese.cache.hit'],
      );
      expect(hits).toEqual([false, true]);
      exporter.reset();
      await h.runtime.invoke(request('nope.verb', {}, 'capability:nope.verb', { traceparent: PARENT }), {
        face: 'internal',
      });
      const refused = one(exporter.getFinishedSpans(), INVOCATION_SPAN);
      expect(refused.status.code).toBe(2); // ERROR
      expect(refused.attributes['error.type']).toBe('UNKNOWN_VERB');
      expect(one(exporter.getFinishedSpans(), 'runtime.resolve').attributes['error.type']).toBe(
        'UNKNOWN_VERB',
      );
    } finally {
      await h.close();
      await tracing.shutdown();
    }
  });

  it('starts a new trace for a request without a traceparent, and keeps two tracers apart', async () => {
    const a = tracer();
    const b = tracer();
    const h = await startRuntime({ agents: [echo], observer: a.tracing.observer });
    try {
      await h.runtime.invoke(request('demo.echo', { text: 'x' }), { face: 'internal' });
      const spans = a.exporter.getFinishedSpans();
      const invocation = one(spans, INVOCATION_SPAN);
      expect(invocation.parentSpanContext).toBeUndefined();
      expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
      expect(b.exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await h.close();
      await a.tracing.shutdown();
      await b.tracing.shutdown();
    }
  });

  it('follows the caller’s sampled flag, and samples new traces at the configured ratio', () => {
    const exporter = new InMemorySpanExporter();
    const none = nodeTracing({ exporter, batch: false, sampling: 0 });
    none.observer.span('root').end();
    none.observer.span('continued', {}, { parent: PARENT }).end(); // caller sampled: kept
    none.observer.span('unsampled', {}, { parent: `00-${TRACE}-${FACE_SPAN}-00` }).end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['continued']);
    const root = none.observer.span('root');
    expect(root.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/); // propagated, not sampled
    root.end();
    expect(() => nodeTracing({ exporter, sampling: 1.5 })).toThrow(RangeError);
  });

  it('gives a span the id decided for it (a hop on the wire) under its parent', () => {
    const { exporter, tracing } = tracer();
    const self = `00-${TRACE}-1111111111111111-01`;
    const span = tracing.observer.span(
      'routing.forward',
      { agent: 'math' },
      { kind: 'client', parent: PARENT, self },
    );
    expect(span.traceparent).toBe(self);
    span.end(new PlexusError('PEER_UNAVAILABLE', 'down'));
    const [done] = exporter.getFinishedSpans();
    expect(done?.spanContext().spanId).toBe('1111111111111111');
    expect(parentOf(done as ReadableSpan)).toBe(FACE_SPAN);
    expect(done?.kind).toBe(2); // CLIENT
    expect(done?.attributes).toMatchObject({ 'plexus.agent': 'math', 'error.type': 'PEER_UNAVAILABLE' });
    // the next span gets a random id again
    const next = tracing.observer.span('other', {}, { parent: PARENT });
    expect(next.traceparent).not.toContain('1111111111111111');
    next.end();
  });

  it('refuses malformed telemetry reports with an actionable message', () => {
    expect(telemetryAttributes({})).toEqual({});
    expect(() => telemetryAttributes({ llm: { inputTokens: -1 } })).toThrow(
      /inputTokens must be a whole number/,
    );
    expect(() => telemetryAttributes({ llm: { outputTokens: 1.5 } })).toThrow(/outputTokens/);
    expect(() => telemetryAttributes({ llm: { model: '' } })).toThrow(/llm.model/);
    expect(() => telemetryAttributes({ llm: 'gpt' } as never)).toThrow(/llm must be an object/);
  });

  it('writes the OTLP traces path once', () => {
    expect(tracesUrl('http://c:4318')).toBe('http://c:4318/v1/traces');
    expect(tracesUrl('http://c:4318/')).toBe('http://c:4318/v1/traces');
    expect(tracesUrl('http://c:4318/v1/traces')).toBe('http://c:4318/v1/traces');
  });
});

describe('the HTTP server span of a traced node', () => {
  it('writes a new trace’s sampling decision into the answer, and keeps a caller’s', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-trace-'));
    const exporter = new InMemorySpanExporter();
    const node = createNode({
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      demo: ['echo'],
      primitives: false,
      tracing: { sampling: 0 },
      spanExporter: exporter,
    });
    await node.start();
    try {
      const call = async (headers: Record<string, string>): Promise<string> => {
        const res = await fetch(`${node.url}/v1/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(esrpRequest('echo.echo', { text: 'hi' })),
        });
        expect(res.status).toBe(200);
        await res.text();
        return res.headers.get('traceparent') ?? '';
      };
      expect(await call({})).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/); // sampling 0: not sampled
      const continued = await call({ traceparent: PARENT });
      expect(continued).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`)); // the caller's flag
      expect(continued.slice(36, 52)).not.toBe(FACE_SPAN);
      const bad = await call({ traceparent: '00-zz-not-a-trace' });
      expect(bad).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/); // invalid: a new trace, never an error
    } finally {
      await node.stop({ drainMs: 0 });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
