/**
 * The A2A bindings (issue 14 items 2 and 3), JSON-RPC and HTTP+JSON, on a real node on loopback,
 * driven by the stock `@a2a-js/sdk` client (`ClientFactory().createFromUrl`) with one transport
 * at a time, and by raw HTTP for what a conforming client never sends (bad JSON, an unknown
 * version, no credential, v0.3 methods).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { a2aFace } from '../../../src/transports/a2a/a2a-face.js';

const keyA = generateApiKey();
const keyB = generateApiKey();

const echo = defineAgent({
  card: {
    id: 'echo',
    name: 'Echo',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      {
        verb: 'echo.say',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        output: { type: 'object' },
      },
      { verb: 'echo.data', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'echo.fail', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  create: () => ({
    'echo.say': (input: JsonValue) => ({ said: (input as { text: string }).text }),
    'echo.data': (input: JsonValue) => ({ got: input }),
    'echo.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'the echo refuses');
    },
  }),
});

/** A verb that reports three steps of progress, and one that runs until it is cancelled or released. */
let release: (() => void) | undefined;
let onWait: ((release: () => void) => void) | undefined;
/** Resolves with the release function of the next `slow.wait` once its handler runs. */
function waitStarted(): Promise<() => void> {
  return new Promise((resolve) => {
    onWait = resolve;
  });
}
const slow = defineAgent({
  card: {
    id: 'slow',
    name: 'Slow',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'slow.steps', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'slow.wait', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  create: () => ({
    'slow.steps': (_input: JsonValue, context) => {
      for (let i = 1; i <= 3; i++) context.progress({ step: i });
      return { steps: 3 };
    },
    'slow.wait': (_input: JsonValue, context) =>
      new Promise((resolve, reject) => {
        release = () => {
          resolve({ released: true });
        };
        onWait?.(release);
        context.signal.addEventListener(
          'abort',
          () => {
            reject(new PlexusError('CANCELLED', 'cancelled'));
          },
          {
            once: true,
          },
        );
      }),
  }),
});

let counter = 0;
function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}
function dataPart(value: JsonValue): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}
function message(parts: Part[], extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${process.pid}-${++counter}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}
function send(msg: Message, configuration?: { returnImmediately?: boolean; historyLength?: number }) {
  return {
    tenant: '',
    message: msg,
    configuration:
      configuration === undefined
        ? undefined
        : {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            returnImmediately: configuration.returnImmediately ?? false,
            ...(configuration.historyLength === undefined
              ? {}
              : { historyLength: configuration.historyLength }),
          },
    metadata: undefined,
  };
}
function asTask(result: unknown): Task {
  expect(result).toHaveProperty('id');
  expect(result).toHaveProperty('status');
  return result as Task;
}
function resultData(task: Task): unknown {
  const content = task.artifacts[0]?.parts[0]?.content;
  return content?.$case === 'data' || content?.$case === 'text' ? content.value : undefined;
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('A2A %s binding', (binding) => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    release?.();
    release = undefined;
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents: [echo, slow],
      faces: [a2aFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node, key = keyA.key, path?: string): Promise<Client> {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        // only this binding's transport, authenticated (the default ones send no credential)
        transports: [
          binding === 'JSONRPC'
            ? // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the SDK does not export the options class
              new JsonRpcTransportFactory({ fetchImpl })
            : // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- as above
              new RestTransportFactory({ fetchImpl }),
        ],
        preferredTransports: [binding],
      }),
    );
    const client = await (path === undefined
      ? factory.createFromUrl(node.url)
      : factory.createFromUrl(node.url, path));
    expect(client.transport.protocolName).toBe(binding);
    return client;
  }

  async function raw(
    node: Node,
    body: string,
    headers: Record<string, string> = {},
    path = '/a2a',
  ): Promise<{
    status: number;
    json: { id?: unknown; result?: unknown; error?: { code: number; message: string } };
  }> {
    const res = await fetch(`${node.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keyA.key}`,
        'content-type': 'application/json',
        'a2a-version': '1.0',
        ...headers,
      },
      body,
    });
    return { status: res.status, json: (await res.json()) as never };
  }

  it('sends a text message to the verb with one text field and answers the completed task', async () => {
    const node = await serve();
    const client = await connect(node);
    const task = asTask(await client.sendMessage(send(message([textPart('hello')]))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultData(task)).toEqual({ said: 'hello' });
    expect(task.history.map((m) => m.parts[0]?.content)).toEqual([{ $case: 'text', value: 'hello' }]);
    const job = await node.runtime.jobs.get(task.id);
    expect(job.verb).toBe('echo.say');
    expect(job.tenantId).toBe('tenant-a');
    expect(job.sessionId).toBe(task.contextId);
  });

  it('maps a data part {verb, input} and a skill named in the metadata', async () => {
    const node = await serve();
    const client = await connect(node);
    const byData = asTask(
      await client.sendMessage(send(message([dataPart({ verb: 'echo/echo.data', input: { n: 1 } })]))),
    );
    expect(resultData(byData)).toEqual({ got: { n: 1 } });
    const bySkill = asTask(
      await client.sendMessage(send(message([dataPart({ n: 2 })], { metadata: { skill: 'echo.data' } }))),
    );
    expect(resultData(bySkill)).toEqual({ got: { n: 2 } });
  });

  it('answers a message that maps to nothing with InvalidParams naming the skills, and keeps serving', async () => {
    const node = await serve();
    const client = await connect(node);
    await expect(client.sendMessage(send(message([dataPart({ x: 1 })])))).rejects.toThrow(
      /names no skill.*echo\/echo\.say/,
    );
    await expect(client.sendMessage(send(message([dataPart({ verb: 'nope.nothing' })])))).rejects.toThrow(
      /no skill "nope.nothing"/,
    );
    const answer = await raw(
      node,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'x1', role: 'ROLE_USER', parts: [{ data: { x: 1 } }] } },
      }),
    );
    expect(answer.json.error?.code).toBe(-32602);
    const rawPart = {
      content: { $case: 'raw' as const, value: Buffer.from('tck') },
      metadata: undefined,
      filename: '',
      mediaType: 'application/x-unsupported',
    };
    await expect(client.sendMessage(send(message([rawPart])))).rejects.toThrow(/not accepted/);
    const task = asTask(await client.sendMessage(send(message([textPart('still here')]))));
    expect(resultData(task)).toEqual({ said: 'still here' });
  });

  it('returns at once with returnImmediately, then GetTask shows the finished task', async () => {
    const node = await serve();
    const client = await connect(node);
    const started = waitStarted();
    const task = asTask(
      await client.sendMessage(
        send(message([dataPart({ verb: 'slow.wait', input: {} })]), { returnImmediately: true }),
      ),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    (await started)();
    await node.runtime.jobs.wait(task.id);
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history).toEqual([]);
    expect(resultData(got)).toEqual({ released: true });
  });

  it('streams the task, its progress, its artifact and its final status, in order', async () => {
    const node = await serve();
    const client = await connect(node);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(message([dataPart({ verb: 'slow.steps' })])))) {
      events.push(event);
    }
    const kinds = events.map(
      (e) =>
        (e as unknown as { kind?: string; payload?: { $case: string } }).payload?.$case ??
        (e as { kind?: string }).kind,
    );
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-1)).toBe('statusUpdate');
    expect(kinds).toContain('artifactUpdate');
    expect(kinds.indexOf('artifactUpdate')).toBeLessThan(kinds.length - 1);
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const progress = events.filter(
      (e) =>
        e.payload?.$case === 'statusUpdate' &&
        e.payload.value.status?.message?.metadata?.['progress'] === true,
    );
    expect(progress).toHaveLength(3);
  });

  it('cancels a running task; a finished one is not cancelable; another tenant sees no task', async () => {
    const node = await serve();
    const client = await connect(node);
    const task = asTask(
      await client.sendMessage(send(message([dataPart({ verb: 'slow.wait' })]), { returnImmediately: true })),
    );
    const other = await connect(node, keyB.key);
    await expect(other.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toThrow(
      /no task/,
    );
    await expect(other.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(
      /no task/,
    );
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(
      /cannot be cancelled/,
    );
    const listedByB = await other.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listedByB.tasks).toEqual([]);
  });

  it('runs a repeated messageId once', async () => {
    const node = await serve();
    const client = await connect(node);
    const msg = message([textPart('once')]);
    const first = asTask(await client.sendMessage(send(msg)));
    const second = asTask(await client.sendMessage(send(msg)));
    expect(second.id).toBe(first.id);
    const page = await node.runtime.jobs.list({ verb: 'echo.say' });
    expect(page.jobs).toHaveLength(1);
  });

  it('lists tasks by context, newest first, in pages', async () => {
    const node = await serve();
    const client = await connect(node);
    const contextId = `ctx-${process.pid}`;
    const ids: string[] = [];
    for (const text of ['a', 'b', 'c']) {
      ids.push(asTask(await client.sendMessage(send(message([textPart(text)], { contextId })))).id);
    }
    await client.sendMessage(send(message([textPart('elsewhere')])));
    const seen: string[] = [];
    let pageToken = '';
    for (let page = 0; page < 5; page++) {
      const answer = await client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 2,
        pageToken,
        statusTimestampAfter: undefined,
      });
      seen.push(...answer.tasks.map((t) => t.id));
      for (const t of answer.tasks) expect(t.contextId).toBe(contextId);
      pageToken = answer.nextPageToken;
      if (pageToken === '') break;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('resubscribes to a running task and follows it to the end; a finished task is refused', async () => {
    const node = await serve();
    const client = await connect(node);
    const started = waitStarted();
    const task = asTask(
      await client.sendMessage(send(message([dataPart({ verb: 'slow.wait' })]), { returnImmediately: true })),
    );
    const stream = client.resubscribeTask({ tenant: '', id: task.id });
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    (await started)();
    const rest: StreamResponse[] = [];
    for await (const event of stream) rest.push(event);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(rest.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
    const again = client.resubscribeTask({ tenant: '', id: task.id });
    await expect(again.next()).rejects.toThrow(/has finished/);
  });

  it('serves one agent at /agents/{id}/a2a', async () => {
    const node = await serve();
    const client = await connect(node, keyA.key, '/agents/echo/.well-known/agent-card.json');
    const task = asTask(await client.sendMessage(send(message([textPart('agent')]))));
    expect(resultData(task)).toEqual({ said: 'agent' });
    await expect(client.sendMessage(send(message([dataPart({ verb: 'slow.steps' })])))).rejects.toThrow(
      /no skill "slow.steps"/,
    );
  });

  it('answers a failing verb with a FAILED task naming the Plexus code', async () => {
    const node = await serve();
    const client = await connect(node);
    const task = asTask(await client.sendMessage(send(message([dataPart({ verb: 'echo.fail' })]))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const text = task.status?.message?.parts[0]?.content;
    expect(text?.$case === 'text' && text.value).toMatch(/PRECONDITION_FAILED: the echo refuses/);
  });

  (binding === 'JSONRPC' ? it : it.skip)(
    'refuses bad input in the protocol form and keeps serving',
    async () => {
      const node = await serve();
      expect((await raw(node, '{not json')).json.error?.code).toBe(-32700);
      expect((await raw(node, '[]')).json.error?.code).toBeLessThan(0);
      expect(
        (await raw(node, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Nope', params: {} }))).json.error
          ?.code,
      ).toBe(-32601);
      expect(
        (
          await raw(
            node,
            JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'missing' } }),
          )
        ).json.error?.code,
      ).toBe(-32001);
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const answer = await raw(node, deep);
      expect(answer.json.error?.code).toBeLessThan(0);
      const version = await raw(
        node,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'x' } }),
        {
          'a2a-version': '9.9',
        },
      );
      expect(version.json.error?.code).toBe(-32009);
      const anonymous = await fetch(`${node.url}/a2a`, { method: 'POST', body: '{}' });
      expect(anonymous.status).toBe(401);
      const client = await connect(node);
      const task = asTask(await client.sendMessage(send(message([textPart('fine')]))));
      expect(resultData(task)).toEqual({ said: 'fine' });
    },
  );

  it('runs docs/faces/a2a.md: a stock client without credentials against a dev node with the demo agents', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-dev-'));
    dirs.push(dataDir);
    const node = createNode({ dataDir, store: 'memory', host: '127.0.0.1', port: 0, dev: true, demo: true });
    nodes.push(node);
    await node.start();
    const client = await new ClientFactory().createFromUrl(node.url);
    const task = asTask(
      await client.sendMessage(
        send(message([dataPart({ verb: 'math.evaluate', input: { expression: '2 * (3 + 4) ^ 2' } })])),
      ),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultData(task)).toMatchObject({ value: 98 });
  });

  (binding === 'HTTP+JSON' ? it : it.skip)(
    'answers bad REST input with A2A error bodies and keeps serving',
    async () => {
      const node = await serve();
      const post = async (path: string, body: string, version = '1.0') => {
        const res = await fetch(`${node.url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${keyA.key}`,
            'content-type': 'application/json',
            'a2a-version': version,
          },
          body,
        });
        return {
          status: res.status,
          json: (await res.json()) as { error?: { code?: number; status?: string; message?: string } },
        };
      };
      const broken = await post('/a2a/message:send', '{not json');
      expect(broken.status).toBe(400);
      expect(broken.json.error?.message).toBeDefined();
      const nothing = await post(
        '/a2a/message:send',
        JSON.stringify({ message: { messageId: 'r1', role: 'ROLE_USER', parts: [{ data: {} }] } }),
      );
      expect(nothing.status).toBe(400);
      expect(nothing.json.error?.message).toMatch(/names no skill/);
      const version = await post('/a2a/message:send', '{}', '0.9');
      expect(version.status).toBeGreaterThanOrEqual(400);
      expect(version.json.error?.message).toMatch(/not supported/);
      const missing = await fetch(`${node.url}/a2a/tasks/missing`, {
        headers: { authorization: `Bearer ${keyA.key}`, 'a2a-version': '1.0' },
      });
      expect(missing.status).toBe(404);
      const ok = await post(
        '/a2a/message:send',
        JSON.stringify({ message: { messageId: 'r2', role: 'ROLE_USER', parts: [{ text: 'rest' }] } }),
      );
      expect(ok.status).toBe(200);
      expect(JSON.stringify(ok.json)).toContain('rest');
    },
  );

  (binding === 'JSONRPC' ? it : it.skip)(
    'serves a v0.3 client (no A2A-Version header: slash methods, lower-case states)',
    async () => {
      const node = await serve();
      const res = await fetch(`${node.url}/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keyA.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: 'legacy-1',
              role: 'user',
              parts: [{ kind: 'text', text: 'old' }],
            },
          },
        }),
      });
      const body = (await res.json()) as { result?: { kind: string; status: { state: string }; id: string } };
      expect(body.result?.kind).toBe('task');
      expect(body.result?.status.state).toBe('completed');
      const get = await fetch(`${node.url}/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keyA.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: body.result?.id } }),
      });
      expect(((await get.json()) as { result?: { status: { state: string } } }).result?.status.state).toBe(
        'completed',
      );
    },
  );
});
