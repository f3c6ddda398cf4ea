/**
 * The same `messageId` runs once (A2A-9) with the memory bound of A2A-23: the node keeps only a
 * few idempotency keys in memory here (`retainIdempotencyKeys: 2`), so the first message's key is
 * evicted; a resend of it is still the same task, found through the SQLite log's index of
 * `job.submitted` by key — while the node runs and after a restart on the same data directory.
 * Raw JSON-RPC v1.0 against a real node (in-process, the real SQLite store).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { a2aFace } from '../../../src/transports/a2a/a2a-face.js';

let runs = 0;
const counter = defineAgent({
  card: {
    id: 'counter',
    name: 'Counter',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'count.run', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({
    'count.run': (input: JsonValue) => {
      runs++;
      return { input, run: runs };
    },
  }),
});

interface RpcAnswer {
  readonly result?: { readonly task?: { readonly id: string; readonly status: { readonly state: string } } };
  readonly error?: { readonly code: number; readonly message: string };
}

describe('A2A idempotency beyond the in-memory keys (A2A-9, A2A-23)', () => {
  const nodes: Node[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function serve(dataDir: string): Promise<Node> {
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'sqlite',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      agents: [counter],
      faces: [a2aFace()],
      retainIdempotencyKeys: 2,
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function send(node: Node, messageId: string, n: number): Promise<RpcAnswer> {
    const res = await fetch(`${node.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'SendMessage',
        params: {
          message: {
            messageId,
            role: 'ROLE_USER',
            parts: [{ data: { verb: 'count.run', input: { n } } }],
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as RpcAnswer;
  }

  it('a resent messageId is the same task after its key left memory, and after a restart', async () => {
    runs = 0;
    dir = await mkdtemp(join(tmpdir(), 'plexus-a2a-idem-'));
    const first = await serve(dir);
    const once = await send(first, 'msg-once', 1);
    const taskId = once.result?.task?.id;
    expect(taskId, JSON.stringify(once)).toBeDefined();
    expect(once.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    for (let i = 2; i <= 5; i++) await send(first, `msg-other-${i}`, i);
    expect(runs).toBe(5);
    expect(first.runtime.views.idempotency.state().keys.size).toBe(2);
    expect([...first.runtime.views.idempotency.state().keys.keys()].some((k) => k.endsWith('msg-once'))).toBe(
      false,
    );

    const resent = await send(first, 'msg-once', 1);
    expect(resent.result?.task?.id).toBe(taskId);
    expect(runs).toBe(5);
    // the same messageId with another message is refused, not run
    const changed = await send(first, 'msg-once', 99);
    expect(changed.error, JSON.stringify(changed)).toBeDefined();
    expect(changed.error?.message).toMatch(/different payload/);
    expect(runs).toBe(5);

    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);
    const second = await serve(dir);
    const afterRestart = await send(second, 'msg-once', 1);
    expect(afterRestart.result?.task?.id).toBe(taskId);
    expect(runs).toBe(5);
    const fresh = await send(second, 'msg-new', 6);
    expect(fresh.result?.task?.id).not.toBe(taskId);
    expect(runs).toBe(6);
  });
});
