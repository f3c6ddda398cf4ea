// Issue 11, item 14 (cancelled jobs, state names): a cancelled job reports CANCELLED on every
// face — ESRP (state `cancelled`, code CANCELLED, never UNKNOWN), WebSocket JSON-RPC, Emergence,
// the SDK's remote client and the CLI — and `plexus jobs ls` names job states the same way
// online (the node) and offline (its data directory). On the original main ESRP, the CLI and the
// SSE stream said UNKNOWN, and offline listings said CANCELED where online ones said cancelled.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { remoteClient } from '../../src/sdk/index.js';
import { runCli } from '../cli/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'plexus-cancel-'));
let node: Node;

/**
 * Waits (bounded) for a running `demo.slow` job the test has not cancelled yet, and cancels it.
 * A running sync job writes no event until it ends (its events are held), so there is no event
 * to wait on: the listing, which shows running sync jobs too, is polled.
 */
const cancelled = new Set<string>();
async function cancelRunning(): Promise<string> {
  for (let i = 0; i < 1000; i++) {
    const page = await node.runtime.jobs.list({ states: ['WORKING'], verb: 'demo.slow' });
    const job = page.jobs.find((j) => !cancelled.has(j.id));
    if (job !== undefined) {
      cancelled.add(job.id);
      await node.runtime.jobs.cancel(job.id, { reason: 'cancelled by the test' });
      return job.id;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no demo.slow job started');
}

/** A fresh slow input (distinct, so ESRP's payload-hash idempotency never joins two calls). */
let calls = 0;
function slow(): { seconds: number; steps: number } {
  calls += 1;
  return { seconds: 20, steps: calls };
}

beforeAll(async () => {
  node = createNode({ dataDir: dir, port: 0, dev: true, demo: true });
  await node.start();
}, 60_000);

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  rmSync(dir, { recursive: true, force: true });
});

describe('a cancelled job reads CANCELLED on every face', () => {
  it('ESRP: the sync answer, GET /v1/jobs/{id}, and the CLI', async () => {
    const answer = fetch(`${node.url}/v1/execute`, {
      method: 'POST',
      body: JSON.stringify({
        esrp_version: '1.0',
        request_id: randomUUID(),
        timestamp: new Date().toISOString(),
        caller: { system: 'curl' },
        target: { service: 'demo', operation: 'slow' },
        inputs: [
          {
            name: 'input',
            content_type: 'application/json',
            data: JSON.stringify(slow()),
            encoding: 'utf-8',
          },
        ],
      }),
    });
    const id = await cancelRunning();
    const body = (await (await answer).json()) as {
      job: { state: string };
      error: { code: string; details: { plexus_code: string; suggested_action: string } };
    };
    expect(body.job.state).toBe('cancelled');
    expect(body.error.code).toBe('CANCELLED');
    expect(body.error.details.plexus_code).toBe('CANCELLED');
    const shown = (await (await fetch(`${node.url}/v1/jobs/${id}`)).json()) as typeof body;
    expect(shown.error.code).toBe('CANCELLED');
    expect(shown.job.state).toBe('cancelled');
    const cli = await runCli(['jobs', 'show', id, '--node', node.url]);
    expect(cli.out).toMatch(/state\s+cancelled/);
    expect(cli.out).toMatch(/CANCELLED\/CANCELLED/);
    expect(cli.out).not.toMatch(/UNKNOWN/);
  });

  it('WebSocket JSON-RPC: the error data names CANCELLED', async () => {
    const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = new Promise<{ error?: { data?: { code?: string } } }>((resolve) => {
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { id?: unknown };
        if (message.id === 7) resolve(message as { error?: { data?: { code?: string } } });
      });
    });
    ws.send(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'demo.slow', params: { ...slow(), _x_stream: false } }),
    );
    await cancelRunning();
    expect((await answer).error?.data?.code).toBe('CANCELLED');
    ws.terminate();
  });

  it('Emergence: ERROR with the cancelled status, not a server error', async () => {
    const answer = fetch(`${node.url}/emergence`, {
      method: 'POST',
      body: JSON.stringify({
        id: randomUUID(),
        from: 'emergence-probe',
        to: 'demo',
        verb: 'HELP',
        data: { verb: 'demo.slow', input: slow() },
      }),
    });
    await cancelRunning();
    const response = await answer;
    const body = (await response.json()) as { verb: string; data: { code: number; msg: string } };
    expect(body.verb).toBe('ERROR');
    expect(body.data.code).toBe(409);
    expect(response.status).toBe(409);
    expect(body.data.msg).toMatch(/cancel/);
  });

  it('the SDK remote client: an InvocationError with code CANCELLED', async () => {
    const call = remoteClient(node.url).invoke('demo.slow', slow());
    const outcome = call.then(
      () => undefined,
      (error: unknown) => error as { code: string },
    );
    await cancelRunning();
    expect((await outcome)?.code).toBe('CANCELLED');
  });

  it('job state names are the same online and offline', async () => {
    const online = await runCli(['jobs', 'ls', '--node', node.url, '--state', 'cancelled']);
    const offline = await runCli(['jobs', 'ls', '--data', dir, '--state', 'cancelled']);
    const statesOf = (out: string): string[] =>
      out
        .trim()
        .split('\n')
        .filter((l) => /^[0-9a-f-]{36}\s/.test(l))
        .map((l) => l.split(/\s+/)[1] ?? '');
    expect(statesOf(online.out).length).toBeGreaterThanOrEqual(4);
    expect(new Set(statesOf(online.out))).toEqual(new Set(['cancelled']));
    expect(new Set(statesOf(offline.out))).toEqual(new Set(['cancelled']));
    const done = await runCli(['jobs', 'ls', '--data', dir, '--state', 'succeeded']);
    expect(done.out).not.toMatch(/COMPLETED|CANCELED/);
  });
});
