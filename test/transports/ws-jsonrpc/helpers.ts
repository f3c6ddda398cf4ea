/**
 * Test helpers for the Hyperspace face: a real node:http server on 127.0.0.1 (port 0) with a
 * runtime over a memory event log, demo agents, an authenticator (node JWTs + one API key),
 * and a raw WebSocket reader for byte-level checks.
 */
import type { Server } from 'node:http';
import WebSocket from 'ws';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import type { AgentCapability } from '../../../src/core/records/agent-card.js';
import { defineAgent, type AgentDefinition, type Runtime } from '../../../src/runtime/index.js';
import {
  generateApiKey,
  issueToken,
  type Authenticator,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import type { EventLog } from '../../../src/store/index.js';
import {
  attachWsJsonRpc,
  WS_JSONRPC_SUBPROTOCOL,
  type WsJsonRpcFace,
  type WsJsonRpcInit,
} from '../../../src/transports/ws-jsonrpc/index.js';
import { spec } from '../../runtime/helpers.js';
import { startNode as startInProcessNode } from '../../support/start-node.js';

/** Spec-example method names (single segment, not Plexus verbs) → the verbs that serve them. */
export const SPEC_ALIASES: Readonly<Record<string, string>> = {
  subtract: 'spec.subtract',
  sum: 'spec.sum',
  get_data: 'spec.get_data',
  update: 'spec.update',
  notify_hello: 'spec.notify_hello',
  notify_sum: 'spec.notify_sum',
};

function cap(verb: string, input: AgentCapability['input'] = true): AgentCapability {
  return { verb, input, output: true };
}

function numbers(input: JsonValue): number[] {
  const list = Array.isArray(input) ? input : [];
  return list.map((n) => (typeof n === 'number' ? n : Number.NaN));
}

/** What the agents let tests observe. */
export interface Probe {
  /** Calls of `demo.counter` so far. */
  counter: number;
  /** Resolvers of handlers waiting in `demo.hold`; each resolves with why it stopped. */
  readonly held: ((reason: string) => void)[];
  /** Reasons `demo.hold` handlers stopped (`aborted` when their signal fired). */
  readonly stopped: string[];
}

function agents(probe: Probe): AgentDefinition[] {
  const echo = defineAgent({
    card: { id: 'echo', name: 'Echo', version: '1.0.0', tier: 'L3', capabilities: [cap('demo.echo')] },
    create: () => ({ 'demo.echo': (input) => input }),
  });
  const specAgent = defineAgent({
    card: {
      id: 'spec',
      name: 'JSON-RPC spec examples',
      version: '1.0.0',
      tier: 'L3',
      capabilities: Object.values(SPEC_ALIASES).map((v) => cap(v)),
    },
    create: () => ({
      'spec.subtract': (input) => {
        if (Array.isArray(input)) {
          const [a = Number.NaN, b = Number.NaN] = numbers(input);
          return a - b;
        }
        const o = input as { minuend?: number; subtrahend?: number };
        return (o.minuend ?? Number.NaN) - (o.subtrahend ?? Number.NaN);
      },
      'spec.sum': (input) => numbers(input).reduce((a, b) => a + b, 0),
      'spec.get_data': () => ['hello', 5],
      'spec.update': () => null,
      'spec.notify_hello': () => null,
      'spec.notify_sum': () => null,
    }),
  });
  const tools = defineAgent({
    card: {
      id: 'tools',
      name: 'Test tools',
      version: '1.0.0',
      tier: 'L3',
      capabilities: [
        cap('demo.fail'),
        cap('demo.crash'),
        cap('demo.counter'),
        cap('demo.hold'),
        cap('demo.count'),
        cap('demo.ticks'),
        cap('demo.strict', {
          type: 'object',
          required: ['n'],
          properties: { n: { type: 'integer' } },
          additionalProperties: false,
        }),
      ],
    },
    verbs: [spec('demo.count', { category: 'stream' })],
    create: () => ({
      'demo.fail': (input) => {
        const o = input as { code?: string; message?: string };
        throw new PlexusError(o.code as 'BUDGET_EXCEEDED', o.message ?? 'refused', {
          details: { asked: o.code ?? null },
        });
      },
      'demo.crash': () => {
        throw new Error('secret internal detail');
      },
      'demo.counter': () => ++probe.counter,
      'demo.hold': (_input, ctx) =>
        new Promise((resolve) => {
          const stop = (reason: string): void => {
            probe.stopped.push(reason);
            resolve(reason);
          };
          probe.held.push(stop);
          ctx.signal.addEventListener(
            'abort',
            () => {
              stop('aborted');
            },
            { once: true },
          );
        }),
      'demo.count': (input, ctx) => {
        const n = (input as { n?: number }).n ?? 3;
        for (let i = 1; i <= n; i++) ctx.progress({ i });
        return { count: n };
      },
      'demo.ticks': (input, ctx) => {
        const n = (input as { n?: number }).n ?? 2;
        for (let i = 1; i <= n; i++) ctx.progress(`tick ${i}`);
        return 'done';
      },
      'demo.strict': (input) => input,
    }),
  });
  return [echo, specAgent, tools];
}

/** A node under test. */
export interface TestNode {
  readonly server: Server;
  readonly runtime: Runtime;
  readonly log: EventLog;
  readonly auth: Authenticator;
  readonly face: WsJsonRpcFace;
  readonly probe: Probe;
  readonly key: Ed25519KeyPair;
  /** `ws://127.0.0.1:<port>` (no trailing path). */
  readonly base: string;
  /** A valid node JWT. */
  readonly token: string;
  /** Its token id (for revocation). */
  readonly tokenId: string;
  /** A valid API key. */
  readonly apiKey: string;
  close(): Promise<void>;
}

/** Options of {@link startNode}. */
export interface StartNodeOptions {
  readonly face?: WsJsonRpcInit;
  /** Also let anonymous callers in (dev mode). @default false */
  readonly allowAnonymous?: boolean;
  /** Attach the face only after this (e.g. to add another 'upgrade' listener first). */
  readonly beforeAttach?: (server: Server) => void;
}

/** Starts a node:http server with the face attached, on 127.0.0.1 port 0. */
export async function startNode(options: StartNodeOptions = {}): Promise<TestNode> {
  const probe: Probe = { counter: 0, held: [], stopped: [] };
  const api = generateApiKey();
  let face: WsJsonRpcFace | undefined;
  const node = await startInProcessNode({
    agents: agents(probe),
    nodeId: 'node-under-test',
    auth: (key) => ({
      jwt: { issuerKeys: [key] },
      apiKeys: { keys: [{ hash: api.hash, subject: 'bench-client', id: api.id }] },
      allowAnonymous: options.allowAnonymous ?? false,
    }),
    faces: {
      kind: 'node-http',
      attach: (server, components) => {
        options.beforeAttach?.(server);
        face = attachWsJsonRpc(server, components, options.face);
        return face;
      },
    },
  });
  const issued = await issueToken({ key: node.key, subject: 'tester' });
  return {
    server: node.server,
    runtime: node.runtime,
    log: node.log,
    auth: node.components.auth,
    face: face as WsJsonRpcFace,
    probe,
    key: node.key,
    base: `ws://127.0.0.1:${node.port}`,
    token: issued.token,
    tokenId: issued.tokenId,
    apiKey: api.key,
    async close() {
      for (const stop of probe.held.splice(0)) stop('test over');
      await node.close();
    },
  };
}

/** A raw WebSocket that queues every message it receives, for byte-level checks. */
export interface RawSocket {
  readonly ws: WebSocket;
  send(data: string | Buffer, binary?: boolean): void;
  /** The next message received, parsed. Rejects if the socket closes first. */
  next(): Promise<JsonValue>;
  /** Resolves with the close code once the socket has closed. */
  readonly closed: Promise<number>;
  close(): Promise<void>;
}

/** Opens a raw socket with `Authorization: Bearer <token>` (when given) and the `jsonrpc` subprotocol. */
export async function rawSocket(
  url: string,
  token: string | undefined,
  options: WebSocket.ClientOptions = {},
): Promise<RawSocket> {
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const ws = new WebSocket(url, [WS_JSONRPC_SUBPROTOCOL], { headers, ...options });
  const queue: JsonValue[] = [];
  const waiters: { resolve: (v: JsonValue) => void; reject: (e: Error) => void }[] = [];
  let closeCode: number | undefined;
  const closed = new Promise<number>((resolve) => {
    ws.once('close', (code) => {
      closeCode = code;
      for (const w of waiters.splice(0)) w.reject(new Error(`socket closed with ${code}`));
      resolve(code);
    });
  });
  ws.on('message', (raw) => {
    const value = JSON.parse((raw as Buffer).toString('utf8')) as JsonValue;
    const waiter = waiters.shift();
    if (waiter === undefined) queue.push(value);
    else waiter.resolve(value);
  });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('close', (code) => {
      reject(new Error(`socket closed with ${code} before opening`));
    });
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`upgrade refused: ${res.statusCode}`));
    });
  });
  return {
    ws,
    send(data, binary = false) {
      ws.send(data, { binary });
    },
    next() {
      const value = queue.shift();
      if (value !== undefined) return Promise.resolve(value);
      if (closeCode !== undefined) return Promise.reject(new Error(`socket closed with ${closeCode}`));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    closed,
    async close() {
      if (ws.readyState !== WebSocket.CLOSED) {
        ws.close();
        await closed;
      }
    },
  };
}

/** Sends `text` and returns the next message. */
export async function exchange(socket: RawSocket, text: string): Promise<JsonValue> {
  socket.send(text);
  return socket.next();
}
