/**
 * A port of the rest of the A2A TCK (a2aproject/a2a-tck, branch 1.0-dev) requirement files at
 * MUST level: `data_model.py`, `binding_jsonrpc.py`, `push_notifications.py`, `auth.py` and
 * `interop.py` — one test per requirement id, against real `plexus start` processes (a dev node
 * with the demo agents, pointed at the `tck` agent as the TCK is; and a node with API keys of two
 * tenants for the auth requirements).
 *
 * The data-model and JSON-RPC binding requirements do not depend on Plexus, so they also run
 * against the A2A SDK's own server (`DefaultRequestHandler` + `InMemoryTaskStore` behind its
 * `JsonRpcTransportHandler` on node:http) with an executor playing the TCK scenarios these tests
 * use — which checks the suite itself. Where the SDK server does not meet a requirement the test
 * is marked `fails` for it, with the reason (`SDK_SERVER_FAILS`), so the list stays true.
 * What is not covered, and why: ./README.md.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { TaskState, type AgentCard } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../src/security/index.js';
import { startNodeProcess, type NodeProcess } from '../../e2e/harness.js';
import { useNodeProcess } from '../../support/e2e-fixture.js';
import { sdkAgentCard, startA2aSdkServer, type A2aSdkServer } from '../../support/a2a-sdk-server.js';
import { until } from '../../support/until.js';
import {
  TERMINAL,
  allSse,
  openStream,
  restAt,
  rpcAt,
  rpcBody,
  tckMessage,
  type RpcAnswer,
  type TaskJson,
} from './tck-client.js';

const e2e = useNodeProcess();

/** The A2A v1.0 task states (ProtoJSON names). */
const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  ...TERMINAL,
];
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The keys of a v1.0 Part's content oneof. */
const PART_CONTENT = ['text', 'raw', 'url', 'data'];

// ---------------------------------------------------------------------------------------------
// The A2A SDK's own server, playing the TCK scenarios the SDK-independent tests use.

/** `tck-input-required` waits for input; anything else completes with a text artifact. */
const tckExecutor: AgentExecutor = {
  execute(ctx, bus) {
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    const status = (state: TaskState) => ({
      state,
      message: undefined,
      timestamp: new Date().toISOString(),
    });
    if (ctx.task === undefined) {
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
    }
    const waits = ctx.task === undefined && ctx.userMessage.messageId.startsWith('tck-input-required');
    if (!waits) {
      bus.publish(
        AgentEvent.statusUpdate({
          ...base,
          status: status(TaskState.TASK_STATE_WORKING),
          metadata: undefined,
        }),
      );
      bus.publish(
        AgentEvent.artifactUpdate({
          ...base,
          artifact: {
            artifactId: randomUUID(),
            name: 'result',
            description: '',
            parts: [
              {
                content: { $case: 'text', value: 'Hello from TCK' },
                metadata: undefined,
                filename: '',
                mediaType: '',
              },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
    }
    bus.publish(
      AgentEvent.statusUpdate({
        ...base,
        status: status(waits ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED),
        metadata: undefined,
      }),
    );
    bus.finished();
    return Promise.resolve();
  },
  cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
    return Promise.resolve();
  },
};

function sdkCard(port: number): AgentCard {
  return sdkAgentCard({
    port,
    name: 'SDK TCK agent',
    description: 'the A2A SDK server playing the TCK scenarios',
    version: '1.0.0',
    streaming: true,
    modes: ['text/plain'],
    skills: [],
  });
}

/** The SDK server on loopback: its JSON-RPC URL. `A2A-Version` goes to the SDK as given. */
async function startSdkServer(): Promise<{ url: string; server: A2aSdkServer }> {
  const server = await startA2aSdkServer({ executor: tckExecutor, card: sdkCard, version: 'header' });
  return { url: `${server.url}/rpc`, server };
}

let sdk: { url: string; server: A2aSdkServer } | undefined;
beforeAll(async () => {
  sdk = await startSdkServer();
});
afterAll(async () => {
  await sdk?.server.close();
});

/**
 * The requirements the A2A SDK server does not meet, with the reason (the tests run as
 * `it.fails` against it, so a fixed SDK shows up here as a failure to remove the entry).
 */
const SDK_SERVER_FAILS: Readonly<Record<string, string>> = {
  'DM-SERIAL-004':
    'its DefaultRequestHandler runs a message whose required parts array is empty instead of refusing it',
  'JSONRPC-FMT-001':
    'its JsonRpcTransportHandler answers a body without "jsonrpc": "2.0" with −32602 (invalid params), not −32600 (invalid request)',
  'JSONRPC-SVC-002':
    'its JsonRpcTransportHandler does not check A2A-Version: an unsupported version is served, not VersionNotSupported (−32009); the check is left to the HTTP host',
  'JSONRPC-SSE-002': 'the same: no VersionNotSupported (−32009) from the transport handler',
};

type Target = 'plexus' | 'sdk';

/** The JSON-RPC URL of `target`: the `tck` agent's on the node, or the SDK server's. */
function jsonrpcOf(target: Target): string {
  return target === 'plexus' ? `${e2e.node.url}/agents/tck/a2a` : (sdk?.url ?? '');
}

/** `it`, or `it.fails` when the SDK server is known not to meet requirement `id`. */
function requirement(target: Target, id: string) {
  return target === 'sdk' && SDK_SERVER_FAILS[id] !== undefined ? it.fails : it;
}

/** A raw JSON-RPC exchange: the HTTP answer and its parsed body. */
async function rawRpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
): Promise<{ res: Response; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { res, json: (await res.json()) as Record<string, unknown> };
}

/** Every object key in `value`, leaving out the free-form `data` and `metadata` payloads. */
function protocolKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) protocolKeys(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      out.push(key);
      if (key !== 'data' && key !== 'metadata') protocolKeys(v, out);
    }
  }
  return out;
}

