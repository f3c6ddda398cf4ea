import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { hrTimeOf } from '../../src/observability/tracing/light-span.js';
import { nodeTracing } from '../../src/observability/tracing/node-tracing.js';
import { traceparentIds } from '../../src/observability/tracing/tracing-observer.js';

/** A pipeline step under an invocation span, as the runtime reports them. */
function invocationWithSteps(sampling: number) {
  const exporter = new InMemorySpanExporter();
  const tracing = nodeTracing({ exporter, batch: false, sampling, serviceName: 'light' });
  const invocation = tracing.observer.span('runtime.invocation', { verb: 'echo.echo', tenant: 't1' });
  const ok = tracing.observer.span(
    'runtime.resolve',
    { step: 'resolve' },
    { parent: invocation.traceparent },
  );
  ok.set({ attempt: 2 });
  ok.end();
  const failed = tracing.observer.span(
    'runtime.execute',
    { step: 'execute' },
    { parent: invocation.traceparent },
  );
  failed.end(new PlexusError('INTERNAL', 'boom'));
  const nested = tracing.observer.span('effect.charges', {}, { parent: failed.traceparent });
  nested.end();
  invocation.end();
  return { exporter, invocation, ok, failed, nested };
}

describe('pipeline-step spans without the tracer (OBS-55)', () => {
  it('exports steps of a sampled invocation with their parent, attributes, status and resource', () => {
    const { exporter, invocation } = invocationWithSteps(1);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual([
      'runtime.resolve',
      'runtime.execute',
      'effect.charges',
      'runtime.invocation',
    ]);
    const [resolve, execute, effect, root] = spans;
    const rootId = root!.spanContext().spanId;
    expect(invocation.traceparent).toContain(rootId);
    for (const step of [resolve!, execute!]) {
      expect(step.spanContext().traceId).toBe(root!.spanContext().traceId);
      expect(step.parentSpanContext?.spanId).toBe(rootId);
      expect(step.kind).toBe(SpanKind.INTERNAL);
      expect(step.resource).toBe(root!.resource);
      expect(step.instrumentationScope.name).toBe(root!.instrumentationScope.name);
      expect(step.ended).toBe(true);
      expect(step.duration[0] * 1e9 + step.duration[1]).toBeGreaterThanOrEqual(0);
    }
    expect(effect!.parentSpanContext?.spanId).toBe(execute!.spanContext().spanId);
    expect(resolve!.attributes).toEqual({ 'plexus.step': 'resolve', 'plexus.attempt': 2 });
    expect(resolve!.status.code).toBe(SpanStatusCode.UNSET);
    expect(execute!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INTERNAL: boom' });
    expect(execute!.attributes['error.type']).toBe('INTERNAL');
  });

  it('records nothing under an unsampled invocation, yet hands out a traceparent of the same trace', () => {
    const { exporter, invocation, ok } = invocationWithSteps(0);
    expect(exporter.getFinishedSpans()).toEqual([]);
    const traceId = invocation.traceparent.split('-')[1];
    expect(ok.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    expect(ok.traceparent).not.toBe(invocation.traceparent);
  });

  it('keeps a call’s shared attributes apart from what one step adds (OBS-61)', () => {
    const exporter = new InMemorySpanExporter();
    const tracing = nodeTracing({ exporter, batch: false });
    const invocation = tracing.observer.span('runtime.invocation', { verb: 'echo.echo' });
    const shared = { face: 'http', mode: 'sync' };
    const first = tracing.observer.span('runtime.resolve', shared, { parent: invocation.traceparent });
    const second = tracing.observer.span('runtime.era', shared, { parent: invocation.traceparent });
    first.set({ mode: 'async', extra: 1 });
    first.end(new PlexusError('NOT_FOUND', 'no such verb'));
    second.end();
    second.set({ late: true }); // after its end: ignored
    invocation.end();
    const [resolve, era] = exporter.getFinishedSpans();
    expect(resolve!.attributes).toEqual({
      'plexus.face': 'http',
      'plexus.mode': 'async',
      'plexus.extra': 1,
      'error.type': 'NOT_FOUND',
    });
    expect(Object.keys(resolve!.attributes)).toEqual([
      'plexus.face',
      'plexus.mode',
      'plexus.extra',
      'error.type',
    ]);
    expect(era!.attributes).toEqual({ 'plexus.face': 'http', 'plexus.mode': 'sync' });
    expect(shared).toEqual({ face: 'http', mode: 'sync' });
    expect(resolve!.spanContext().spanId).not.toBe(era!.spanContext().spanId);
    expect(first.traceparent).toBe(
      `00-${resolve!.spanContext().traceId}-${resolve!.spanContext().spanId}-01`,
    );
  });

  it('converts Unix milliseconds to HrTime without a nanosecond overflow', () => {
    expect(hrTimeOf(1_700_000_000_123.5)).toEqual([1_700_000_000, 123_500_000]);
    const [, nanos] = hrTimeOf(1_700_000_000_000 + 999.9999999);
    expect(nanos).toBeLessThan(1e9);
  });

  it('reads a traceparent as the version-00 pattern does (property, seeded)', () => {
    const PATTERN = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
    const hexChar = fc.constantFrom(...'0123456789abcdefABCDEF-g0'.split(''));
    const field = (n: number) => fc.string({ unit: hexChar, minLength: n - 1, maxLength: n + 1 });
    const value = fc.oneof(
      fc.tuple(fc.constantFrom('00', '01', '0'), field(32), field(16), field(2)).map((p) => p.join('-')),
      fc.constantFrom(
        `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`,
        `00-${'1'.repeat(32)}-${'0'.repeat(16)}-01`,
      ),
      fc.string({ maxLength: 60 }),
    );
    fc.assert(
      fc.property(value, (text) => {
        const m = PATTERN.exec(text);
        const expected =
          m === null || /^0+$/.test(m[1] ?? '') || /^0+$/.test(m[2] ?? '')
            ? undefined
            : { traceId: m[1], spanId: m[2], flags: Number.parseInt(m[3] ?? '', 16) };
        expect(traceparentIds(text)).toEqual(expected);
      }),
      { seed: 61, numRuns: 2000 },
    );
  });
});
