// Issue 11, item 14 (traces): every HTTP face honours the W3C `traceparent` / `tracestate`
// request headers and answers with the trace id (`traceparent` response header; ESRP `context`),
// an invalid traceparent starts a new trace instead of failing, and `plexus trace <id>` — the
// real CLI, against the data directory of a real node process — finds a call made by plain HTTP.
// On the original main the header was ignored and no trace id came back.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, startNodeProcess, type NodeProcess } from '../e2e/harness.js';

const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function hex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

/** A fresh caller traceparent: its trace id and the header value. */
function callerTrace(): { traceId: string; spanId: string; header: string } {
  const traceId = `a${hex(16).slice(1)}`;
  const spanId = `b${hex(8).slice(1)}`;
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

function esrpBody(service: string, operation: string, input: unknown): string {
  return JSON.stringify({
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'curl' },
    target: { service, operation },
    inputs: [
      { name: 'input', content_type: 'application/json', data: JSON.stringify(input), encoding: 'utf-8' },
    ],
  });
}

/** The trace id of a response's `traceparent` header (fails the test when it is not W3C-shaped). */
function servedTraceId(response: Response): { traceId: string; spanId: string } {
  const header = response.headers.get('traceparent') ?? '';
  const m = W3C.exec(header);
  expect(m, `traceparent response header ${JSON.stringify(header)}`).not.toBeNull();
  return { traceId: m?.[1] ?? '', spanId: m?.[2] ?? '' };
}

let node: NodeProcess;

