/**
 * INPUT_REQUIRED over A2A with the stock SDK client (issue 14 item 3; A2A-14): a handler's
 * `ctx.requestInput` makes the task INPUT_REQUIRED with the question as its status message, the
 * next message naming the task answers it, and a task waiting for input survives a restart of
 * the node (the real SQLite log). Both bindings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { a2aFace } from '../../../src/transports/a2a/a2a-face.js';

const keyA = generateApiKey();
const keyB = generateApiKey();

/** `book.trip` asks for a city (text), then a number of nights (an integer). */
const booker = defineAgent({
  card: {
    id: 'booker',
    name: 'Booker',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'book.trip', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({
    'book.trip': async (_input: JsonValue, ctx) => {
      const city = await ctx.requestInput('Which city?');
      const nights = await ctx.requestInput(`How many nights in ${JSON.stringify(city)}?`, {
        schema: { type: 'integer', minimum: 1 },
      });
      return { city, nights };
    },
  }),
});

let counter = 0;
function part(content: NonNullable<Part['content']>): Part {
  return { content, metadata: undefined, filename: '', mediaType: '' };
}
function message(parts: Part[], taskId = ''): Message {
  return {
    messageId: `ir-${process.pid}-${++counter}`,
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
function send(msg: Message) {
  return { tenant: '', message: msg, configuration: undefined, metadata: undefined };
}
function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}
function question(task: Task): unknown {
  const first = task.status?.message?.parts[0]?.content;
  return first?.$case === 'text' ? first.value : undefined;
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('A2A %s: INPUT_REQUIRED', (binding) => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(dataDir: string): Promise<Node> {
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'sqlite',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents: [booker],
      faces: [a2aFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node, key = keyA.key): Promise<Client> {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
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
    return factory.createFromUrl(node.url);
  }

  it('asks, takes the answers by taskId, survives a restart and completes', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-ir-'));
    dirs.push(dataDir);
    const first = await serve(dataDir);
    const client = await connect(first);

    const asked = asTask(
      await client.sendMessage(
        send(message([part({ $case: 'data', value: { verb: 'book.trip', input: {} } })])),
      ),
    );
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(question(asked)).toBe('Which city?');

    // another tenant cannot answer it: the task does not exist for them
    const mallory = await connect(first, keyB.key);
    await expect(
      mallory.sendMessage(send(message([part({ $case: 'text', value: 'Nowhere' })], asked.id))),
    ).rejects.toThrow(/no task with id/);

    const again = asTask(
      await client.sendMessage(send(message([part({ $case: 'text', value: 'Lisbon' })], asked.id))),
    );
    expect(again.id).toBe(asked.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(question(again)).toBe('How many nights in "Lisbon"?');
    // the schema travels with the question
    const schemaPart = again.status?.message?.parts[1]?.content;
    expect(schemaPart).toEqual({ $case: 'data', value: { inputSchema: { type: 'integer', minimum: 1 } } });

    // an answer that does not match the schema is refused; the task still waits
    await expect(
      client.sendMessage(send(message([part({ $case: 'data', value: 'three' })], asked.id))),
    ).rejects.toThrow(/schema/);

    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);
    const second = await serve(dataDir);
    const after = await connect(second);
    const waiting = asTask(await after.getTask({ tenant: '', id: asked.id, historyLength: undefined }));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(question(waiting)).toBe('How many nights in "Lisbon"?');

    const done = asTask(
      await after.sendMessage(send(message([part({ $case: 'data', value: 3 })], asked.id))),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const output = done.artifacts[0]?.parts[0]?.content;
    expect(output).toEqual({ $case: 'data', value: { city: 'Lisbon', nights: 3 } });

    // a finished task takes no more messages
    await expect(
      after.sendMessage(send(message([part({ $case: 'text', value: 'more' })], asked.id))),
    ).rejects.toThrow(/finished/);
  });
});
