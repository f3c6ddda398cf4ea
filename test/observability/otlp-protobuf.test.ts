/**
 * The OTLP/protobuf span encoding (OBS-60) against OpenTelemetry's own protobuf serializer:
 * for the same spans, the same bytes — real spans of a node's tracer and its light step spans,
 * and generated spans with every field the encoding covers (unicode, long strings that widen a
 * length prefix, negative and huge integers, doubles, arrays, events, links, trace state, several
 * resources and scopes). Then the exporter end to end: a node posting `application/x-protobuf`
 * to a receiver that decodes it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type AttributeValue,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { nodeTracing, otlpExporter } from '../../src/observability/tracing/node-tracing.js';
import { encodeTraceRequest } from '../../src/observability/tracing/otlp-protobuf.js';
import { otlpProtocol } from '../../src/node/tracing-setup.js';
import { decodeOtlpTraces } from '../support/otlp-receiver.js';

const official = (spans: ReadableSpan[]): Uint8Array => {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (bytes === undefined) throw new Error('the official serializer returned nothing');
  return bytes;
};

/** Fails with the first differing byte's offset (a deep compare of large buffers is slow). */
function expectSameBytes(ours: Uint8Array, theirs: Uint8Array): void {
  if (Buffer.from(ours).equals(Buffer.from(theirs))) return;
  let at = 0;
  while (at < ours.length && ours[at] === theirs[at]) at += 1;
  expect.fail(
    `bytes differ at ${at} of ${ours.length} (theirs ${theirs.length}): ours ${Buffer.from(ours.subarray(at, at + 16)).toString('hex')}, theirs ${Buffer.from(theirs.subarray(at, at + 16)).toString('hex')}`,
  );
}