/** Runs the real `plexus trace` on the node's data directory. */
function plexusTrace(id: string): { code: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [BIN, 'trace', id, '--data', node.dataDir, '--json'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

function tracedVerbs(id: string): string[] {
  const run = plexusTrace(id);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  const view = JSON.parse(run.out) as { spans: { verb: string }[] };
  return view.spans.map((s) => s.verb);
}

beforeAll(async () => {
  node = await startNodeProcess({ flags: ['--dev', '--demo'] });
}, 60_000);

afterAll(async () => {
  await cleanup();
});

describe('W3C traceparent on the HTTP faces', () => {
  it('ESRP: continues the caller trace, names it (header, tracestate, context) and plexus trace finds it', async () => {
    const caller = callerTrace();
    const response = await fetch(`${node.url}/v1/execute`, {
      method: 'POST',
      headers: { traceparent: caller.header, tracestate: 'vendor=abc,other=1' },
      body: esrpBody('state', 'create_session', {}),
    });
    expect(response.status).toBe(200);
    const served = servedTraceId(response);
    expect(served.traceId).toBe(caller.traceId);
    expect(served.spanId).not.toBe(caller.spanId); // the node's own span, a child of the caller's
    expect(response.headers.get('tracestate')).toBe('vendor=abc,other=1');
    const body = (await response.json()) as { status: string; context: { trace_id: string } };
    expect(body.status).toBe('succeeded');
    expect(body.context.trace_id.replace(/-/g, '')).toBe(caller.traceId);
    expect(tracedVerbs(caller.traceId)).toEqual(['state.create_session']);
    // the ESRP (UUID) form of the id and the served traceparent work too
    expect(tracedVerbs(body.context.trace_id)).toEqual(['state.create_session']);
    expect(tracedVerbs(response.headers.get('traceparent') ?? '')).toEqual(['state.create_session']);
  }, 90_000);

  it('ESRP: an invalid traceparent is ignored (a new trace, not an error), and its tracestate dropped', async () => {
    const good = callerTrace();
    const invalid = [
      'garbage',
      good.header.toUpperCase(),
      `00-${'0'.repeat(32)}-${good.spanId}-01`,
      `00-${good.traceId}-${'0'.repeat(16)}-01`,
      `ff-${good.traceId}-${good.spanId}-01`,
      `00-${good.traceId}-${good.spanId}-01-extra`,
      `00-${good.traceId}-${good.spanId}`,
      `${good.header}\u0000`,
    ];
    const seen = new Set<string>();
    for (const [i, header] of invalid.entries()) {
      const response = await fetch(`${node.url}/v1/execute`, {
        method: 'POST',
        headers: { traceparent: header, tracestate: 'vendor=abc' },
        body: esrpBody('math', 'evaluate', { expression: `1+${i}` }),
      }).catch(() => undefined); // fetch itself refuses a NUL in a header value: nothing to check then
      if (response === undefined) continue;
      expect(response.status, header).toBe(200);
      const served = servedTraceId(response);
      expect(served.traceId, header).not.toBe(good.traceId);
      expect(seen.has(served.traceId), 'each request starts its own trace').toBe(false);
      seen.add(served.traceId);
      expect(response.headers.get('tracestate'), header).toBeNull();
      if (i === 0) expect(tracedVerbs(served.traceId)).toEqual(['math.evaluate']); // the new trace is real
    }
    expect(seen.size).toBeGreaterThanOrEqual(invalid.length - 1);
  }, 60_000);

  it('a future version is read by its first four fields (W3C forward compatibility)', async () => {
    const caller = callerTrace();
    const response = await fetch(`${node.url}/v1/execute`, {
      method: 'POST',
      headers: { traceparent: `01-${caller.traceId}-${caller.spanId}-01-future-fields` },
      body: esrpBody('math', 'evaluate', { expression: '2+2' }),
    });
    expect(response.status).toBe(200);
    expect(servedTraceId(response).traceId).toBe(caller.traceId);
  });

  it('Emergence: a HELP continues the caller trace and plexus trace finds it', async () => {
    const caller = callerTrace();
    const response = await fetch(`${node.url}/emergence`, {
      method: 'POST',
      headers: { traceparent: caller.header },
      body: JSON.stringify({
        id: randomUUID(),
        from: 'curl-agent',
        to: 'broadcast',
        verb: 'HELP',
        data: { verb: 'math.evaluate', input: { expression: '3*3' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(servedTraceId(response).traceId).toBe(caller.traceId);
    expect(tracedVerbs(caller.traceId)).toContain('math.evaluate');
  }, 60_000);

  it('job routes, SSE, discovery, errors and the peer route answer in the caller trace', async () => {
    const submit = await fetch(`${node.url}/v1/jobs`, {
      method: 'POST',
      body: esrpBody('math', 'evaluate', { expression: '4+4' }),
    });
    const { job } = (await submit.json()) as { job: { job_id: string } };
    const paths: [string, RequestInit][] = [
      [`/v1/jobs/${job.job_id}`, {}],
      [`/v1/jobs/${job.job_id}/events`, {}],
      ['/v1/jobs', {}],
      ['/agents', {}],
      ['/v1/jobs/no-such-job', {}],
      ['/no/such/route', {}],
      ['/v1/peer/invoke', { method: 'POST', body: '{"not":"an envelope"}' }],
      ['/emergence', { method: 'POST', body: '{broken' }],
    ];
    for (const [path, init] of paths) {
      const caller = callerTrace();
      const response = await fetch(`${node.url}${path}`, {
        ...init,
        headers: { traceparent: caller.header, tracestate: 'k=v' },
        signal: AbortSignal.timeout(15_000),
      });
      expect(servedTraceId(response).traceId, path).toBe(caller.traceId);
      expect(response.headers.get('tracestate'), path).toBe('k=v');
      await response.body?.cancel();
    }
  });

  it('WebSocket: the upgrade answers in the caller trace and each call is a span of it', async () => {
    const caller = callerTrace();
    const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { traceparent: caller.header },
    });
    const opened = new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const upgrade = await new Promise<Record<string, string | string[] | undefined>>((resolve) => {
      ws.once('upgrade', (response) => {
        resolve(response.headers);
      });
    });
    await opened;
    expect(W3C.exec(String(upgrade['traceparent']))?.[1]).toBe(caller.traceId);
    const answer = await new Promise<{ result?: unknown }>((resolve) => {
      ws.once('message', (data: Buffer) => {
        resolve(JSON.parse(data.toString('utf8')) as { result?: unknown });
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'state.createSession', params: {} }));
    });
    ws.terminate();
    expect(answer.result).toBeDefined();
    expect(tracedVerbs(caller.traceId)).toEqual(['state.create_session']);
  }, 60_000);

  it('WebSocket: a refused upgrade names its trace too', async () => {
    const caller = callerTrace();
    const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/not-a-ws-path`, {
      headers: { traceparent: caller.header },
    });
    const refused = await new Promise<{ status: number; traceparent: unknown }>((resolve) => {
      ws.once('unexpected-response', (_request, response) => {
        resolve({ status: response.statusCode ?? 0, traceparent: response.headers['traceparent'] });
        response.resume();
      });
      ws.once('error', () => undefined);
    });
    ws.terminate();
    expect(refused.status).toBe(404);
    expect(W3C.exec(String(refused.traceparent))?.[1]).toBe(caller.traceId);
  });
});
