/**
 * Test helpers for node-to-node calls: a node (fastify on 127.0.0.1:0, a runtime over a
 * memory log, its own key, the peer route and the HTTP faces for discovery), and tiny
 * scripted HTTP servers on loopback for flaky peers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Envelope } from '../../../src/core/envelope.js';
import type { JsonValue } from '../../../src/core/json.js';
import type { AgentDefinition, Runtime } from '../../../src/runtime/index.js';
import {
  envelopeVerifier,
  generateKeyPair,
  type AuthenticatorInit,
  type Ed25519KeyPair,
  type EnvelopeVerifier,
} from '../../../src/security/index.js';
import type { EventLog } from '../../../src/store/index.js';
import { registerHttpFaces } from '../../../src/transports/http/index.js';
import {
  peerDirectory,
  peerRemoteInvoker,
  registerPeerRoutes,
  type PeerConfig,
  type PeerDirectory,
  type PeerDirectoryInit,
  type PeerRemoteInvokerInit,
  type PeerRoutesInit,
} from '../../../src/transports/peer/index.js';
import { startNode as startInProcessNode } from '../../support/start-node.js';

export { agent, cap, request } from '../../runtime/helpers.js';

/** Options of {@link startNode}. */
export interface TestNodeInit {
  readonly agents?: readonly AgentDefinition[];
  /** The node key. @default a new one */
  readonly key?: Ed25519KeyPair;
  readonly routes?: PeerRoutesInit;
  readonly auth?: AuthenticatorInit;
  readonly invoker?: Partial<Omit<PeerRemoteInvokerInit, 'key' | 'peers'>>;
}

/** One running node under test. */
export interface TestNode {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly runtime: Runtime;
  readonly log: EventLog;
  readonly key: Ed25519KeyPair;
  readonly did: string;
  readonly verifier: EnvelopeVerifier;
  /** Sets the node's peers (creates and starts its directory). */
  connect(peers: readonly PeerConfig[], init?: Partial<PeerDirectoryInit>): Promise<PeerDirectory>;
  /** The directory, once connected. */
  directory(): PeerDirectory;
  close(): Promise<void>;
}

/**
 * Starts a node: runtime (memory log) with a peer `RemoteInvoker`, fastify on 127.0.0.1:0
 * with `POST /v1/peer/invoke` and the HTTP faces (`GET /agents` for discovery).
 */
export async function startNode(init: TestNodeInit = {}): Promise<TestNode> {
  const key = init.key ?? generateKeyPair();
  let directory: PeerDirectory | undefined;
  const verifier = envelopeVerifier();
  const remote = peerRemoteInvoker({
    key,
    peers: { peerFor: (card) => directory?.peerFor(card) },
    retry: { delaysMs: [1, 1, 1] },
    ...init.invoker,
  });
  const node = await startInProcessNode({
    key,
    agents: init.agents ?? [],
    verifier,
    runtime: { remote, verifier },
    ...(init.auth === undefined ? {} : { auth: init.auth }),
    faces: {
      kind: 'fastify',
      // Peers keep connections alive; close them with the node instead of waiting for the peer's idle timeout.
      options: { forceCloseConnections: true },
      register: async (app, components) => {
        await registerPeerRoutes(app, components, init.routes);
        // Discovery (`GET /agents`) is the HTTP faces' own route, as on a real node.
        await registerHttpFaces(app, components);
      },
    },
  });
  const { runtime } = node;
  return {
    url: `http://127.0.0.1:${String(node.port)}`,
    app: node.app,
    runtime,
    log: node.log,
    key,
    did: node.nodeId,
    verifier,
    async connect(peers, extra = {}) {
      await directory?.stop();
      directory = peerDirectory({ peers, runtime, intervalMs: 60_000, ...extra });
      await directory.start();
      await directory.refresh();
      return directory;
    },
    directory() {
      if (directory === undefined) throw new Error('node not connected');
      return directory;
    },
    async close() {
      await directory?.stop();
      await node.close();
    },
  };
}

/** One request the scripted server received. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** What the scripted server answers: status and body, or `'hang'` (never answers). */
export type Scripted = { readonly status: number; readonly body: unknown } | 'hang';

/** A real HTTP server on loopback that answers from a script (the last entry repeats). */
export interface ScriptedServer {
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

/** Starts a scripted server on 127.0.0.1:0. */
export async function scriptedServer(
  script: readonly Scripted[] | ((received: Received, index: number) => Scripted),
): Promise<ScriptedServer> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      const index = received.length - 1;
      const answer =
        typeof script === 'function'
          ? script(entry, index)
          : (script[Math.min(index, script.length - 1)] ?? 'hang');
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A real HTTP front on loopback that answers 503 to the first `failures` peer calls and relays everything else to `target`. */
export async function flakyFront(
  target: string,
  failures: number,
): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const isCall = req.url === '/v1/peer/invoke';
      if (isCall) calls += 1;
      if (isCall && calls <= failures) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'warming up', retryable: true } }));
        return;
      }
      const method = req.method ?? 'GET';
      fetch(`${target}${req.url ?? '/'}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: Buffer.concat(chunks).toString('utf8') } : {}),
      })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(await upstream.text());
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

/** A response answer envelope for `req`. */
export function answerFor(req: Envelope, data: JsonValue): Envelope {
  return {
    id: req.id,
    kind: 'response',
    from: 'echo',
    to: req.from,
    verb: req.verb,
    data,
    correlationId: req.id,
  };
}

/** Posts JSON text to a node's peer route and returns status and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the body freely
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${url}/v1/peer/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
