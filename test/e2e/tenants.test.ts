import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openRpcSocket } from '../support/e2e-fixture.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  built,
  cleanup,
  esrpRequest,
  startNodeProcess,
  tenantKeys,
  type NodeProcess,
} from './harness.js';

// Tenant isolation on every face of a real node process (auth on, API keys bound to tenants):
// one tenant never reads, cancels, replays or watches another's jobs, sessions or memories,
// and another tenant's job looks exactly like a missing one.

const { acme, globex, ops, config: CONFIG } = tenantKeys(); // ops: bound to no tenant

let node: NodeProcess;

beforeAll(async () => {
  if (!built()) throw new Error('dist/ is missing: build first (npx tsc -b tsconfig.build.json)');
  node = await startNodeProcess({ flags: ['--demo'], config: CONFIG });
}, 30_000);

afterAll(async () => {
  await cleanup();
});

const auth = (key: { key: string }): Record<string, string> => ({ authorization: `Bearer ${key.key}` });

interface Reply {
  status: number;
  headers: Headers;
  body: {
    status?: string;
    job?: { job_id: string; state: string };
    outputs?: { data: string }[];
    error?: { code: string; message: string; details?: Record<string, unknown> };
  };
}

async function http(method: string, path: string, key: { key: string }, body?: unknown): Promise<Reply> {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { ...auth(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Reply['body'] };
}

async function slowJob(key: { key: string }): Promise<string> {
  const reply = await http(
    'POST',
    '/v1/jobs',
    key,
    esrpRequest('demo.slow', { seconds: 30, steps: 30 }, 'async'),
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body.job?.job_id as string;
}

/** The error of an answer with the job id written as `<id>` (to compare two refusals). */
function refusalShape(reply: Reply, id: string): unknown {
  return {
    status: reply.status,
    code: reply.body.error?.code,
    message: reply.body.error?.message.replaceAll(id, '<id>'),
    details: JSON.stringify(reply.body.error?.details ?? {}).replaceAll(id, '<id>'),
  };
}

describe('ESRP jobs across tenants', () => {
  it("answers GET of another tenant's job exactly like a missing job", async () => {
    const id = await slowJob(acme);
    expect((await http('GET', `/v1/jobs/${id}`, acme)).status).toBe(200);
    const foreign = await http('GET', `/v1/jobs/${id}`, globex);
    const missingId = `${id.slice(0, -4)}ffff`;
    const missing = await http('GET', `/v1/jobs/${missingId}`, globex);
    expect(foreign.status).toBe(404);
    expect(refusalShape(foreign, id)).toEqual(refusalShape(missing, missingId));
    expect((await http('GET', `/v1/jobs/${id}`, ops)).status).toBe(404);
    await http('DELETE', `/v1/jobs/${id}`, acme);
  });

  it("does not cancel another tenant's job", async () => {
    const id = await slowJob(acme);
    const foreign = await http('DELETE', `/v1/jobs/${id}`, globex);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.details?.['plexus_code']).toBe('NOT_FOUND');
    const still = await http('GET', `/v1/jobs/${id}`, acme);
    expect(['queued', 'started']).toContain(still.body.job?.state);
    const own = await http('DELETE', `/v1/jobs/${id}`, acme);
    expect(own.status).toBe(200);
    expect(own.body.job?.state).toBe('cancelled');
  });

  it("refuses the SSE stream of another tenant's job before sending any event", async () => {
    const id = await slowJob(acme);
    const foreign = await fetch(`${node.url}/v1/jobs/${id}/events`, { headers: auth(globex) });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-type')).toContain('application/json');
    expect(((await foreign.json()) as Reply['body']).error?.details?.['plexus_code']).toBe('NOT_FOUND');
    const controller = new AbortController();
    const own = await fetch(`${node.url}/v1/jobs/${id}/events`, {
      headers: auth(acme),
      signal: controller.signal,
    });
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    await http('DELETE', `/v1/jobs/${id}`, acme);
  });

  it("never answers one tenant's idempotency key with another tenant's job", async () => {
    const key = `shared-${randomUUID()}`;
    const first = await http(
      'POST',
      '/v1/execute',
      acme,
      esrpRequest('echo.echo', { who: 'acme' }, 'sync', { idempotency_key: key }),
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await http(
      'POST',
      '/v1/execute',
      acme,
      esrpRequest('echo.echo', { who: 'acme' }, 'sync', { idempotency_key: key }),
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.job?.job_id).toBe(first.body.job?.job_id);

    const same = await http(
      'POST',
      '/v1/execute',
      globex,
      esrpRequest('echo.echo', { who: 'acme' }, 'sync', { idempotency_key: key }),
    );
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotent-replayed')).toBeNull();
    expect(same.body.job?.job_id).not.toBe(first.body.job?.job_id);
    const other = await http(
      'POST',
      '/v1/execute',
      globex,
      esrpRequest('echo.echo', { who: 'globex' }, 'sync', { idempotency_key: `${key}-2` }),
    );
    expect(other.body.outputs?.[0]?.data).toContain('globex');
    const otherPayload = await http(
      'POST',
      '/v1/execute',
      ops,
      esrpRequest('echo.echo', { who: 'ops' }, 'sync', { idempotency_key: key }),
    );
    expect(otherPayload.status, JSON.stringify(otherPayload.body)).toBe(200); // no CONFLICT across tenants
    expect(otherPayload.body.outputs?.[0]?.data).toContain('ops');
  });
});

describe('plexus trace', () => {
  it("draws a tenant's own trace with --tenant, and another tenant's as unknown", async () => {
    const traceHex = randomUUID().replaceAll('-', '');
    const traceId = `${traceHex.slice(0, 8)}-${traceHex.slice(8, 12)}-${traceHex.slice(12, 16)}-${traceHex.slice(16, 20)}-${traceHex.slice(20)}`;
    const context = { trace_id: traceId, span_id: randomUUID(), tags: null };
    const done = await http(
      'POST',
      '/v1/execute',
      acme,
      esrpRequest('echo.echo', { traced: true }, 'sync', { context }),
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const trace = (tenant: string) =>
      spawnSync(
        process.execPath,
        [BIN, 'trace', traceHex, '--data', node.dataDir, '--json', '--tenant', tenant],
        {
          encoding: 'utf8',
          env: { ...process.env, PLEXUS_NODE: '' },
          timeout: 20_000,
        },
      );
    const own = trace('acme');
    expect(own.status, own.stderr).toBe(0);
    expect(own.stdout).toContain(done.body.job?.job_id as string);
    const foreign = trace('globex');
    expect(foreign.status).not.toBe(0);
    expect(foreign.stderr).toContain('no job');
    expect(foreign.stdout).not.toContain(done.body.job?.job_id as string);
  });
});

describe('Emergence across tenants', () => {
  it("runs a HELP whose id another tenant used, instead of replaying that tenant's answer", async () => {
    const id = randomUUID();
    const help = (who: string) => ({
      id,
      from: 'e2e',
      to: 'echo',
      verb: 'HELP',
      data: { verb: 'echo.echo', input: { who } },
    });
    const first = await http('POST', '/emergence', acme, help('acme'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const replay = await http('POST', '/emergence', acme, help('acme'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const foreign = await http('POST', '/emergence', globex, help('globex'));
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    expect(foreign.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(foreign.body)).toContain('globex');
    expect(JSON.stringify(foreign.body)).not.toContain('acme');
  });
});

interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function rpc(key: {
  key: string;
}): Promise<{ call(method: string, params: unknown): Promise<RpcAnswer>; close(): void }> {
  const ws = await openRpcSocket(node.url, auth(key));
  let next = 1;
  const waiting = new Map<number, (answer: RpcAnswer) => void>();
  ws.on('message', (data: Buffer) => {
    const answer = JSON.parse(data.toString('utf8')) as RpcAnswer & { id?: number };
    if (typeof answer.id === 'number') waiting.get(answer.id)?.(answer);
  });
  return {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          reject(new Error(`no answer to ${method}`));
        }, 15_000);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }),
    close: () => {
      ws.terminate();
    },
  };
}

describe('the Hyperspace face across tenants', () => {
  it("keeps state sessions per tenant: another tenant's session looks missing", async () => {
    const a = await rpc(acme);
    const b = await rpc(globex);
    try {
      const created = await a.call('state.createSession', { agentName: 'acme-agent' });
      const sessionId = created.result?.['sessionId'] as string;
      expect(typeof sessionId, JSON.stringify(created)).toBe('string');
      expect((await a.call('state.setState', { sessionId, key: 'plan', value: 'secret' })).result).toEqual({
        updated: true,
      });
      expect((await a.call('state.getState', { sessionId, key: 'plan' })).result?.['value']).toBe('secret');

      const foreign = await b.call('state.getState', { sessionId, key: 'plan' });
      const missingId = randomUUID();
      const missing = await b.call('state.getState', { sessionId: missingId, key: 'plan' });
      expect(missing.error?.code).toBe(-32001); // SESSION_NOT_FOUND
      expect(foreign.error?.code).toBe(missing.error?.code);
      expect(foreign.error?.message.replaceAll(sessionId, '<id>')).toBe(
        missing.error?.message.replaceAll(missingId, '<id>'),
      );
      expect((await b.call('state.setState', { sessionId, key: 'plan', value: 'x' })).error?.code).toBe(
        missing.error?.code,
      );
      expect((await a.call('state.getState', { sessionId, key: 'plan' })).result?.['value']).toBe('secret');
    } finally {
      a.close();
      b.close();
    }
  });

  it("keeps memories per tenant: a search never returns another tenant's memory", async () => {
    const a = await rpc(acme);
    const b = await rpc(globex);
    try {
      const content = `acme merger plan ${randomUUID()}`;
      const stored = await a.call('memory.store', { content });
      const id = stored.result?.['id'];
      expect(typeof id, JSON.stringify(stored)).toBe('string');
      const own = await a.call('memory.search', { query: content, limit: 10 });
      expect(JSON.stringify(own.result)).toContain(String(id));
      const foreign = await b.call('memory.search', { query: content, limit: 10 });
      expect(foreign.error, JSON.stringify(foreign)).toBeUndefined();
      expect(JSON.stringify(foreign.result)).not.toContain(String(id));
      expect(JSON.stringify(foreign.result)).not.toContain('acme merger');
    } finally {
      a.close();
      b.close();
    }
  });

  it('scopes _x_idempotency_key by tenant', async () => {
    const a = await rpc(acme);
    const b = await rpc(globex);
    try {
      const key = `ws-${randomUUID()}`;
      const first = await a.call('echo.echo', { who: 'acme', _x_idempotency_key: key });
      expect(first.result).toEqual({ who: 'acme' });
      const foreign = await b.call('echo.echo', { who: 'globex', _x_idempotency_key: key });
      expect(foreign.error, JSON.stringify(foreign)).toBeUndefined();
      expect(foreign.result).toEqual({ who: 'globex' });
    } finally {
      a.close();
      b.close();
    }
  });
});
