/**
 * A stock A2A SDK server on loopback for the tests of the A2A bridge and the A2A TCK: the SDK's
 * `DefaultRequestHandler` with an `InMemoryTaskStore` behind its `JsonRpcTransportHandler` on
 * node:http (a streamed answer as server-sent events), and an echo executor. Written once for
 * every test that talks to such a server.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { AgentCard as AgentCardCodec, TaskState, type AgentCard } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
  type RequestContext,
} from '@a2a-js/sdk/server';

/** The card path under an agent's base URL. */
export const A2A_CARD_PATH = '/.well-known/agent-card.json';

/** What {@link sdkAgentCard} makes. */
export interface SdkCardFields {
  /** The server's port: the JSON-RPC interface is `http://127.0.0.1:<port>/rpc`. */
  readonly port: number;
  /** The interface URL instead of the server's own. */
  readonly interfaceUrl?: string;
  /** @default 'SDK agent' */
  readonly name?: string;
  /** @default 'a stock A2A SDK server' */
  readonly description?: string;
  /** @default '2.0.0' */
  readonly version?: string;
  /** The skill ids (each named by its id, described `the <id> skill`). @default ['echo'] */
  readonly skills?: readonly string[];
  /** @default false */
  readonly streaming?: boolean;
  /** The default input and output modes. @default ['text'] */
  readonly modes?: readonly string[];
}

/** An SDK agent card. */
export function sdkAgentCard(fields: SdkCardFields): AgentCard {
  const modes = [...(fields.modes ?? ['text'])];
  return {
    name: fields.name ?? 'SDK agent',
    description: fields.description ?? 'a stock A2A SDK server',
    supportedInterfaces: [
      {
        url: fields.interfaceUrl ?? `http://127.0.0.1:${String(fields.port)}/rpc`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: undefined,
    version: fields.version ?? '2.0.0',
    capabilities: {
      streaming: fields.streaming ?? false,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: (fields.skills ?? ['echo']).map((id) => ({
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
}

/** The JSON of a card, as served at {@link A2A_CARD_PATH}. */
export function cardJson(card: AgentCard): Record<string, unknown> {
  return AgentCardCodec.toJSON(card) as Record<string, unknown>;
}

/** What the {@link echoExecutor} tells its test, and how it holds tasks. */
export interface EchoExecutorHooks {
  /** Told of each message the agent is sent (its metadata, parts). */
  readonly received?: (ctx: RequestContext) => void;
  /** Keeps the task WORKING until the promise resolves (a skill that runs until cancelled). */
  readonly hold?: (ctx: RequestContext) => Promise<void> | undefined;
  /** Told of each task cancelled (after its CANCELED status is published). */
  readonly cancelled?: (taskId: string) => void;
}

const now = (): string => new Date().toISOString();

/**
 * An executor that answers each message with a task: SUBMITTED, WORKING, then (unless `hold`
 * keeps it working) an artifact `echo` holding the message's first part and COMPLETED. A
 * cancelled task is CANCELED.
 */
export function echoExecutor(hooks: EchoExecutorHooks = {}): AgentExecutor {
  return {
    execute(ctx, bus) {
      hooks.received?.(ctx);
      const base = { taskId: ctx.taskId, contextId: ctx.contextId };
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
      bus.publish(
        AgentEvent.statusUpdate({
          ...base,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
      const held = hooks.hold?.(ctx);
      if (held !== undefined) return held;
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
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
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
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
      bus.finished();
      hooks.cancelled?.(taskId);
      return Promise.resolve();
    },
  };
}

/** Options of {@link startA2aSdkServer}. */
export interface A2aSdkServerInit {
  readonly executor: AgentExecutor;
  /** The card the request handler serves, given the server's port. */
  readonly card: (port: number) => AgentCard;
  /**
   * Serves the card at {@link A2A_CARD_PATH} (as JSON). @default false (a GET of it reaches
   * `intercept`, else the JSON-RPC handler)
   */
  readonly serveCard?: boolean;
  /**
   * Sees each request (with its body) first; answering it and returning true serves it there
   * (a card with ETags, a recording), false hands it on.
   */
  readonly intercept?: (req: IncomingMessage, res: ServerResponse, body: string, port: number) => boolean;
  /**
   * The protocol version the SDK is told a request asks for: `'header'` is its `A2A-Version`
   * header as given (empty without one). @default '1.0'
   */
  readonly version?: string;
}

/** A running server. */
export interface A2aSdkServer {
  /** Its base URL, `http://127.0.0.1:<port>` (JSON-RPC at `/rpc`, or any path). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Closes it and every connection to it. */
  close(): Promise<void>;
}

/** Answers `answer` (a JSON-RPC result, or a stream of them as server-sent events). */
async function respond(res: ServerResponse, answer: unknown): Promise<void> {
  if (typeof (answer as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for await (const item of answer as AsyncGenerator) res.write(`data: ${JSON.stringify(item)}\n\n`);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}

/**
 * Starts the server on 127.0.0.1 (a free port).
 *
 * @example
 * const sdk = await startA2aSdkServer({ executor: echoExecutor(), card: (port) => sdkAgentCard({ port }), serveCard: true });
 */
export async function startA2aSdkServer(init: A2aSdkServerInit): Promise<A2aSdkServer> {
  let port = 0;
  let rpc: JsonRpcTransportHandler | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (init.intercept?.(req, res, body, port) === true) return;
        if (init.serveCard === true && req.method === 'GET' && req.url === A2A_CARD_PATH) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(cardJson(init.card(port))));
          return;
        }
        rpc ??= new JsonRpcTransportHandler(
          new DefaultRequestHandler(init.card(port), new InMemoryTaskStore(), init.executor),
        );
        const header = req.headers['a2a-version'];
        const requestedVersion =
          init.version === 'header' ? (typeof header === 'string' ? header : '') : (init.version ?? '1.0');
        await respond(res, await rpc.handle(body, new ServerCallContext({ requestedVersion })));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  port = address.port;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    port,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
