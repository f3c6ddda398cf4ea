/**
 * The A2A client bridge (issue 14 item 4): A2A agents as Plexus agents. Against a stock A2A SDK
 * server written here (`DefaultRequestHandler` with an `InMemoryTaskStore` behind the SDK's
 * `JsonRpcTransportHandler` on node:http): skills appear as verbs, calls and streams round-trip,
 * cancelling the job cancels the remote task, a card with a bad signature is refused. And
 * Plexus to Plexus: one node bridges another's signed A2A face.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { AgentCard as AgentCardCodec, TaskState, type AgentCard } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defaultFaces } from '../../../src/node/faces.js';
import { a2aBridgeAgent } from '../../../src/transports/a2a-bridge/a2a-agent.js';
import { a2aBridgeFace } from '../../../src/transports/a2a-bridge/a2a-bridge-face.js';
import { until } from '../../support/until.js';

let cancelled: string[] = [];
const waiting = new Map<string, () => void>();

/** Skill `echo` answers the text in an artifact; skill `wait` works until it is cancelled. */
const executor: AgentExecutor = {
  execute(ctx, bus) {
    const skill = (ctx.userMessage.metadata as { skill?: string } | undefined)?.skill;
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state: TaskState.TASK_STATE_SUBMITTED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        ...base,
        status: {
          state: TaskState.TASK_STATE_WORKING,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    if (skill === 'wait') {
      return new Promise<void>((resolve) => {
        waiting.set(ctx.taskId, resolve);
      });
    }
    const part = ctx.userMessage.parts[0];
    bus.publish(
      AgentEvent.artifactUpdate({
        ...base,
        artifact: {
          artifactId: randomUUID(),
          name: 'echo',
          description: '',
          parts: part === undefined ? [] : [part],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        ...base,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
    return Promise.resolve();
  },
  cancelTask(taskId, bus) {
    cancelled.push(taskId);
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
    waiting.get(taskId)?.();
    return Promise.resolve();
  },
};

function cardOf(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const card: AgentCard = {
    name: 'SDK agent',
    description: 'a stock A2A SDK server',
    supportedInterfaces: [
      { url: `http://127.0.0.1:${port}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '2.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: ['echo', 'wait'].map((id) => ({
      id,
      name: id,
      description: `the ${id} skill`,
      tags: [id],
      examples: [],
      inputModes: ['text'],
      outputModes: ['text'],
      securityRequirements: [],
    })),
    signatures: [],
  };
  return { ...(AgentCardCodec.toJSON(card) as Record<string, unknown>), ...extra };
}

/** The SDK server on loopback; `extra` is merged into its card (a forged signature, say). */
async function sdkServer(extra: Record<string, unknown> = {}): Promise<{ url: string; server: Server }> {
  let port = 0;
  const handler = () =>
    new DefaultRequestHandler(AgentCardCodec.fromJSON(cardOf(port)), new InMemoryTaskStore(), executor);
  let rpc: JsonRpcTransportHandler | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardOf(port, extra)));
          return;
        }
        rpc ??= new JsonRpcTransportHandler(handler());
        const answer = await rpc.handle(
          Buffer.concat(chunks).toString('utf8'),
          new ServerCallContext({ requestedVersion: '1.0' }),
        );
        if (typeof (answer as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for await (const item of answer as AsyncGenerator) res.write(`data: ${JSON.stringify(item)}\n\n`);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  port = address.port;
  return { url: `http://127.0.0.1:${port}`, server };
}

function request(verb: string, data: Envelope['data']): Envelope {
  return { id: randomUUID(), kind: 'request', from: 'test', to: `capability:${verb}`, verb, data };
}

describe('A2A agents as Plexus agents', () => {
  const nodes: Node[] = [];
  const servers: Server[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
    cancelled = [];
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function bridgeNode(url: string, name = 'remote'): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-bridge-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      faces: [a2aBridgeFace({ agents: [{ name, url }] })],
    });
    nodes.push(node);
    await node.start();
    await until(() => node.runtime.agents.registry.find(name) !== undefined, {
      what: `agent ${name} hosted`,
    });
    return node;
  }

  it('hosts the skills as verbs; a call round-trips, streaming its status as progress', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const node = await bridgeNode(sdk.url);
    const card = node.runtime.agents.registry.get('remote');
    expect(card.capabilities.map((c) => c.verb)).toEqual(['a2a.remote.echo', 'a2a.remote.wait']);
    const { envelope } = await node.runtime.invoke(request('a2a.remote.echo', 'hello there'), {
      face: 'internal',
    });
    expect(envelope.kind).toBe('response');
    expect(envelope.data).toBe('hello there');
    const { job } = await node.runtime.submit(request('a2a.remote.echo', { n: 7 }), { face: 'internal' });
    await node.runtime.jobs.wait(job.id);
    const events = await node.runtime.jobs.events(job.id);
    expect(events.some((e) => e.type === 'job.progress')).toBe(true);
    expect((await node.runtime.jobs.get(job.id)).outputs).toEqual({ n: 7 });
  });

  it('cancels the remote task when the job is cancelled', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const node = await bridgeNode(sdk.url);
    const { job } = await node.runtime.submit(request('a2a.remote.wait', 'x'), { face: 'internal' });
    await until(() => waiting.size > 0, { what: 'the remote task running' });
    await node.runtime.jobs.cancel(job.id);
    await until(() => cancelled.length > 0, { what: 'the remote task cancelled' });
    expect((await node.runtime.jobs.get(job.id)).state).toBe('CANCELED');
  });

  it('refuses a card whose signature does not verify unless the entry allows it', async () => {
    const forged = {
      signatures: [
        {
          protected: Buffer.from(
            JSON.stringify({ alg: 'EdDSA', kid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }),
          ).toString('base64url'),
          signature: 'AAAA',
        },
      ],
    };
    const sdk = await sdkServer(forged);
    servers.push(sdk.server);
    await expect(a2aBridgeAgent({ name: 'forged', url: sdk.url })).rejects.toThrow(PlexusError);
    await expect(a2aBridgeAgent({ name: 'forged', url: sdk.url })).rejects.toThrow(
      /does not verify; set unsigned: allow/,
    );
    const allowed = await a2aBridgeAgent({ name: 'forged', url: sdk.url, unsigned: 'allow' });
    expect(allowed.card.capabilities).toHaveLength(2);
  });

  it('bridges another Plexus node through its signed A2A face', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-bridged-'));
    dirs.push(dataDir);
    const other = createNode({
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      demo: true,
      faces: defaultFaces({ dev: true }),
    });
    nodes.push(other);
    await other.start();
    const node = await bridgeNode(other.url, 'other');
    const verbs = node.runtime.agents.registry.get('other').capabilities.map((c) => c.verb);
    expect(verbs).toContain('a2a.other.math_math_evaluate');
    const { envelope } = await node.runtime.invoke(
      request('a2a.other.math_math_evaluate', { expression: '2 * (3 + 4) ^ 2' }),
      { face: 'internal' },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    expect(envelope.data).toMatchObject({ value: 98 });
  });
});
