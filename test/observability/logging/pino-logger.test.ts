// Issue 16 item 3: the node's structured log — pino behind the Logger contract, seed 002 §7.3
// fields, PII redacted by the guard's detectors, user ids hidden unless configured, the active
// OpenTelemetry span's ids on every line.
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinoLogger } from '../../../src/observability/logging/pino-logger.js';
import { redactFields } from '../../../src/observability/logging/redact-fields.js';
import { invocationLogObserver } from '../../../src/observability/logging/invocation-log.js';
import { traceIdsOf } from '../../../src/observability/logging/trace-ids.js';
import { INVOCATION_SPAN, EXECUTE_SPAN } from '../../../src/observability/span-names.js';
import { PlexusError } from '../../../src/core/errors.js';
import { redactPii } from '../../../src/primitives/guard/pii.js';
import { nodeLogger } from '../../../src/node/node-logger.js';

function captured(init: Partial<Parameters<typeof pinoLogger>[0]> = {}) {
  const lines: string[] = [];
  const logger = pinoLogger({ write: (line) => lines.push(line), redact: redactPii, ...init });
  const json = (): Record<string, unknown>[] => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, json };
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('pinoLogger', () => {
  it('writes one JSON line an entry with timestamp, level name and message', () => {
    const { logger, lines, json } = captured();
    logger.info({ verb: 'math.evaluate' }, 'invocation');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    const [line] = json();
    expect(line).toMatchObject({ level: 'info', verb: 'math.evaluate', msg: 'invocation' });
    expect(new Date(String(line?.['timestamp'])).toISOString()).toBe(line?.['timestamp']);
    expect(line).not.toHaveProperty('pid');
  });

  it('redacts an e-mail address in a user id, in nested input and in the message', () => {
    const { logger, json } = captured();
    logger.info(
      { user_id: 'ada@example.org', input: { contact: ['mail ada@example.org', 'call +44 20 7946 0958'] } },
      'from ada@example.org',
    );
    const [line] = json();
    expect(line?.['user_id']).toBe('[REDACTED]');
    expect(line?.['input']).toEqual({ contact: ['mail [REDACTED:email]', 'call [REDACTED:phone]'] });
    expect(line?.['msg']).toBe('from [REDACTED:email]');
    expect(JSON.stringify(line)).not.toContain('ada@example.org');
  });

  it('writes user ids when asked, still without the personal data in them', () => {
    const { logger, json } = captured({ logUserIds: true });
    logger.info({ user_id: 'u-17' });
    logger.info({ user_id: 'ada@example.org' });
    expect(json().map((l) => l['user_id'])).toEqual(['u-17', '[REDACTED:email]']);
  });

  it('keeps to its level', () => {
    const { logger, json } = captured({ level: 'warn' });
    logger.debug({ a: 1 });
    logger.info({ a: 2 });
    logger.warn({ a: 3 });
    logger.error({ a: 4 });
    expect(json().map((l) => [l['level'], l['a']])).toEqual([
      ['warn', 3],
      ['error', 4],
    ]);
    const silent = captured({ level: 'silent' });
    silent.logger.error({ a: 5 });
    expect(silent.lines).toEqual([]);
  });

  it('writes text, not JSON, in the pretty format, with the stack below the line', () => {
    const { logger, lines } = captured({ format: 'pretty' });
    logger.error({ stack: 'TypeError: boom\n    at f (x.js:1:2)', agent: 'a' }, 'a handler crashed');
    const text = lines.join('');
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(text).toContain('ERROR');
    expect(text).toContain('a handler crashed');
    expect(text).toMatch(/\n\s+TypeError: boom\n\s+at f \(x\.js:1:2\)/);
  });

  describe('with an active OpenTelemetry span', () => {
    const manager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      context.setGlobalContextManager(manager.enable());
    });
    afterAll(() => {
      manager.disable();
      context.disable();
    });

    it('carries its trace id and span id on every line', () => {
      const { logger, json } = captured();
      const span = trace.wrapSpanContext({ traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED });
      context.with(trace.setSpan(context.active(), span), () => {
        logger.info({ a: 1 });
      });
      logger.info({ a: 2 });
      const [inside, outside] = json();
      expect(inside).toMatchObject({ trace_id: TRACE, span_id: SPAN });
      expect(outside).not.toHaveProperty('trace_id');
    });
  });
});