describe('OTLP/protobuf encoding (OBS-60)', () => {
  it('writes the same bytes as OpenTelemetry for a node’s own spans', () => {
    const exporter = new InMemorySpanExporter();
    const tracing = nodeTracing({ exporter, batch: false, serviceName: 'proto', instanceId: 'did:key:z6Mk' });
    const invocation = tracing.observer.span('runtime.invocation', {
      'agentese.verb': 'math.evaluate',
      'agentese.tenant_id': 'tenant-é',
      'agentese.deterministic': true,
      'http.response.status_code': 200,
    });
    const step = tracing.observer.span(
      'runtime.validate',
      { step: 'validate' },
      { parent: invocation.traceparent },
    );
    step.end(new PlexusError('INVALID_PARAMS', 'x must be a number — got "ü"'));
    invocation.end();
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    expectSameBytes(encodeTraceRequest(spans), official(spans));
  });

  it('writes the same bytes for any spans (property, seeded)', () => {
    const hex = (n: number) =>
      fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('hex'));
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ minLength: 120, maxLength: 400 }),
    );
    const scalar: fc.Arbitrary<AttributeValue> = fc.oneof(
      text,
      fc.boolean(),
      fc.integer(),
      fc.integer({ min: -(2 ** 31), max: -1 }),
      fc.constantFrom(2 ** 40, 2 ** 53 - 1, 2 ** 60, -(2 ** 62), 1.5, -0.25, Number.MAX_VALUE),
      fc.double({ noNaN: true }),
    );
    const value: fc.Arbitrary<AttributeValue> = fc.oneof(
      scalar,
      fc.array(text, { maxLength: 4 }),
      fc.array(fc.integer(), { maxLength: 4 }),
      fc.array(fc.oneof(fc.boolean(), fc.constant(null), fc.constant(undefined)), {
        maxLength: 3,
      }) as fc.Arbitrary<AttributeValue>,
    );
    const attributes: fc.Arbitrary<Attributes> = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 30 }),
      value,
      {
        maxKeys: 12,
      },
    );
    const time: fc.Arbitrary<HrTime> = fc.tuple(
      fc.integer({ min: 0, max: 4_000_000_000 }),
      fc.integer({ min: 0, max: 999_999_999 }),
    );
    const context = (remote: fc.Arbitrary<boolean | undefined>): fc.Arbitrary<SpanContext> =>
      fc
        .record({
          traceId: hex(16),
          spanId: hex(8),
          traceFlags: fc.constantFrom(TraceFlags.NONE, TraceFlags.SAMPLED),
          traceState: fc.option(fc.constantFrom(new TraceState('plexus=t:1'), new TraceState('a=1,b=2')), {
            nil: undefined,
          }),
          isRemote: remote,
        })
        .map(({ traceState, isRemote, ...ids }) => ({
          ...ids,
          ...(traceState === undefined ? {} : { traceState }),
          ...(isRemote === undefined ? {} : { isRemote }),
        }));
    const resources = [
      resourceFromAttributes({ 'service.name': 'a', 'service.instance.id': 'did:key:z6Mk' }),
      resourceFromAttributes({ 'service.name': 'b-ü' }),
    ];
    const scopes = [
      { name: 'plexus' },
      { name: 'other', version: '1.2.3', schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' },
    ];
    const span: fc.Arbitrary<ReadableSpan> = fc
      .record({
        name: text,
        kind: fc.constantFrom(
          SpanKind.INTERNAL,
          SpanKind.SERVER,
          SpanKind.CLIENT,
          SpanKind.PRODUCER,
          SpanKind.CONSUMER,
        ),
        own: context(fc.constant(undefined)),
        parent: fc.option(context(fc.option(fc.boolean(), { nil: undefined })), { nil: undefined }),
        start: time,
        end: time,
        attributes,
        status: fc.record({
          code: fc.constantFrom(SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR),
          message: fc.option(text, { nil: undefined }),
        }),
        events: fc.array(
          fc.record({ name: text, time, attributes: fc.option(attributes, { nil: undefined }) }),
          { maxLength: 3 },
        ),
        links: fc.array(
          fc.record({
            context: context(fc.constant(true)),
            attributes: fc.option(attributes, { nil: undefined }),
          }),
          { maxLength: 2 },
        ),
        dropped: fc.nat({ max: 300 }),
        resource: fc.nat({ max: resources.length - 1 }),
        scope: fc.nat({ max: scopes.length - 1 }),
      })
      .map(
        (g) =>
          ({
            name: g.name,
            kind: g.kind,
            spanContext: () => g.own,
            ...(g.parent === undefined ? {} : { parentSpanContext: g.parent }),
            startTime: g.start,
            endTime: g.end,
            duration: [0, 0],
            attributes: g.attributes,
            status:
              g.status.message === undefined
                ? { code: g.status.code }
                : { code: g.status.code, message: g.status.message },
            events: g.events,
            links: g.links,
            ended: true,
            droppedAttributesCount: g.dropped,
            droppedEventsCount: g.dropped % 7,
            droppedLinksCount: g.dropped % 3,
            resource: resources[g.resource] ?? resources[0]!,
            instrumentationScope: scopes[g.scope] ?? scopes[0]!,
          }) as ReadableSpan, // events and links with `attributes: undefined`, as a processor may hand them
      );
    fc.assert(
      fc.property(fc.array(span, { minLength: 1, maxLength: 12 }), (spans) => {
        expectSameBytes(encodeTraceRequest(spans), official(spans));
      }),
      { numRuns: 200 },
    );
  });

  it('writes a call’s step records as it writes any span (property, seeded; OBS-61)', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
    );
    const flat = fc.dictionary(
      fc.constantFrom('step', 'job', 'events', 'a.b', 'user', 'traceparent', 'verb'),
      value,
      {
        maxKeys: 4,
      },
    );
    const step = fc.record({
      name: fc.constantFrom('runtime.resolve', 'runtime.execute', 'store.commit', 'effect.charges'),
      own: fc.option(flat, { nil: undefined }),
      fails: fc.boolean(),
      nested: fc.boolean(),
    });
    fc.assert(
      fc.property(
        flat,
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.option(fc.constantFrom('vendor=a', 'k1=v1,k2=v2'), { nil: undefined }),
        (shared, steps, tracestate) => {
          const exporter = new InMemorySpanExporter();
          const tracing = nodeTracing({ exporter, batch: false, serviceName: 'steps' });
          const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
          const invocation = tracing.observer.span('runtime.invocation', shared, {
            parent,
            ...(tracestate === undefined ? {} : { tracestate }),
          });
          let last = invocation.traceparent;
          for (const s of steps) {
            // the steps of a call share one attributes object, as the runtime passes them
            const span = tracing.observer.span(s.name, shared, {
              parent: s.nested ? last : invocation.traceparent,
            });
            last = span.traceparent;
            if (s.own !== undefined) span.set(s.own);
            span.end(s.fails ? new PlexusError('INTERNAL', 'boom – ü') : undefined);
          }
          invocation.end();
          const spans = exporter.getFinishedSpans();
          expect(spans).toHaveLength(steps.length + 1);
          expectSameBytes(encodeTraceRequest(spans), official(spans));
        },
      ),
      { seed: 61, numRuns: 150 },
    );
  });

  it('grows past its buffer for a large batch and still matches', () => {
    const exporter = new InMemorySpanExporter();
    const tracing = nodeTracing({ exporter, batch: false });
    for (let i = 0; i < 2048; i += 1) {
      tracing.observer.span('runtime.execute', { step: 'execute', input: 'x'.repeat(200), i }).end();
    }
    const spans = exporter.getFinishedSpans();
    const bytes = encodeTraceRequest(spans);
    expect(bytes.length).toBeGreaterThan(64 * 1024 * 4);
    expectSameBytes(bytes, official(spans));
    // the shared buffer is not handed out: a second encoding leaves the first intact
    const first = Buffer.from(bytes);
    encodeTraceRequest(spans.slice(0, 3));
    expect(Buffer.from(bytes).equals(first)).toBe(true);
  });
});

