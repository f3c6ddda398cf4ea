/**
 * A2A push notifications (issue 14 item 2, docs/decisions/a2a.md A2A-12) on a real node, set
 * through the stock SDK client, delivered to a webhook receiver in the test: the updates of the
 * task in order with the config's token and authentication, retried after refusals; configs
 * survive a restart; SSRF-unsafe URLs and other tenants are refused.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Part, type Task } from '@a2a-js/sdk';
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

let onWait: ((release: () => void) => void) | undefined;
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
    capabilities: [{ verb: 'slow.wait', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({
    'slow.wait': (_input: JsonValue, context) =>
      new Promise((resolve, reject) => {
        context.progress({ step: 1 });
        onWait?.(() => {
          resolve({ released: true });
        });
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

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: { statusUpdate?: { status?: { state?: string } }; artifactUpdate?: unknown };
}

/** A webhook receiver on loopback that refuses its first `refuse` requests with 503. */
async function receiver(
  refuse = 0,
): Promise<{ url: string; got: Received[]; server: Server; next: () => Promise<void> }> {
  const got: Received[] = [];
  let waiting: (() => void) | undefined;
  let refused = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (refused < refuse) {
        refused++;
        res.writeHead(503).end();
        return;
      }
      got.push({
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
      });
      res.writeHead(200).end();
      waiting?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    got,
    server,
    next: () =>
      new Promise((resolve) => {
        waiting = resolve;
      }),
  };
}

function dataPart(value: JsonValue): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}
let counter = 0;
function send(value: JsonValue) {
  return {
    tenant: '',
    message: {
      messageId: `push-${process.pid}-${++counter}`,
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [dataPart(value)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  };
}

describe('A2A push notifications', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(dataDir?: string, allowLoopback = true): Promise<Node> {
    const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'plexus-a2a-push-')));
    if (dataDir === undefined) dirs.push(dir);
    const node = createNode({
      primitives: false,
      dataDir: dir,
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents: [slow],
      faces: [a2aFace({ push: { allowLoopback } })],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(
    node: Node,
    key = keyA.key,
    binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
  ): Promise<Client> {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the SDK does not export the options class
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        preferredTransports: [binding],
      }),
    );
    return factory.createFromUrl(node.url);
  }

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'delivers the task updates in order with the token and authentication, retrying refusals (%s)',
    async (binding) => {
      const node = await serve();
      const hook = await receiver(2);
      servers.push(hook.server);
      const client = await connect(node, keyA.key, binding);
      const started = waitStarted();
      const task = (await client.sendMessage(send({ verb: 'slow.wait' }))) as Task;
      const config = await client.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: task.id,
        url: hook.url,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'hook-secret' },
      });
      expect(config.id).not.toBe('');
      const release = await started;
      release();
      for (let i = 0; i < 20; i++) {
        const last = hook.got.at(-1)?.body.statusUpdate?.status?.state;
        if (last === 'TASK_STATE_COMPLETED') break;
        await hook.next();
      }
      const states = hook.got.map((r) => r.body.statusUpdate?.status?.state ?? 'artifact');
      expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(states.at(-2)).toBe('artifact');
      for (const r of hook.got) {
        expect(r.headers['x-a2a-notification-token']).toBe('tok-1');
        expect(r.headers.authorization).toBe('Bearer hook-secret');
      }
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      expect(listed.configs.map((c) => c.id)).toEqual([config.id]);
      const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id });
      expect(got.url).toBe(hook.url);
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id });
      const after = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      expect(after.configs).toEqual([]);
      expect(task.status?.state).not.toBe(TaskState.TASK_STATE_UNSPECIFIED);
    },
  );

  it('refuses unsafe URLs and other tenants, and keeps configs across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-push-restart-'));
    dirs.push(dataDir);
    const node = await serve(dataDir);
    const client = await connect(node);
    const started = waitStarted();
    const task = (await client.sendMessage(send({ verb: 'slow.wait' }))) as Task;
    const create = (url: string, c: Client = client) =>
      c.createTaskPushNotificationConfig({
        tenant: '',
        id: 'c1',
        taskId: task.id,
        url,
        token: '',
        authentication: undefined,
      });
    await expect(create('http://example.com/hook')).rejects.toThrow(
      /not allowed: add it to a2a.push.allowHosts/,
    );
    await expect(create('file:///etc/passwd')).rejects.toThrow(/http or https/);
    await expect(create('http://user:pw@127.0.0.1:9/x')).rejects.toThrow(/credentials/);
    const other = await connect(node, keyB.key);
    await expect(create('http://127.0.0.1:9/hook', other)).rejects.toThrow(/no task/);
    await create('http://127.0.0.1:9/hook');
    (await started)();
    await node.runtime.jobs.wait(task.id);
    await node.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(node), 1);
    const again = await serve(dataDir);
    const listed = await (
      await connect(again)
    ).listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.url)).toEqual(['http://127.0.0.1:9/hook']);
  });

  it('refuses loopback webhooks unless the policy allows them', async () => {
    const node = await serve(undefined, false);
    const client = await connect(node);
    const started = waitStarted();
    const task = (await client.sendMessage(send({ verb: 'slow.wait' }))) as Task;
    await expect(
      client.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: task.id,
        url: 'http://127.0.0.1:9/hook',
        token: '',
        authentication: undefined,
      }),
    ).rejects.toThrow(/dev node only/);
    (await started)();
  });
});