/** Every `Part` of a task (history and artifacts). */
function partsOf(task: TaskJson): Record<string, unknown>[] {
  const history = (task.history ?? []) as { parts: Record<string, unknown>[] }[];
  return [...history.flatMap((m) => m.parts), ...(task.artifacts ?? []).flatMap((a) => a.parts)];
}

describe.each(['plexus', 'sdk'] as const)('A2A TCK data model (data_model.py) — %s server', (target) => {
  const send = async (prefix: string, extra: Record<string, unknown> = {}): Promise<TaskJson> => {
    const answer = await rpcAt(jsonrpcOf(target), 'SendMessage', {
      message: tckMessage(prefix, extra),
      configuration: { historyLength: 10 },
    });
    expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
    return answer.result?.['task'] as TaskJson;
  };

  requirement(target, 'DM-TASK-001')('DM-TASK-001: a Task has its required fields (id, status)', async () => {
    const task = await send('tck-complete-task');
    expect(task.id).toEqual(expect.any(String));
    expect(task.id).not.toBe('');
    expect(task.status).toEqual(expect.objectContaining({ state: expect.any(String) }));
    expect(task.contextId).toEqual(expect.any(String));
  });

  requirement(target, 'DM-TASK-002')('DM-TASK-002: task states are values of TaskState', async () => {
    const done = await send('tck-complete-task');
    const waiting = await send('tck-input-required');
    const cancelled = await rpcAt(jsonrpcOf(target), 'CancelTask', { id: waiting.id });
    for (const state of [
      done.status.state,
      waiting.status.state,
      (cancelled.result as unknown as TaskJson | undefined)?.status.state,
    ]) {
      expect(TASK_STATES).toContain(state);
    }
  });

  requirement(target, 'DM-MSG-001')('DM-MSG-001: a Message has role, parts and messageId', async () => {
    const task = await send('tck-complete-task');
    const history = (task.history ?? []) as Record<string, unknown>[];
    expect(history.length).toBeGreaterThan(0);
    for (const message of history) {
      expect(message).toEqual(
        expect.objectContaining({
          role: expect.any(String),
          parts: expect.any(Array),
          messageId: expect.any(String),
        }),
      );
    }
  });

  requirement(target, 'DM-MSG-002')('DM-MSG-002: a role is ROLE_USER or ROLE_AGENT', async () => {
    const task = await send('tck-input-required');
    const messages = [...((task.history ?? []) as { role: string }[])];
    const question = task.status.message as { role?: string } | undefined;
    if (question !== undefined) messages.push({ role: question.role ?? '' });
    for (const m of messages) expect(['ROLE_USER', 'ROLE_AGENT']).toContain(m.role);
  });

  requirement(target, 'DM-PART-001')(
    'DM-PART-001: a Part holds exactly one of text, raw, url, data',
    async () => {
      const task = await send('tck-complete-task');
      const parts = partsOf(task);
      expect(parts.length).toBeGreaterThan(0);
      for (const part of parts) expect(PART_CONTENT.filter((k) => k in part)).toHaveLength(1);
    },
  );

  requirement(target, 'DM-ART-001')('DM-ART-001: an Artifact has artifactId and parts', async () => {
    const task = await send('tck-complete-task');
    expect(task.artifacts?.length).toBeGreaterThan(0);
    for (const artifact of task.artifacts ?? []) {
      expect((artifact as { artifactId?: string }).artifactId).toEqual(expect.any(String));
      expect(artifact.parts.length).toBeGreaterThan(0);
    }
  });

  requirement(target, 'DM-STATUS-001')('DM-STATUS-001: a TaskStatus has a valid state', async () => {
    const got = await rpcAt(jsonrpcOf(target), 'GetTask', { id: (await send('tck-complete-task')).id });
    expect(TASK_STATES).toContain((got.result as unknown as TaskJson | undefined)?.status.state);
  });

  requirement(target, 'DM-SERIAL-001')('DM-SERIAL-001: JSON field names are camelCase', async () => {
    const task = await send('tck-complete-task');
    const streamed = await allSse(
      await openStream(
        jsonrpcOf(target),
        rpcBody('SendStreamingMessage', { message: tckMessage('tck-stream-001') }),
      ),
    );
    const keys = protocolKeys([task, streamed]);
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => !/^[a-z][a-zA-Z0-9]*$/.test(k) && k !== '@type')).toEqual([]);
  });

  requirement(target, 'DM-SERIAL-002')(
    'DM-SERIAL-002: enums are their ProtoJSON names (TASK_STATE_*, ROLE_*)',
    async () => {
      const task = await send('tck-complete-task');
      expect(task.status.state).toMatch(/^TASK_STATE_[A-Z_]+$/);
      for (const m of (task.history ?? []) as { role: string }[]) expect(m.role).toMatch(/^ROLE_[A-Z]+$/);
    },
  );

  requirement(target, 'DM-SERIAL-003')('DM-SERIAL-003: timestamps are ISO 8601 in UTC (Z)', async () => {
    const task = await send('tck-complete-task');
    const timestamp = (task.status as { timestamp?: string }).timestamp ?? '';
    expect(timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  requirement(target, 'DM-SERIAL-004')(
    'DM-SERIAL-004: required fields are set, required arrays non-empty; a message without parts is refused',
    async () => {
      const task = await send('tck-complete-task');
      for (const m of (task.history ?? []) as { parts: unknown[] }[])
        expect(m.parts.length).toBeGreaterThan(0);
      const empty = await rpcAt(jsonrpcOf(target), 'SendMessage', {
        message: tckMessage('tck-complete-task', { parts: [] }),
      });
      expect(empty.error?.code).toBe(-32602);
      const noId = await rpcAt(jsonrpcOf(target), 'SendMessage', {
        message: { role: 'ROLE_USER', parts: [{ text: 'no messageId' }] },
      });
      expect(noId.error?.code).toBe(-32602);
    },
  );
});

describe.each(['plexus', 'sdk'] as const)(
  'A2A TCK JSON-RPC binding (binding_jsonrpc.py) — %s server',
  (target) => {
    requirement(target, 'JSONRPC-FMT-001')(
      'JSONRPC-FMT-001: answers are JSON-RPC 2.0 (jsonrpc, the id, result or error)',
      async () => {
        const ok = await rawRpc(jsonrpcOf(target), {
          jsonrpc: '2.0',
          id: 'fmt-1',
          method: 'SendMessage',
          params: { message: tckMessage('tck-complete-task') },
        });
        expect(ok.json).toMatchObject({ jsonrpc: '2.0', id: 'fmt-1', result: expect.any(Object) as unknown });
        expect(ok.json).not.toHaveProperty('error');
        const bad = await rawRpc(jsonrpcOf(target), {
          jsonrpc: '2.0',
          id: 7,
          method: 'GetTask',
          params: { id: 'tck-nonexistent-fmt' },
        });
        expect(bad.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: expect.any(Object) as unknown });
        expect(bad.json).not.toHaveProperty('result');
        const notRpc = await rawRpc(jsonrpcOf(target), { id: 8, method: 'GetTask' });
        expect((notRpc.json['error'] as { code?: number } | undefined)?.code).toBe(-32600);
        const garbage = await rawRpc(jsonrpcOf(target), '{"jsonrpc": "2.0", ');
        expect((garbage.json['error'] as { code?: number } | undefined)?.code).toBe(-32700);
      },
    );

    requirement(target, 'JSONRPC-FMT-002')('JSONRPC-FMT-002: answers are application/json', async () => {
      const { res } = await rawRpc(jsonrpcOf(target), rpcBody('GetTask', { id: 'tck-nonexistent-ct' }));
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    });

    requirement(target, 'JSONRPC-SVC-001')(
      'JSONRPC-SVC-001: methods are PascalCase; v0.3 slash names are not v1.0 methods',
      async () => {
        for (const method of ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask']) {
          const answer = await rpcAt(
            jsonrpcOf(target),
            method,
            method === 'SendMessage'
              ? { message: tckMessage('tck-complete-task') }
              : { id: 'tck-nonexistent-svc' },
          );
          expect(answer.error?.code, method).not.toBe(-32601);
        }
        expect(
          (await rpcAt(jsonrpcOf(target), 'message/send', { message: tckMessage('tck-complete-task') })).error
            ?.code,
        ).toBe(-32601);
      },
    );

    requirement(target, 'JSONRPC-SVC-002')(
      'JSONRPC-SVC-002: service parameters travel as HTTP headers (A2A-Version)',
      async () => {
        const unsupported = await rpcAt(
          jsonrpcOf(target),
          'GetTask',
          { id: 'tck-nonexistent-ver' },
          { 'a2a-version': '99.0' },
        );
        expect(unsupported.error?.code).toBe(-32009);
        const supported = await rpcAt(
          jsonrpcOf(target),
          'GetTask',
          { id: 'tck-nonexistent-ver' },
          { 'a2a-version': '1.0' },
        );
        expect(supported.error?.code).toBe(-32001);
      },
    );

    requirement(target, 'JSONRPC-ERR-001')(
      'JSONRPC-ERR-001: errors have a numeric code, a message, and data as an array',
      async () => {
        const answer = await rpcAt(jsonrpcOf(target), 'GetTask', { id: 'tck-nonexistent-err-001' });
        expect(answer.error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
        if (answer.error?.data !== undefined) expect(Array.isArray(answer.error.data)).toBe(true);
      },
    );

    requirement(target, 'JSONRPC-ERR-002')(
      'JSONRPC-ERR-002: A2A errors use codes −32001…−32099',
      async () => {
        const codes = [
          (await rpcAt(jsonrpcOf(target), 'GetTask', { id: 'tck-nonexistent-err-002' })).error?.code,
          (await rpcAt(jsonrpcOf(target), 'GetTask', { id: 'x' }, { 'a2a-version': '99.0' })).error?.code,
        ];
        for (const code of codes) {
          expect(code).toBeLessThanOrEqual(-32001);
          expect(code).toBeGreaterThanOrEqual(-32099);
        }
      },
    );

    requirement(target, 'JSONRPC-ERR-003')(
      'JSONRPC-ERR-003: A2A errors carry google.rpc.ErrorInfo (UPPER_SNAKE reason, domain a2a-protocol.org)',
      async () => {
        const answer = await rpcAt(jsonrpcOf(target), 'GetTask', { id: 'tck-nonexistent-err-003' });
        const info = (answer.error?.data ?? []).find(
          (d) => (d as { '@type'?: string })['@type'] === ERROR_INFO,
        ) as { reason?: string; domain?: string } | undefined;
        expect(info, JSON.stringify(answer.error)).toBeDefined();
        expect(info?.reason).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(info?.domain).toBe('a2a-protocol.org');
      },
    );

    requirement(target, 'JSONRPC-SSE-001')(
      'JSONRPC-SSE-001: streams are text/event-stream of JSON-RPC answers wrapping one StreamResponse each',
      async () => {
        const res = await openStream(jsonrpcOf(target), {
          ...rpcBody('SendStreamingMessage', { message: tckMessage('tck-stream-001') }),
          id: 'sse-1',
        });
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const text = await res.text();
        const frames = text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
        expect(frames.length).toBeGreaterThan(1);
        for (const frame of frames) {
          expect(frame).toMatchObject({ jsonrpc: '2.0', id: 'sse-1' });
          const keys = Object.keys(frame['result'] as object);
          expect(
            keys.filter((k) => ['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(k)),
          ).toHaveLength(1);
        }
      },
    );

    requirement(target, 'JSONRPC-SSE-002')(
      'JSONRPC-SSE-002: each A2A error has its code (the ones a client can provoke)',
      async () => {
        const url = jsonrpcOf(target);
        expect((await rpcAt(url, 'GetTask', { id: 'tck-nonexistent-sse-002' })).error?.code).toBe(-32001);
        const done = (await rpcAt(url, 'SendMessage', { message: tckMessage('tck-complete-task') })).result?.[
          'task'
        ] as TaskJson;
        expect((await rpcAt(url, 'CancelTask', { id: done.id })).error?.code).toBe(-32002);
        expect((await rpcAt(url, 'GetTask', { id: done.id }, { 'a2a-version': '99.0' })).error?.code).toBe(
          -32009,
        );
      },
    );
  },
);

// ---------------------------------------------------------------------------------------------
// push_notifications.py (the node: its card declares push notifications)

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** A webhook receiver on loopback. */
async function webhook(): Promise<{ url: string; got: Received[]; close: () => Promise<void> }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('A2A TCK push notifications (push_notifications.py)', () => {
  const rpc = (method: string, params: unknown): Promise<RpcAnswer> =>
    rpcAt(jsonrpcOf('plexus'), method, params);
  const hooks: { close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const hook of hooks.splice(0)) await hook.close();
  });

  async function waitingTask(): Promise<TaskJson> {
    const answer = await rpc('SendMessage', { message: tckMessage('tck-input-required') });
    const task = answer.result?.['task'] as TaskJson;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    return task;
  }

  async function create(taskId: string, url: string, extra: Record<string, unknown> = {}) {
    const answer = await rpc('CreateTaskPushNotificationConfig', { taskId, url, ...extra });
    expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
    return answer.result as { id: string; taskId: string; url: string; token?: string };
  }

  async function answerTask(task: TaskJson): Promise<void> {
    const answer = await rpc('SendMessage', {
      message: tckMessage('tck-complete-task', { taskId: task.id, parts: [{ text: 'go on' }] }),
    });
    expect((answer.result?.['task'] as TaskJson).status.state).toBe('TASK_STATE_COMPLETED');
  }

  const completed = (got: Received[]) =>
    got.some(
      (r) =>
        (r.body['statusUpdate'] as { status?: { state?: string } } | undefined)?.status?.state ===
        'TASK_STATE_COMPLETED',
    );

  it('PUSH-CREATE-001: CreateTaskPushNotificationConfig sets a webhook and answers the config with its id', async () => {
    const task = await waitingTask();
    const config = await create(task.id, 'http://127.0.0.1:9/hook', { token: 'tck-token' });
    expect(config).toMatchObject({ taskId: task.id, url: 'http://127.0.0.1:9/hook', token: 'tck-token' });
    expect(config.id).not.toBe('');
  });

  it('PUSH-CREATE-002: the config stays until the task ends: every update of the task is delivered', async () => {
    const hook = await webhook();
    hooks.push(hook);
    const task = await waitingTask();
    await create(task.id, hook.url);
    await answerTask(task);
    await until(() => completed(hook.got), { what: 'the terminal update delivered' });
    const states = hook.got.map(
      (r) => (r.body['statusUpdate'] as { status?: { state?: string } } | undefined)?.status?.state,
    );
    expect(states).toContain('TASK_STATE_WORKING');
    expect(hook.got.length).toBeGreaterThanOrEqual(2);
  });

  it('PUSH-GET-001: GetTaskPushNotificationConfig answers the config (url, token, authentication)', async () => {
    const task = await waitingTask();
    const made = await create(task.id, 'http://127.0.0.1:9/get', {
      token: 'get-token',
      authentication: { scheme: 'Bearer', credentials: 'secret-get' },
    });
    const got = await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: made.id });
    expect(got.result).toMatchObject({
      id: made.id,
      taskId: task.id,
      url: 'http://127.0.0.1:9/get',
      token: 'get-token',
      authentication: { scheme: 'Bearer', credentials: 'secret-get' },
    });
  });

  it('PUSH-GET-002: GetTaskPushNotificationConfig of a config that does not exist fails', async () => {
    const task = await waitingTask();
    const got = await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'tck-no-such-config' });
    expect(got.error?.code).toBe(-32001);
    const noTask = await rpc('GetTaskPushNotificationConfig', { taskId: 'tck-nonexistent-task', id: 'x' });
    expect(noTask.error?.code).toBe(-32001);
  });

  it('PUSH-LIST-001: ListTaskPushNotificationConfigs answers every config of the task', async () => {
    const task = await waitingTask();
    const a = await create(task.id, 'http://127.0.0.1:9/a');
    const b = await create(task.id, 'http://127.0.0.1:9/b');
    const other = await waitingTask();
    await create(other.id, 'http://127.0.0.1:9/other');
    const listed = await rpc('ListTaskPushNotificationConfigs', { taskId: task.id });
    const configs = (listed.result as { configs: { id: string }[] }).configs;
    expect(configs.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('PUSH-DEL-001: a deleted config is gone and is sent no more updates', async () => {
    const deleted = await webhook();
    const witness = await webhook();
    hooks.push(deleted, witness);
    const task = await waitingTask();
    const gone = await create(task.id, deleted.url);
    await create(task.id, witness.url);
    const answer = await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: gone.id });
    expect(answer.error).toBeUndefined();
    expect((await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: gone.id })).error?.code).toBe(
      -32001,
    );
    const listed = (await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result as {
      configs: { id: string }[];
    };
    expect(listed.configs.map((c) => c.id)).not.toContain(gone.id);
    await answerTask(task);
    await until(() => completed(witness.got), { what: 'the witness config sent the terminal update' });
    expect(deleted.got).toEqual([]);
  });

  it('PUSH-DEL-002: deleting is idempotent (a second delete of the same config succeeds)', async () => {
    const task = await waitingTask();
    const made = await create(task.id, 'http://127.0.0.1:9/twice');
    for (let i = 0; i < 2; i++) {
      const answer = await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: made.id });
      expect(answer.error, `delete ${i + 1}`).toBeUndefined();
    }
    const rest = await restAt(
      `${e2e.node.url}/agents/tck/a2a`,
      'DELETE',
      `/tasks/${task.id}/pushNotificationConfigs/${made.id}`,
    );
    expect(rest.status).toBeLessThan(300);
  });

  it('PUSH-DELIVER-001: webhook requests carry the config’s authentication', async () => {
    const hook = await webhook();
    hooks.push(hook);
    const task = await waitingTask();
    await create(task.id, hook.url, {
      token: 'tck-deliver-token',
      authentication: { scheme: 'Bearer', credentials: 'tck-secret' },
    });
    await answerTask(task);
    await until(() => completed(hook.got), { what: 'the terminal update delivered' });
    for (const r of hook.got) {
      expect(r.headers['authorization']).toBe('Bearer tck-secret');
      expect(r.headers['x-a2a-notification-token']).toBe('tck-deliver-token');
    }
  });

  it('PUSH-DELIVER-002: delivery is attempted at least once for each configured webhook', async () => {
    const hooksOf = [await webhook(), await webhook()];
    hooks.push(...hooksOf);
    const task = await waitingTask();
    for (const hook of hooksOf) await create(task.id, hook.url);
    await answerTask(task);
    for (const hook of hooksOf) await until(() => completed(hook.got), { what: `delivery to ${hook.url}` });
  });

  it('PUSH-DELIVER-003: the payload is a StreamResponse with exactly one of task, message, statusUpdate, artifactUpdate', async () => {
    const hook = await webhook();
    hooks.push(hook);
    const task = await waitingTask();
    await create(task.id, hook.url);
    await answerTask(task);
    await until(() => completed(hook.got), { what: 'the terminal update delivered' });
    for (const r of hook.got) {
      expect(
        Object.keys(r.body).filter((k) => ['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(k)),
      ).toHaveLength(1);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// interop.py (the node's two bindings)

describe('A2A TCK interoperability (interop.py)', () => {
  const base = () => `${e2e.node.url}/agents/tck/a2a`;
  const rpc = (method: string, params: unknown): Promise<RpcAnswer> => rpcAt(base(), method, params);
  const rest = (method: string, path: string, body?: unknown) => restAt(base(), method, path, body);

  it('BIND-FIELD-001: the card declares every protocol the agent serves', async () => {
    const card = (await (await fetch(`${e2e.node.url}/agents/tck/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    expect(card.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(['HTTP+JSON', 'JSONRPC']);
    // and no other binding answers: gRPC is not served
    const grpc = await fetch(`${e2e.node.url}/agents/tck/a2a/lf.a2a.v1.A2AService/SendMessage`, {
      method: 'POST',
    });
    expect(grpc.status).toBeGreaterThanOrEqual(400);
  });

  it('BIND-EQUIV-001: both bindings serve the same operations', async () => {
    const waiting = (await rpc('SendMessage', { message: tckMessage('tck-input-required') })).result?.[
      'task'
    ] as TaskJson;
    const rpcOps: [string, unknown][] = [
      ['GetTask', { id: waiting.id }],
      ['ListTasks', {}],
      ['ListTaskPushNotificationConfigs', { taskId: waiting.id }],
      ['CreateTaskPushNotificationConfig', { taskId: waiting.id, url: 'http://127.0.0.1:9/eq' }],
    ];
    for (const [method, params] of rpcOps) expect((await rpc(method, params)).error, method).toBeUndefined();
    const restOps: [string, string, unknown?][] = [
      ['GET', `/tasks/${waiting.id}`],
      ['GET', '/tasks'],
      ['GET', `/tasks/${waiting.id}/pushNotificationConfigs`],
      ['POST', `/tasks/${waiting.id}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/eq-rest' }],
      ['POST', `/tasks/${waiting.id}:cancel`, {}],
    ];
    for (const [method, path, body] of restOps)
      expect((await rest(method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
    const streamed = await allSse(
      await openStream(`${base()}/message:stream`, { message: tckMessage('tck-stream-001') }),
    );
    expect(streamed.length).toBeGreaterThan(1);
  });

  it('BIND-EQUIV-002: the same request answers the same result on both bindings', async () => {
    const sent = (await rpc('SendMessage', { message: tckMessage('tck-complete-task') })).result?.[
      'task'
    ] as TaskJson;
    const viaRpc = (await rpc('GetTask', { id: sent.id })).result;
    const viaRest = await (await rest('GET', `/tasks/${sent.id}`)).json();
    expect(viaRest).toEqual(viaRpc);
    const listRpc = (await rpc('ListTasks', { contextId: sent.contextId, includeArtifacts: true })).result;
    const listRest = await (
      await rest('GET', `/tasks?contextId=${sent.contextId}&includeArtifacts=true`)
    ).json();
    expect(listRest).toEqual(listRpc);
  });

  it('BIND-EQUIV-003: both bindings map errors the same way (code ↔ HTTP status, the same ErrorInfo reason)', async () => {
    const reasonOf = (details: unknown[] | undefined) =>
      (details ?? [])
        .map((d) => d as { '@type'?: string; reason?: string })
        .find((d) => d['@type'] === ERROR_INFO)?.reason;
    const done = (await rpc('SendMessage', { message: tckMessage('tck-complete-task') })).result?.[
      'task'
    ] as TaskJson;
    const cases: [string, unknown, string, string, number][] = [
      ['GetTask', { id: 'tck-nonexistent-eq' }, 'GET', '/tasks/tck-nonexistent-eq', 404],
      ['CancelTask', { id: done.id }, 'POST', `/tasks/${done.id}:cancel`, 409],
    ];
    for (const [method, params, verb, path, status] of cases) {
      const viaRpc = await rpc(method, params);
      const res = await rest(verb, path, verb === 'POST' ? {} : undefined);
      const viaRest = (await res.json()) as { error: { details?: unknown[] } };
      expect(res.status, path).toBe(status);
      expect(reasonOf(viaRest.error.details)).toBe(reasonOf(viaRpc.error?.data));
      expect(reasonOf(viaRpc.error?.data)).toEqual(expect.any(String));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// auth.py (a node with API keys of two tenants; not a dev node, so every request needs one)

describe('A2A TCK authentication and authorization (auth.py)', () => {
  const alice = generateApiKey();
  const bob = generateApiKey();
  let node: NodeProcess | undefined;
  beforeAll(async () => {
    node = await startNodeProcess({
      flags: ['--demo'],
      config: [
        'auth:',
        '  apiKeys:',
        `    - { hash: ${alice.hash}, subject: alice, tenant: tenant-a }`,
        `    - { hash: ${bob.hash}, subject: bob, tenant: tenant-b }`,
        '',
      ].join('\n'),
    });
  });
  const base = () => `${node?.url ?? ''}/agents/tck/a2a`;
  const as = (key?: string): Record<string, string> => ({
    'a2a-version': '1.0',
    ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
  });

  it('AUTH-SERVER-002: every request is authenticated against the declared scheme', async () => {
    const card = (await (
      await fetch(`${node?.url ?? ''}/agents/tck/.well-known/agent-card.json`)
    ).json()) as {
      securitySchemes?: Record<string, unknown>;
    };
    expect(Object.keys(card.securitySchemes ?? {}).length).toBeGreaterThan(0);
    const message = { message: tckMessage('tck-complete-task') };
    for (const headers of [as(), as('plx_not-a-key')]) {
      const res = await fetch(base(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(rpcBody('SendMessage', message)),
      });
      expect(res.status).toBe(401);
    }
    expect((await rpcAt(base(), 'SendMessage', message, as(alice.key))).error).toBeUndefined();
  });

  it('BIND-EQUIV-004: both bindings take the same authentication (interop.py)', async () => {
    const message = { message: tckMessage('tck-complete-task') };
    for (const headers of [as(), as('plx_not-a-key')]) {
      const viaRpc = await fetch(base(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(rpcBody('SendMessage', message)),
      });
      expect(viaRpc.status).toBe(401);
      expect((await restAt(base(), 'POST', '/message:send', message, headers)).status).toBe(401);
    }
    expect((await rpcAt(base(), 'SendMessage', message, as(alice.key))).error).toBeUndefined();
    expect((await restAt(base(), 'POST', '/message:send', message, as(alice.key))).status).toBe(200);
  });

  it('AUTH-SCOPE-001: every operation is checked (none answers without credentials)', async () => {
    const task = (
      await rpcAt(base(), 'SendMessage', { message: tckMessage('tck-input-required') }, as(alice.key))
    ).result?.['task'] as TaskJson;
    const ops: [string, unknown][] = [
      ['GetTask', { id: task.id }],
      ['ListTasks', {}],
      ['CancelTask', { id: task.id }],
      ['SubscribeToTask', { id: task.id }],
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'http://127.0.0.1:9/x' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
    ];
    for (const [method, params] of ops) {
      const res = await fetch(base(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as() },
        body: JSON.stringify(rpcBody(method, params)),
      });
      expect(res.status, method).toBe(401);
    }
    expect(
      ((await rpcAt(base(), 'GetTask', { id: task.id }, as(alice.key))).result as unknown as TaskJson).status
        .state,
    ).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('AUTH-SCOPE-002: results are scoped to the caller (ListTasks shows only its tenant’s tasks)', async () => {
    const mine = (
      await rpcAt(base(), 'SendMessage', { message: tckMessage('tck-complete-task') }, as(alice.key))
    ).result?.['task'] as TaskJson;
    const theirs = (
      await rpcAt(base(), 'SendMessage', { message: tckMessage('tck-complete-task') }, as(bob.key))
    ).result?.['task'] as TaskJson;
    const listOf = async (key: string) =>
      (
        (await rpcAt(base(), 'ListTasks', { pageSize: 100 }, as(key))).result as { tasks: TaskJson[] }
      ).tasks.map((t) => t.id);
    expect(await listOf(alice.key)).toContain(mine.id);
    expect(await listOf(alice.key)).not.toContain(theirs.id);
    expect(await listOf(bob.key)).toContain(theirs.id);
    expect(await listOf(bob.key)).not.toContain(mine.id);
  });

  it('AUTH-SCOPE-003: another tenant’s task is answered exactly as a task that does not exist', async () => {
    const mine = (
      await rpcAt(base(), 'SendMessage', { message: tckMessage('tck-input-required') }, as(alice.key))
    ).result?.['task'] as TaskJson;
    const strip = (answer: RpcAnswer, id: string) => JSON.stringify(answer.error).replaceAll(id, '<id>');
    for (const method of ['GetTask', 'CancelTask']) {
      const foreign = await rpcAt(base(), method, { id: mine.id }, as(bob.key));
      const missing = await rpcAt(base(), method, { id: 'tck-nonexistent-scope' }, as(bob.key));
      expect(foreign.error?.code, method).toBe(-32001);
      expect(strip(foreign, mine.id)).toBe(strip(missing, 'tck-nonexistent-scope'));
    }
    const rest = await restAt(base(), 'GET', `/tasks/${mine.id}`, undefined, as(bob.key));
    expect(rest.status).toBe(404);
    // and it is untouched
    expect(
      ((await rpcAt(base(), 'GetTask', { id: mine.id }, as(alice.key))).result as unknown as TaskJson).status
        .state,
    ).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