describe('the OTLP protocol a node exports with (OBS-60)', () => {
  it('is protobuf by default, the configuration first, then the environment', () => {
    expect(otlpProtocol(undefined, {})).toBe('http/protobuf');
    expect(otlpProtocol(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      otlpProtocol(undefined, {
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toBe('http/protobuf');
    expect(otlpProtocol('http/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBe('http/json');
  });

  it('refuses a protocol it cannot speak, naming the variable', () => {
    expect(() => otlpProtocol(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not a protocol Plexus exports with; use http\/protobuf or http\/json/,
    );
    expect(() => otlpExporter('http://127.0.0.1:1', 'grpc' as never)).toThrow(RangeError);
  });
});

describe('the OTLP/HTTP protobuf exporter', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('posts application/x-protobuf to /v1/traces, and a receiver decodes the spans', async () => {
    const bodies: { type: string | undefined; url: string | undefined; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ type: req.headers['content-type'], url: req.url, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closers.push(
      () =>
        new Promise((done) => {
          server.close(() => {
            done();
          });
        }),
    );
    const { port } = server.address() as AddressInfo;
    const tracing = nodeTracing({ exporter: otlpExporter(`http://127.0.0.1:${port}`), serviceName: 'wire' });
    const root = tracing.observer.span('runtime.invocation', {
      'agentese.verb': 'echo.echo',
      n: -3,
      ratio: 0.5,
    });
    tracing.observer.span('runtime.execute', { step: 'execute' }, { parent: root.traceparent }).end();
    root.end();
    await tracing.shutdown();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.type).toBe('application/x-protobuf');
    expect(bodies[0]?.url).toBe('/v1/traces');
    const decoded = decodeOtlpTraces(bodies[0]!.body);
    expect(decoded.map((r) => [r.service, r.span.name])).toEqual([
      ['wire', 'runtime.execute'],
      ['wire', 'runtime.invocation'],
    ]);
    const [execute, invocation] = decoded.map((r) => r.span);
    expect(execute?.traceId).toBe(root.traceparent.slice(3, 35));
    expect(execute?.parentSpanId).toBe(root.traceparent.slice(36, 52));
    expect(invocation?.attributes).toEqual(
      expect.arrayContaining([
        { key: 'agentese.verb', value: { stringValue: 'echo.echo' } },
        { key: 'plexus.n', value: { intValue: -3 } },
        { key: 'plexus.ratio', value: { doubleValue: 0.5 } },
      ]),
    );
  });
});
