/**
 * An in-process node for face tests: a started memory event log, a runtime with the given
 * agents, the face components (memory artifacts, an authenticator, an envelope verifier) and
 * the faces served on 127.0.0.1 port 0, either by fastify or by a plain node:http server.
 * (A real `plexus start` process is `startNodeProcess` in test/e2e/harness.ts.)
 */
import { createServer, type Server } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import {
  createRuntime,
  type AgentDefinition,
  type Runtime,
  type RuntimeInit,
} from '../../src/runtime/index.js';
import {
  authenticator,
  envelopeVerifier,
  generateKeyPair,
  identityFromPublicKey,
  type AuthenticatorInit,
  type Ed25519KeyPair,
  type EnvelopeVerifier,
} from '../../src/security/index.js';
import { memoryArtifactStore, memoryEventLog, type EventLog } from '../../src/store/index.js';
import type { FaceComponents } from '../../src/transports/face-components.js';

/** Faces registered on a fastify app. */
export interface FastifyFaces {
  readonly kind: 'fastify';
  readonly register: (app: FastifyInstance, components: FaceComponents) => Promise<void>;
  /** Options of the fastify app. @default {} */
  readonly options?: FastifyServerOptions;
}

/** Faces attached to a plain node:http server (which answers 404 to plain requests). */
export interface HttpServerFaces {
  readonly kind: 'node-http';
  /** Attaches the faces; the answer's `close` runs first when the node closes. */
  readonly attach: (server: Server, components: FaceComponents) => { close(): Promise<void> };
}

/** Options of {@link startNode}. */
export interface StartNodeInit<F extends FastifyFaces | HttpServerFaces> {
  /** How the faces are served. */
  readonly faces: F;
  readonly agents?: readonly AgentDefinition[];
  /** The node key. @default a new one */
  readonly key?: Ed25519KeyPair;
  /** The node id. @default the key's DID */
  readonly nodeId?: string;
  /** The authenticator's options (from the node key). @default anonymous callers admitted */
  readonly auth?: AuthenticatorInit | ((key: Ed25519KeyPair) => AuthenticatorInit);
  /** The envelope verifier of the faces. @default a new one */
  readonly verifier?: EnvelopeVerifier;
  /** More runtime options (a remote invoker, a verifier). */
  readonly runtime?: Omit<RuntimeInit, 'log' | 'agents' | 'nodeId'>;
  /** Replaces components (e.g. a broken runtime) before the faces see them. */
  readonly patch?: (components: FaceComponents) => FaceComponents;
}

/** A running in-process node. */
export interface InProcessNode {
  readonly key: Ed25519KeyPair;
  readonly nodeId: string;
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly components: FaceComponents;
  /** The listening node:http server (fastify's own when served by fastify). */
  readonly server: Server;
  readonly port: number;
  /** Closes the faces and the server, stops the runtime (no drain) and the log. */
  close(): Promise<void>;
}

/** A node served by fastify. */
export interface FastifyNode extends InProcessNode {
  readonly app: FastifyInstance;
}

/** Starts a node; see {@link StartNodeInit}. */
export async function startNode(init: StartNodeInit<FastifyFaces>): Promise<FastifyNode>;
export async function startNode(init: StartNodeInit<HttpServerFaces>): Promise<InProcessNode>;
export async function startNode(
  init: StartNodeInit<FastifyFaces | HttpServerFaces>,
): Promise<InProcessNode | FastifyNode> {
  const key = init.key ?? generateKeyPair();
  const nodeId = init.nodeId ?? identityFromPublicKey(key.publicKey).did;
  const log = memoryEventLog();
  await log.start();
  const runtime = createRuntime({ ...init.runtime, log, nodeId, agents: init.agents ?? [] });
  await runtime.start();
  const auth = typeof init.auth === 'function' ? init.auth(key) : (init.auth ?? { allowAnonymous: true });
  let components: FaceComponents = {
    runtime,
    log,
    artifacts: memoryArtifactStore(),
    auth: authenticator(auth),
    verifier: init.verifier ?? envelopeVerifier(),
    nodeId,
  };
  if (init.patch !== undefined) components = init.patch(components);
  const stopCore = async (): Promise<void> => {
    await runtime.stop({ drainMs: 0 });
    await log.stop();
  };
  const base = { key, nodeId, log, runtime, components };
  if (init.faces.kind === 'fastify') {
    const app = Fastify(init.faces.options ?? {});
    await init.faces.register(app, components);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      ...base,
      app,
      server: app.server,
      port: portOf(app.server),
      async close() {
        await app.close();
        await stopCore();
      },
    };
  }
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const faces = init.faces.attach(server, components);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...base,
    server,
    port: portOf(server),
    async close() {
      await faces.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await stopCore();
    },
  };
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
