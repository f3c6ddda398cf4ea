import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { createNode, type Node, type NodeInit } from '../../../src/node/index.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { parsePrometheusText, sampleValue, type Scrape } from '../../support/prometheus-text.js';

const key = generateApiKey();
const BEARER = `Bearer ${key.key}`;

/** `calc.ok` answers, `calc.fail` fails with PRECONDITION_FAILED, `calc.v0`… answer too. */
const calc = defineAgent({
  card: {
    id: 'calc',
    name: 'Calc',
    version: '1.0.0',
    tier: 'L3',
    capabilities: ['calc.ok', 'calc.fail', 'calc.hold', 'calc.v0', 'calc.v1', 'calc.v2'].map((verb) => ({
      verb,
      input: {},
      output: {},
    })),
  },
  create: () => ({
    'calc.ok': () => ({ ok: true }),
    'calc.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'calc.fail always fails');
    },
    'calc.hold': (_input, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener(
          'abort',
          () => {
            resolve({});
          },
          { once: true },
        );
      }),
    'calc.v0': () => ({}),
    'calc.v1': () => ({}),
    'calc.v2': () => ({}),
  }),
});

/** `lab.think` is charged, reports LLM tokens and declares a read; `lab.secret` needs a scope. */
const lab = defineAgent({
  card: {
    id: 'lab',
    name: 'Lab',
    version: '1.0.0',
    tier: 'L3',
    capabilities: ['lab.think', 'lab.secret'].map((verb) => ({ verb, input: {}, output: {} })),
  },
  verbs: [
    {
      name: 'lab.think',
      version: 1,
      status: 'stable',
      input: true,
      output: true,
      effects: { charges: ['tokens'], reads: ['budget'] },
      capabilities: [],
      category: 'query',
      deterministic: false,
    },
    {
      name: 'lab.secret',
      version: 1,
      status: 'stable',
      input: true,
      output: true,
      effects: {},
      capabilities: ['lab:secret'],
      category: 'query',
      deterministic: false,
    },
  ],
  create: () => ({
    'lab.think': (_input, ctx) => {
      ctx.telemetry({ llm: { model: 'm-small', inputTokens: 5, outputTokens: 1 } });
      ctx.telemetry({ llm: { inputTokens: 12, outputTokens: 3 } }); // a later report replaces
      return { thought: true };
    },
    'lab.secret': () => ({ secret: true }),
  }),
});

function esrp(operation: string, mode: 'sync' | 'async' = 'sync', service = 'calc'): string {
  return JSON.stringify({
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'test' },
    target: { service, operation },
    inputs: [{ name: 'text', content_type: 'text/plain', data: randomUUID(), encoding: 'utf-8' }],
    params: null,
    mode: { type: mode, timeout_ms: 30_000 },
  });
}

