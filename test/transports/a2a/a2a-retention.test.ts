/**
 * Memory stays bounded after many tasks (issue 14, "Performance") without losing a task: a node
 * that keeps only a few finished jobs and idempotency keys in memory (`retainFinishedJobs: 3`,
 * `retainIdempotencyKeys: 3`; the defaults are 10,000 each, P3-002 and A2A-23) still answers
 * `GetTask` for a task that left memory — status, artifact and history read back from the log —
 * on both bindings, lists every task in `ListTasks` newest first across pages, and finds an old
 * task by its contextId; also after a restart on the same data directory. The in-memory state
 * stays within its bound however many tasks were sent. Raw JSON-RPC v1.0 and HTTP+JSON against a
 * real node (in-process, the real SQLite store).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTerminalJobState } from '../../../src/core/records/job.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { a2aFace } from '../../../src/transports/a2a/a2a-face.js';

const RETAIN = 3;
const TASKS = 12;

const counter = defineAgent({
  card: {
    id: 'counter',
    name: 'Counter',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'count.run', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({ 'count.run': (input: JsonValue) => ({ echoed: input }) }),
});

interface A2aTask {
  readonly id: string;
  readonly contextId: string;
  readonly status: { readonly state: string };
  readonly artifacts?: readonly { readonly parts: readonly { readonly data?: JsonValue }[] }[];
  readonly history?: readonly { readonly messageId: string; readonly role: string }[];
}

interface RpcAnswer<T> {
  readonly result?: T;
  readonly error?: { readonly code: number; readonly message: string };
}

describe('A2A tasks that left memory (issue 14, P3-002, A2A-23)', () => {
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
      retainFinishedJobs: RETAIN,
      retainIdempotencyKeys: RETAIN,
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function rpc<T>(node: Node, method: string, params: JsonValue): Promise<RpcAnswer<T>> {
    const res = await fetch(`${node.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as RpcAnswer<T>;
  }

  async function send(node: Node, n: number): Promise<A2aTask> {
    const answer = await rpc<{ task?: A2aTask }>(node, 'SendMessage', {
      message: {
        messageId: `retention-${n}`,
        role: 'ROLE_USER',
        parts: [{ data: { verb: 'count.run', input: { n } } }],
      },
    });
    const task = answer.result?.task;
    expect(task, JSON.stringify(answer)).toBeDefined();
    return task as A2aTask;
  }

  /** Every task `ListTasks` lists, following `nextPageToken` (bounded: one page per task at most). */
  async function listAll(node: Node, pageSize: number): Promise<A2aTask[]> {
    const all: A2aTask[] = [];
    let token = '';
    for (let page = 0; page <= TASKS; page++) {
      const answer = await rpc<{ tasks: A2aTask[]; nextPageToken: string }>(node, 'ListTasks', {
        pageSize,
        includeArtifacts: true,
        ...(token === '' ? {} : { pageToken: token }),
      });
      expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
      all.push(...(answer.result?.tasks ?? []));
      token = answer.result?.nextPageToken ?? '';
      if (token === '') return all;
    }
    throw new Error(`ListTasks did not end within ${TASKS + 1} pages`);
  }

  function finishedInMemory(node: Node): number {
    return [...node.runtime.views.jobs.state().values()].filter((e) => isTerminalJobState(e.job.state))
      .length;
  }

  /** What a task read back must show: completed, its own result and the message that started it. */
  function expectWhole(task: A2aTask | undefined, n: number, id: string): void {
    expect(task?.id).toBe(id);
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts[0]?.data).toEqual({ echoed: { n } });
    expect(task?.history?.map((m) => m.messageId)).toContain(`retention-${n}`);
  }

  async function expectOldTasksReadable(node: Node, sent: readonly A2aTask[]): Promise<void> {
    const oldest = sent[0] as A2aTask;
    expect(node.runtime.views.jobs.state().has(oldest.id)).toBe(false); // it left memory
    const got = await rpc<A2aTask>(node, 'GetTask', { id: oldest.id });
    expectWhole(got.result, 1, oldest.id);
    // the HTTP+JSON binding reads the same task
    const rest = await fetch(`${node.url}/a2a/tasks/${oldest.id}`, { headers: { 'a2a-version': '1.0' } });
    expect(rest.status).toBe(200);
    expectWhole((await rest.json()) as A2aTask, 1, oldest.id);

    const listed = await listAll(node, 5);
    expect(listed.map((t) => t.id)).toEqual(sent.map((t) => t.id).reverse());
    listed.forEach((task, i) => {
      expect(task.artifacts?.[0]?.parts[0]?.data).toEqual({ echoed: { n: TASKS - i } });
    });
    const byContext = await rpc<{ tasks: A2aTask[] }>(node, 'ListTasks', { contextId: oldest.contextId });
    expect(byContext.result?.tasks.map((t) => t.id)).toEqual([oldest.id]);
  }

  it('reads, lists and finds old tasks from the log while memory keeps only the newest, also after a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-a2a-retention-'));
    const first = await serve(dir);
    const sent: A2aTask[] = [];
    for (let n = 1; n <= TASKS; n++) {
      sent.push(await send(first, n));
      expect(finishedInMemory(first)).toBeLessThanOrEqual(RETAIN);
      expect(first.runtime.views.idempotency.state().keys.size).toBeLessThanOrEqual(RETAIN);
    }
    expect(finishedInMemory(first)).toBe(RETAIN);
    expect(first.runtime.views.jobs.state().size).toBe(RETAIN); // nothing is running
    await expectOldTasksReadable(first, sent);
    // a resend of the oldest message is still its task, not a new one (A2A-9 through the log)
    const resent = await send(first, 1);
    expect(resent.id).toBe(sent[0]?.id);

    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);
    const second = await serve(dir);
    expect(finishedInMemory(second)).toBe(RETAIN); // the rebuild keeps the same bound
    await expectOldTasksReadable(second, sent);
  });

  it('answers a task id that never existed as TaskNotFound, also once tasks have left memory', async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-a2a-retention-'));
    const node = await serve(dir);
    for (let n = 1; n <= RETAIN + 2; n++) await send(node, n);
    for (const id of ['00000000-0000-7000-8000-000000000000', 'not-a-task', 'x'.repeat(300)]) {
      const answer = await rpc<A2aTask>(node, 'GetTask', { id });
      expect(answer.error?.code, JSON.stringify(answer)).toBe(-32001);
    }
    const got = await rpc<A2aTask>(node, 'GetTask', { id: 'still serving' });
    expect(got.error?.code).toBe(-32001);
    expect((await send(node, 99)).status.state).toBe('TASK_STATE_COMPLETED');
  });
});
