import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { labelCap, MAX_LABEL_LENGTH, OTHER_LABEL } from '../../src/observability/metrics/label-cap.js';
import { nodeMetrics } from '../../src/observability/metrics/node-metrics.js';
import {
  BILLING_CHARGE_COUNT,
  CAPABILITY_CHECK_COUNT,
  FALLBACK_COUNT,
  INVOCATION_SPAN,
} from '../../src/observability/span-names.js';
import {
  ATTR_LLM_MODEL,
  ATTR_LLM_TOKENS_INPUT,
  ATTR_LLM_TOKENS_OUTPUT,
} from '../../src/observability/tracing/span-attributes.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';

const SEED_METERS: Record<string, string> = {
  agentese_invocations_total: 'counter',
  agentese_invocation_duration_seconds: 'histogram',
  agentese_effect_operations_total: 'counter',
  agentese_capability_checks_total: 'counter',
  agentese_transport_fallbacks_total: 'counter',
  agentese_cache_operations_total: 'counter',
  agentese_llm_tokens_total: 'counter',
  agentese_billing_charges_total: 'counter',
};

describe('labelCap', () => {
  it('keeps the first max distinct values and puts the rest in other', () => {
    const cap = labelCap(2);
    expect([cap.of('a'), cap.of('b'), cap.of('c'), cap.of('a'), cap.of('b')]).toEqual([
      'a',
      'b',
      OTHER_LABEL,
      'a',
      'b',
    ]);
    expect(cap.size).toBe(2);
  });

  it('never keeps a value that is too long or not printable', () => {
    const cap = labelCap(10);
    expect(cap.of('x'.repeat(MAX_LABEL_LENGTH + 1))).toBe(OTHER_LABEL);
    expect(cap.of('a\nb')).toBe(OTHER_LABEL);
    expect(cap.of('a b')).toBe(OTHER_LABEL);
    expect(cap.of('')).toBe(OTHER_LABEL);
    expect(cap.size).toBe(0);
  });
});