describe('redactFields', () => {
  it('copies errors as type, message and stack, and survives cycles and depth', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic['self'] = cyclic;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 50; i++) deep = { deep };
    const out = redactFields(
      { err: new TypeError('for bob@example.com'), cyclic, deep },
      { redact: redactPii, logUserIds: false },
    ) as Record<string, unknown>;
    expect(out['err']).toMatchObject({ type: 'TypeError', message: 'for [REDACTED:email]' });
    expect((out['err'] as { stack: string }).stack).not.toContain('bob@example.com');
    expect(out['cyclic']).toEqual({ name: 'x', self: '[Circular]' });
    expect(JSON.stringify(out['deep'])).toContain('[…]');
  });
});

describe('invocationLogObserver', () => {
  it('writes the seed §7.3 fields when an invocation ends, with the request trace', () => {
    const { logger, json } = captured();
    const observer = invocationLogObserver(logger);
    observer.span('runtime.validate_input', { verb: 'x.y' }).end();
    const span = observer.span(INVOCATION_SPAN, {
      verb: 'notes.add',
      tenant: 'acme',
      user: 'ada@example.org',
      face: 'esrp',
      mode: 'sync',
      traceparent: `00-${TRACE}-${SPAN}-01`,
    });
    span.end(undefined, { cache_hit: false, effects: ['writes:notes'] });
    span.end(); // twice: one line
    const lines = json();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      event: 'invocation',
      verb: 'notes.add',
      trace_id: TRACE,
      span_id: SPAN,
      tenant_id: 'acme',
      user_id: '[REDACTED]',
      status: 'success',
      effects_executed: ['writes:notes'],
      cache_hit: false,
      face: 'esrp',
      mode: 'sync',
    });
    expect(typeof lines[0]?.['duration_ms']).toBe('number');
  });

  it('writes the error code and redacted message of a failed invocation, and a routing line', () => {
    const { logger, json } = captured();
    const observer = invocationLogObserver(logger);
    observer
      .span(INVOCATION_SPAN, { verb: 'notes.add', face: 'esrp', mode: 'async' })
      .end(new PlexusError('INVALID_PARAMS', 'no such contact ada@example.org'));
    observer
      .span(EXECUTE_SPAN, { job: 'j1', verb: 'notes.add', route: 'remote', agents: 1 })
      .end(new PlexusError('PEER_UNAVAILABLE', 'peer down'));
    const [invocation, routing] = json();
    expect(invocation).toMatchObject({
      status: 'INVALID_PARAMS',
      error: 'no such contact [REDACTED:email]',
      tenant_id: null,
      user_id: null,
      trace_id: null,
      effects_executed: [],
      cache_hit: false,
    });
    expect(routing).toMatchObject({
      event: 'routing',
      verb: 'notes.add',
      job: 'j1',
      path: 'remote',
      agents: 1,
      outcome: 'PEER_UNAVAILABLE',
    });
    expect(typeof routing?.['latency_ms']).toBe('number');
  });
});

describe('traceIdsOf', () => {
  it('reads a W3C traceparent and refuses malformed or all-zero ones', () => {
    expect(traceIdsOf(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN });
    expect(traceIdsOf(`00-${'0'.repeat(32)}-${SPAN}-01`)).toBeUndefined();
    expect(traceIdsOf('not a trace')).toBeUndefined();
    expect(traceIdsOf(undefined)).toBeUndefined();
  });
});

describe('nodeLogger', () => {
  it('is json off a terminal, pretty on one, and takes the logging: section', () => {
    const out: string[] = [];
    const write = (line: string): void => {
      out.push(line);
    };
    expect(nodeLogger({ write }).format).toBe('json');
    expect(nodeLogger({ write, tty: true }).format).toBe('pretty');
    expect(nodeLogger({ write, tty: true, config: { format: 'json' } }).format).toBe('json');
    const logger = nodeLogger({ write, config: { level: 'warn', logUserIds: true } });
    expect(logger.level).toBe('warn');
    logger.warn({ user_id: 'u-1', note: 'ada@example.org' });
    expect(JSON.parse(out[0] ?? '')).toMatchObject({ user_id: 'u-1', note: '[REDACTED:email]' });
    expect(nodeLogger({ write, config: { level: 'warn' }, level: 'debug' }).level).toBe('debug');
  });
});
