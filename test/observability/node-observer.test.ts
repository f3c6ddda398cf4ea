import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { LOGGED_SPANS } from '../../src/observability/logging/invocation-log.js';
import { METERED_SPANS } from '../../src/observability/metrics/node-metrics.js';
import { nodeObserver } from '../../src/observability/node-observer.js';
import { EXECUTE_SPAN, INVOCATION_SPAN } from '../../src/observability/span-names.js';
import { memoryObserver, type Observer, type ObserverSpan } from '../../src/runtime/observer.js';

/** A memory observer whose spans name a traceparent of their own, like a tracer's. */
function tracingLike(): { observer: Observer; spans: ObserverSpan[] } {
  const memory = memoryObserver();
  const spans: ObserverSpan[] = [];
  let n = 0;
  const observer: Observer = {
    span(name, attributes, options) {
      const inner = memory.span(name, attributes, options);
      n += 1;
      const span: ObserverSpan = {
        end: (error, end) => {
          inner.end(error, end);
        },
        traceparent: `00-${'1'.repeat(32)}-${n.toString(16).padStart(16, '0')}-01`,
      };
      spans.push(span);
      return span;
    },
    count: (name, attributes, value) => {
      memory.count(name, attributes, value);
    },
  };
  return { observer, spans };
}

describe('a node’s observer: each part gets the spans it reads (OBS-62)', () => {
  it('hands a step to the tracer alone, unwrapped, and the invocation to every part', () => {
    const meters = memoryObserver();
    const log = memoryObserver();
    const tracer = tracingLike();
    const observer = nodeObserver([
      { observer: meters, spans: METERED_SPANS },
      { observer: log, spans: LOGGED_SPANS },
      { observer: tracer.observer },
    ]);
    const invocation = observer.span(INVOCATION_SPAN, { verb: 'echo.echo' });
    const parent = invocation.traceparent ?? '';
    expect(parent).toBe(tracer.spans[0]?.traceparent);
    const step = observer.span('runtime.resolve', { face: 'http' }, { parent });
    expect(step).toBe(tracer.spans[1]); // the tracer's own span, not a wrapper
    step.end();
    const execute = observer.span(EXECUTE_SPAN, { verb: 'echo.echo' });
    execute.end(new PlexusError('INTERNAL', 'boom'));
    invocation.end(undefined, { cache_hit: false });
    observer.count('capability.checks', { scope: 'verb', result: 'allowed' });
    expect(meters.spanNames()).toEqual([INVOCATION_SPAN]);
    expect(log.spanNames()).toEqual([INVOCATION_SPAN, EXECUTE_SPAN]);
    expect(log.spans[1]?.errorCode).toBe('INTERNAL');
    expect(meters.spans.every((s) => s.ended)).toBe(true);
    for (const part of [meters, log]) expect(part.counter('capability.checks')).toBe(1);
  });

  it('with no tracer, a step is no part’s span, and with one part that part is the observer', () => {
    const meters = memoryObserver();
    const log = memoryObserver();
    const observer = nodeObserver([
      { observer: meters, spans: METERED_SPANS },
      { observer: log, spans: LOGGED_SPANS },
    ]);
    const step = observer.span('runtime.resolve', {});
    step.end();
    expect(step.traceparent).toBeUndefined();
    expect([...meters.spanNames(), ...log.spanNames()]).toEqual([]);
    expect(nodeObserver([{ observer: meters, spans: METERED_SPANS }])).toBe(meters);
    const none = nodeObserver<object>([]);
    none.span(INVOCATION_SPAN).end();
    none.count('x');
  });
});