describe('nodeMetrics', () => {
  it('registers the eight meters of seed 002 §7.2 with their types', async () => {
    const scrape = parsePrometheusText(await nodeMetrics().render());
    for (const [name, type] of Object.entries(SEED_METERS)) expect(scrape.types.get(name), name).toBe(type);
  });

  it('keeps each node on a registry of its own', async () => {
    const a = nodeMetrics();
    const b = nodeMetrics();
    a.observer.span(INVOCATION_SPAN, { verb: 'x.y' }).end();
    const fromB = parsePrometheusText(await b.render());
    expect(sampleValue(fromB, 'agentese_invocations_total', { verb: 'x.y' })).toBeUndefined();
    const fromA = parsePrometheusText(await a.render());
    expect(sampleValue(fromA, 'agentese_invocations_total', { verb: 'x.y' })).toBe(1);
  });

  it('counts an invocation span by verb, tenant and status, and times it', async () => {
    const m = nodeMetrics();
    m.observer.span(INVOCATION_SPAN, { verb: 'a.b', tenant: 't1' }).end();
    const failing = m.observer.span(INVOCATION_SPAN, { verb: 'a.b', tenant: 't1' });
    failing.end(new PlexusError('TIMEOUT', 'late'));
    failing.end(); // a second end is a no-op
    m.observer.span(INVOCATION_SPAN, { verb: 'a.b' }).end();
    m.observer.span('runtime.execute', { verb: 'a.b' }).end(); // other spans are not invocations
    const scrape = parsePrometheusText(await m.render());
    expect(
      sampleValue(scrape, 'agentese_invocations_total', { verb: 'a.b', tenant: 't1', status: 'success' }),
    ).toBe(1);
    expect(
      sampleValue(scrape, 'agentese_invocations_total', { verb: 'a.b', tenant: 't1', status: 'TIMEOUT' }),
    ).toBe(1);
    expect(
      sampleValue(scrape, 'agentese_invocations_total', { verb: 'a.b', tenant: 'none', status: 'success' }),
    ).toBe(1);
    expect(
      sampleValue(scrape, 'agentese_invocation_duration_seconds_count', { verb: 'a.b', tenant: 't1' }),
    ).toBe(2);
    expect(sampleValue(scrape, 'plexus_invocations_in_flight')).toBe(0);
  });

  it('puts the 201st verb and tenant in other with the default caps', async () => {
    const m = nodeMetrics();
    for (let i = 0; i < 201; i++)
      m.observer.span(INVOCATION_SPAN, { verb: `v.n${i}`, tenant: `t${i}` }).end();
    const scrape = parsePrometheusText(await m.render());
    const verbs = new Set(
      scrape.samples.filter((s) => s.name === 'agentese_invocations_total').map((s) => s.labels['verb']),
    );
    expect(verbs.size).toBe(201);
    expect(verbs.has('v.n199')).toBe(true);
    expect(verbs.has('v.n200')).toBe(false);
    expect(
      sampleValue(scrape, 'agentese_invocations_total', { verb: OTHER_LABEL, tenant: OTHER_LABEL }),
    ).toBe(1);
  });

  it('counts open invocations, log appends, shed requests and MCP tool calls', async () => {
    const m = nodeMetrics();
    const open = m.observer.span(INVOCATION_SPAN, { verb: 'a.b' });
    m.logAppended(3, 0.002);
    m.shed();
    m.shed();
    m.inFlightFrom(() => 7);
    m.mcpToolCall('echo', 'success', 0.01);
    const scrape = parsePrometheusText(await m.render());
    expect(sampleValue(scrape, 'plexus_invocations_in_flight')).toBe(1);
    expect(sampleValue(scrape, 'plexus_event_log_append_events_sum')).toBe(3);
    expect(sampleValue(scrape, 'plexus_event_log_append_seconds_count')).toBe(1);
    expect(sampleValue(scrape, 'plexus_shed_requests_total')).toBe(2);
    expect(sampleValue(scrape, 'plexus_requests_in_flight')).toBe(7);
    expect(sampleValue(scrape, 'plexus_mcp_tool_calls_total', { tool: 'echo', status: 'success' })).toBe(1);
    open.end();
  });

  it('counts routing fallback steps by the transport left and the one tried', async () => {
    const m = nodeMetrics();
    const step = { policy: 'p', step: 'cache', from_transport: 'http', to_transport: 'local-cache' };
    m.observer.count(FALLBACK_COUNT, step);
    m.observer.count(FALLBACK_COUNT, step);
    m.observer.count('runtime.duplicates', { face: 'esrp' }); // other counters are not meters
    const scrape = parsePrometheusText(await m.render());
    expect(
      sampleValue(scrape, 'agentese_transport_fallbacks_total', {
        from_transport: 'http',
        to_transport: 'local-cache',
      }),
    ).toBe(2);
    expect(scrape.samples.filter((s) => s.name === 'agentese_transport_fallbacks_total')).toHaveLength(1);
  });

  it('counts cache lookups, declared effects and LLM tokens at the end of an invocation', async () => {
    const m = nodeMetrics();
    const run = m.observer.span(INVOCATION_SPAN, { verb: 'a.b', tenant: 't' });
    run.set?.({ [ATTR_LLM_MODEL]: 'm1', [ATTR_LLM_TOKENS_INPUT]: 3 });
    run.set?.({ [ATTR_LLM_TOKENS_INPUT]: 7, [ATTR_LLM_TOKENS_OUTPUT]: 2 }); // replaces the input
    run.end(undefined, { cache_hit: false, effects: ['reads:notes', 'writes:notes'] });
    run.set?.({ [ATTR_LLM_TOKENS_INPUT]: 100 }); // after the end: ignored
    m.observer.span(INVOCATION_SPAN, { verb: 'a.b' }).end(undefined, { cache_hit: true, effects: [] });
    const unnamed = m.observer.span(INVOCATION_SPAN, { verb: 'a.c' });
    unnamed.set?.({ [ATTR_LLM_TOKENS_OUTPUT]: 4 });
    unnamed.end(new PlexusError('TIMEOUT', 'late'));
    const scrape = parsePrometheusText(await m.render());
    expect(sampleValue(scrape, 'agentese_cache_operations_total', { verb: 'a.b', hit_miss: 'miss' })).toBe(1);
    expect(sampleValue(scrape, 'agentese_cache_operations_total', { verb: 'a.b', hit_miss: 'hit' })).toBe(1);
    // a span ended without end attributes (a refusal) reached no cache
    expect(sampleValue(scrape, 'agentese_cache_operations_total', { verb: 'a.c', hit_miss: 'miss' })).toBe(
      undefined,
    );
    expect(
      sampleValue(scrape, 'agentese_effect_operations_total', { effect: 'reads', resource: 'notes' }),
    ).toBe(1);
    expect(
      sampleValue(scrape, 'agentese_effect_operations_total', { effect: 'writes', resource: 'notes' }),
    ).toBe(1);
    expect(sampleValue(scrape, 'agentese_llm_tokens_total', { model: 'm1', direction: 'input' })).toBe(7);
    expect(sampleValue(scrape, 'agentese_llm_tokens_total', { model: 'm1', direction: 'output' })).toBe(2);
    expect(sampleValue(scrape, 'agentese_llm_tokens_total', { model: 'unknown', direction: 'output' })).toBe(
      4,
    );
  });

  it('counts capability checks and billing charges, capping their labels', async () => {
    const m = nodeMetrics();
    m.observer.count(CAPABILITY_CHECK_COUNT, { scope: 'soul:read', result: 'denied' });
    m.observer.count(CAPABILITY_CHECK_COUNT, { scope: 'soul:read', result: 'denied' });
    m.observer.count(CAPABILITY_CHECK_COUNT, { scope: 'bad scope', result: 'allowed' });
    m.observer.count(BILLING_CHARGE_COUNT, { meter: 'tokens', tenant: 'acme' });
    m.observer.count(BILLING_CHARGE_COUNT, { meter: 'tokens' });
    const scrape = parsePrometheusText(await m.render());
    const checks = (scope: string, result: string): number | undefined =>
      sampleValue(scrape, 'agentese_capability_checks_total', { scope, result });
    expect(checks('soul:read', 'denied')).toBe(2);
    expect(checks('other', 'allowed')).toBe(1); // not printable ASCII without spaces
    expect(sampleValue(scrape, 'agentese_billing_charges_total', { meter: 'tokens', tenant: 'acme' })).toBe(
      1,
    );
    expect(sampleValue(scrape, 'agentese_billing_charges_total', { meter: 'tokens', tenant: 'none' })).toBe(
      1,
    );
  });

  it('refuses a cap that is not a whole number ≥ 1', () => {
    expect(() => nodeMetrics({ maxVerbs: 0 })).toThrow(/maxVerbs/);
    expect(() => nodeMetrics({ maxTenants: 1.5 })).toThrow(/maxTenants/);
  });
});