describe('metrics face (GET /metrics)', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(init: NodeInit = {}): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-metrics-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      demo: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [{ hash: key.hash, subject: 'alice', tenant: 'tenant-a' }],
      agents: [calc],
      ...init,
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function call(node: Node, operation: string, authorization = BEARER): Promise<number> {
    const res = await fetch(`${node.url}/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: esrp(operation),
    });
    await res.text();
    return res.status;
  }

  /** Scrapes `/metrics` with `authorization` (none when `''`). */
  async function scrape(node: Node, authorization = BEARER): Promise<Scrape> {
    const res = await fetch(
      `${node.url}/metrics`,
      authorization === '' ? {} : { headers: { authorization } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await res.text());
  }

  it('counts ESRP calls by verb, tenant and status, and times them', async () => {
    const node = await serve();
    expect(await call(node, 'ok')).toBe(200);
    expect(await call(node, 'ok')).toBe(200);
    expect(await call(node, 'fail')).toBeGreaterThanOrEqual(400);
    expect(await call(node, 'missing')).toBeGreaterThanOrEqual(400); // refused: no such verb
    const s = await scrape(node);
    expect(s.types.get('agentese_invocations_total')).toBe('counter');
    expect(s.types.get('agentese_invocation_duration_seconds')).toBe('histogram');
    const ok = { verb: 'calc.ok', tenant: 'tenant-a' };
    expect(sampleValue(s, 'agentese_invocations_total', { ...ok, status: 'success' })).toBe(2);
    expect(
      sampleValue(s, 'agentese_invocations_total', {
        verb: 'calc.fail',
        tenant: 'tenant-a',
        status: 'PRECONDITION_FAILED',
      }),
    ).toBe(1);
    expect(
      sampleValue(s, 'agentese_invocations_total', {
        verb: 'calc.missing',
        tenant: 'tenant-a',
        status: 'UNKNOWN_VERB',
      }),
    ).toBe(1);
    expect(sampleValue(s, 'agentese_invocation_duration_seconds_count', ok)).toBe(2);
    expect(sampleValue(s, 'agentese_invocation_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(2);
    expect(sampleValue(s, 'plexus_invocations_in_flight')).toBe(0);
    // every sync call is one commit of its held events
    expect(sampleValue(s, 'plexus_event_log_append_seconds_count')).toBeGreaterThanOrEqual(3);
    for (const name of [
      'agentese_effect_operations_total',
      'agentese_capability_checks_total',
      'agentese_transport_fallbacks_total',
      'agentese_cache_operations_total',
      'agentese_llm_tokens_total',
      'agentese_billing_charges_total',
    ]) {
      expect(s.types.get(name), name).toBe('counter');
    }
  });

  it('feeds the effect, capability, cache, LLM token and billing meters from real calls', async () => {
    const node = await serve({
      agents: [calc, lab],
      budgets: { prices: { tokens: 1000 } },
      // checked, not enforced: what a token would have to grant is counted as `forced`
      capabilities: { enabled: true, requireToken: false, enforce: false },
    });
    const post = async (body: string): Promise<number> => {
      const res = await fetch(`${node.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: BEARER },
        body,
      });
      await res.text();
      return res.status;
    };
    const think = esrp('think', 'sync', 'lab');
    expect(await post(think)).toBe(200);
    expect(await post(think)).toBe(200); // the same request again: answered from the cache
    expect(await post(esrp('think', 'sync', 'lab'))).toBe(200);
    expect(await post(esrp('secret', 'sync', 'lab'))).toBe(200);
    expect(await call(node, 'ok')).toBe(200);
    const s = await scrape(node);
    const think1 = { verb: 'lab.think' };
    expect(sampleValue(s, 'agentese_cache_operations_total', { ...think1, hit_miss: 'miss' })).toBe(2);
    expect(sampleValue(s, 'agentese_cache_operations_total', { ...think1, hit_miss: 'hit' })).toBe(1);
    // two runs, each with its two declared effects; the cached answer ran nothing
    expect(
      sampleValue(s, 'agentese_effect_operations_total', { effect: 'charges', resource: 'tokens' }),
    ).toBe(2);
    expect(sampleValue(s, 'agentese_effect_operations_total', { effect: 'reads', resource: 'budget' })).toBe(
      2,
    );
    expect(sampleValue(s, 'agentese_llm_tokens_total', { model: 'm-small', direction: 'input' })).toBe(24);
    expect(sampleValue(s, 'agentese_llm_tokens_total', { model: 'm-small', direction: 'output' })).toBe(6);
    expect(sampleValue(s, 'agentese_billing_charges_total', { meter: 'tokens', tenant: 'tenant-a' })).toBe(2);
    const checks = (scope: string, result: string): number | undefined =>
      sampleValue(s, 'agentese_capability_checks_total', { scope, result });
    expect(checks('verb', 'allowed')).toBe(1); // calc.ok declares nothing
    expect(checks('lab:secret', 'forced')).toBe(1);
    expect(checks('reads:budget', 'forced')).toBe(3); // the cached answer was checked too
  });

  it('answers 401 without a credential, and with a bad one, when not public', async () => {
    const node = await serve();
    const bare = await fetch(`${node.url}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await bare.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('UNAUTHORIZED');
    const bad = await fetch(`${node.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    await bad.text();
    await scrape(node, BEARER);
  });

  it('serves anyone when metrics.public is set, or on a dev node', async () => {
    const open = await serve({ metrics: { public: true } });
    await scrape(open, '');
    const dev = await serve({ dev: true, apiKeys: [] });
    await scrape(dev, '');
  });

  it('keeps no meters when metrics.enabled is false: calls still run, the scrape is 404', async () => {
    const node = await serve({ metrics: { enabled: false } });
    expect(await call(node, 'ok')).toBe(200);
    expect(await call(node, 'fail')).toBeGreaterThanOrEqual(400);
    for (const path of ['/metrics', '/ui/api/metrics']) {
      const res = await fetch(`${node.url}${path}`, { headers: { authorization: BEARER } });
      expect(res.status, path).toBe(404);
      const body = (await res.json()) as { error?: { code?: string; message?: string } };
      expect(body.error?.code, path).toBe('NOT_FOUND');
      expect(body.error?.message, path).toContain('no metrics');
    }
    // without a credential it is still refused first, as every face of the node
    expect((await fetch(`${node.url}/metrics`)).status).toBe(401);
  });

  it('puts verbs beyond metrics.maxVerbs in other', async () => {
    const node = await serve({ metrics: { maxVerbs: 2 } });
    for (const op of ['v0', 'v1', 'v2', 'v2']) expect(await call(node, op)).toBe(200);
    const s = await scrape(node);
    const ok = { tenant: 'tenant-a', status: 'success' };
    expect(sampleValue(s, 'agentese_invocations_total', { ...ok, verb: 'calc.v0' })).toBe(1);
    expect(sampleValue(s, 'agentese_invocations_total', { ...ok, verb: 'calc.v1' })).toBe(1);
    expect(sampleValue(s, 'agentese_invocations_total', { ...ok, verb: 'calc.v2' })).toBeUndefined();
    expect(sampleValue(s, 'agentese_invocations_total', { ...ok, verb: 'other' })).toBe(2);
  });

  it('keeps the meters of two nodes in one process apart', async () => {
    const a = await serve();
    const b = await serve();
    expect(await call(a, 'ok')).toBe(200);
    expect(sampleValue(await scrape(b), 'agentese_invocations_total', { verb: 'calc.ok' })).toBeUndefined();
    expect(sampleValue(await scrape(a), 'agentese_invocations_total', { verb: 'calc.ok' })).toBe(1);
  });

  it('counts requests shed by load shedding, and is scraped while the node is full', async () => {
    const node = await serve({ maxInFlight: 1 });
    const head = (await node.log.head()).seq;
    const submitted = await fetch(`${node.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: BEARER },
      body: esrp('hold', 'async'),
    });
    expect(submitted.status).toBe(202);
    await submitted.text();
    let job: string | undefined;
    for await (const event of node.log.subscribe(
      head,
      { type: 'job.started' },
      { signal: AbortSignal.timeout(20_000) },
    )) {
      job = event.causation;
      break;
    }
    expect(await call(node, 'ok')).toBe(429); // the async job holds the only slot
    const s = await scrape(node);
    expect(sampleValue(s, 'plexus_shed_requests_total')).toBe(1);
    expect(sampleValue(s, 'plexus_requests_in_flight')).toBe(1);
    expect(sampleValue(s, 'plexus_invocations_in_flight')).toBe(1);
    await node.runtime.jobs.cancel(job!);
    await node.runtime.jobs.wait(job!);
  });

  it('counts MCP tool calls by tool and status, and times them', async () => {
    const node = await serve();
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { authorization: BEARER } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const ok = tools.find((t) => t.name.endsWith('calc.ok'))!.name;
      const fail = tools.find((t) => t.name.endsWith('calc.fail'))!.name;
      expect((await client.callTool({ name: ok, arguments: {} })).isError).not.toBe(true);
      expect((await client.callTool({ name: fail, arguments: {} })).isError).toBe(true);
      const s = await scrape(node);
      expect(sampleValue(s, 'plexus_mcp_tool_calls_total', { tool: ok, status: 'success' })).toBe(1);
      expect(
        sampleValue(s, 'plexus_mcp_tool_calls_total', { tool: fail, status: 'PRECONDITION_FAILED' }),
      ).toBe(1);
      expect(sampleValue(s, 'plexus_mcp_tool_call_duration_seconds_count', { tool: ok })).toBe(1);
      // the call is an invocation too, counted under its verb
      expect(sampleValue(s, 'agentese_invocations_total', { verb: 'calc.ok', status: 'success' })).toBe(1);
    } finally {
      await client.close();
    }
  });
});
