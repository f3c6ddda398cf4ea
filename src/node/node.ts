/**
 * `createNode`: assembles a Plexus node from its parts — data directory, node key, event log,
 * artifact store, runtime (with agents and the peer client), authenticator, and one fastify
 * server carrying every face (D15) — and runs its lifecycle: `start()` listens, `stop()`
 * drains in-flight jobs up to a bound and closes everything.
 */
import { uniqueToolNamesCheck } from '../transports/mcp/tool-name-check.js';
import { sign as cryptoSign } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { PlexusError, toPlexusError } from '../core/errors.js';
import { startable } from '../core/startable.js';
import {
  auditPreEffect,
  capabilityAuthorizer,
  createRevocations,
  createRuntime,
  reservedTypes,
  ucanBudgets,
  type CapabilityAuthorizer,
  type Revocations,
  type Runtime,
} from '../runtime/index.js';
import {
  authenticator,
  authPolicy,
  envelopeVerifier,
  proofStore,
  ucanVerifier,
  type AuthPolicy,
  type UcanVerifier,
} from '../security/index.js';
import type { EventLog, SnapshotStore } from '../store/index.js';
import { silentLogger, type FaceComponents } from '../transports/face-components.js';
import { capabilityGate, type CapabilityGate } from '../transports/capability-gate.js';
import { emergenceRemoteInvoker } from '../transports/http/index.js';
import { peerDirectory } from '../transports/peer/index.js';
import { admission } from '../transports/admission.js';
import { faceHost } from '../transports/face-host.js';
import type { CapabilitiesConfig, TlsConfig } from './config.js';
import { resolveNodeInit, storeFactoryOf, type NodeInit } from './node-init.js';
import { distinctAgents } from './agent-ids.js';
import { defaultFaces } from './faces.js';
import { demoAgents } from './demo-agents.js';
import { hyperspaceHost } from './primitive-host.js';
import { NODE_PROJECTIONS } from './data-dir-replay.js';
import { loadOrCreateNodeKey, type NodeKey } from './node-key.js';
import { nodeRouter } from './node-router.js';
import { trackLogHealth } from './log-health.js';
import { cleanupStack, type CleanupStack } from './cleanup-stack.js';
import { METERED_SPANS, nodeMetrics } from '../observability/metrics/node-metrics.js';
import { nodeTracingOf } from './tracing-setup.js';
import type { Observer } from '../runtime/observer.js';
import { nodeObserver } from '../observability/node-observer.js';
import { meteredAdmission, meteredLog } from './metered.js';
import { LOGGED_SPANS, invocationLogObserver } from '../observability/logging/invocation-log.js';

/** How long `stop()` waits for open HTTP connections after the drain before cutting them, ms. */
const CONNECTION_GRACE_MS = 2_000;

/** Options of {@link Node.stop}. */
export interface NodeStopOptions {
  /** Overrides the node's `drainMs`. */
  readonly drainMs?: number;
}

/** A running (or runnable) Plexus node. */
export interface Node {
  /** Opens the data directory, log and key, starts the runtime and listens. Idempotent. */
  start(): Promise<void>;
  /**
   * Stops accepting requests, lets in-flight jobs finish for up to `drainMs` (then cancels
   * them), closes connections, the log and the stores. Safe to call twice.
   */
  stop(options?: NodeStopOptions): Promise<void>;
  /** The base URL (`http://127.0.0.1:3100`). @throws PlexusError `UNAVAILABLE` before start. */
  readonly url: string;
  /** The port actually bound. @throws PlexusError `UNAVAILABLE` before start. */
  readonly port: number;
  /** The node's did:key. @throws PlexusError `UNAVAILABLE` before start. */
  readonly nodeId: string;
  /** The runtime. @throws PlexusError `UNAVAILABLE` before start. */
  readonly runtime: Runtime;
  /** The event log. @throws PlexusError `UNAVAILABLE` before start. */
  readonly log: EventLog;
  /** Whether requests need credentials, and why. */
  readonly auth: AuthPolicy;
  /** The data directory, absolute. */
  readonly dataDir: string;
  /** True when the node listens on HTTPS. */
  readonly tls: boolean;
}

function urlHost(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

async function readTls(tls: TlsConfig): Promise<{ cert: Buffer; key: Buffer }> {
  const read = async (path: string, what: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (cause) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `cannot read the TLS ${what} ${path}: ${toPlexusError(cause).message}`,
        {
          cause,
          details: { field: `tls.${what}` },
        },
      );
    }
  };
  return { cert: await read(tls.cert, 'cert'), key: await read(tls.key, 'key') };
}

async function listen(app: FastifyInstance, host: string, port: number): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    const where = `${host}:${port}`;
    const reason =
      code === 'EADDRINUSE'
        ? `${where} is already in use (another node?); pass another --port, or --port 0 for a free one`
        : code === 'EACCES'
          ? `permission denied to listen on ${where}; use a port above 1023`
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? `${host} is not an address of this machine`
            : undefined;
    if (reason === undefined) throw cause;
    throw new PlexusError('UNAVAILABLE', `cannot listen: ${reason}`, { cause, retryable: false });
  }
}

/** The UCAN checks of a node (D7): revocations from the log, a chain verifier, the authorizer. */
interface CapabilityChecks {
  readonly revocations: Revocations;
  readonly authorizer: CapabilityAuthorizer;
  /** What the faces use: UCAN credentials and revocations over the wire. */
  readonly gate: CapabilityGate;
  /** The chain verifier (UCAN budget caveats cap the charges effect). */
  readonly verifier: UcanVerifier;
}

async function capabilityChecks(
  log: EventLog,
  nodeId: string,
  config: CapabilitiesConfig | undefined,
  snapshots: SnapshotStore | undefined,
  observer: Observer,
): Promise<CapabilityChecks | undefined> {
  if (config?.enabled !== true) return undefined;
  const store = proofStore();
  const revocations = createRevocations({
    log,
    resolver: store,
    ...(snapshots === undefined ? {} : { snapshots }),
  });
  await revocations.start();
  const verifier = ucanVerifier({
    roots: [nodeId, ...(config.roots ?? [])],
    audience: nodeId,
    store,
    revocations,
    ...(config.cacheSize === undefined ? {} : { cacheSize: config.cacheSize }),
  });
  const authorizer = capabilityAuthorizer({
    verifier,
    log,
    auditMode: 'batch',
    observer,
    requireToken: config.requireToken ?? true,
    enforce: config.enforce ?? true,
    // The node's own in-process calls (recovery, the tool primitive's child calls) carry the
    // caller's authority already checked at the face.
    exempt: (r) => (r.context.face === 'internal' ? 'an in-process call of the node' : undefined),
  });
  return { revocations, authorizer, gate: capabilityGate({ verifier, revocations, authorizer }), verifier };
}

/** What a run of the node's cleanup stack is given: how long the runtime may drain. */
interface Teardown {
  readonly drainMs: number;
}

/** A teardown step whose failure does not fail `stop()` (only the drain and the log's do). */
const bestEffort =
  (step: () => Promise<void>): (() => Promise<void>) =>
  () =>
    step().catch(() => undefined);

interface Running {
  readonly key: NodeKey;
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly url: string;
  readonly port: number;
  /** Closes everything `open()` opened, in order; the same stack a failed start runs. */
  readonly cleanup: CleanupStack<Teardown>;
}

/**
 * Creates a node. Nothing is opened until `start()`.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option, including a non-loopback `host`
 *   without `tls` (D14).
 * @example
 * const node = createNode({ dataDir: './.plexus', port: 0, dev: true, demo: true });
 * await node.start();
 * const health = await fetch(`${node.url}/healthz`);
 * await node.stop();
 */
export function createNode(init: NodeInit = {}): Node {
  const options = resolveNodeInit(init);
  const storeFactory = storeFactoryOf(options.store);
  const logger = init.logger ?? silentLogger;
  const policy = authPolicy({ host: options.host, dev: options.dev });
  let running: Running | undefined;
  let draining = false;

  const need = (): Running => {
    if (running === undefined)
      throw new PlexusError('UNAVAILABLE', 'the node is not started; call start() first');
    return running;
  };

  const open = async (): Promise<Running> => {
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const key = await loadOrCreateNodeKey(options.dataDir);
    const nodeId = key.identity.did;
    const cleanup = cleanupStack<Teardown>();
    // The store comes first; a backend that locks its storage refuses a second node here.
    const store = storeFactory({ dataDir: options.dataDir });
    const { artifacts, snapshots, lock } = store;
    if (lock !== undefined) {
      cleanup.push(() => {
        lock.release();
        return Promise.resolve();
      });
    }
    // One registry per node (several nodes share a test process): docs/observability.md.
    // `metrics.enabled: false` makes none (OBS-50): no meters, no metered log or gate.
    const metrics =
      init.metrics?.enabled === false
        ? undefined
        : nodeMetrics({
            ...(init.metrics?.maxVerbs === undefined ? {} : { maxVerbs: init.metrics.maxVerbs }),
            ...(init.metrics?.maxTenants === undefined ? {} : { maxTenants: init.metrics.maxTenants }),
          });
    const health = trackLogHealth(metrics === undefined ? store.log : meteredLog(store.log, metrics));
    const log = health.log;
    // One tracer provider per node, never global (OBS-6); none at all when tracing is off (OBS-7).
    const tracing = nodeTracingOf(init, nodeId);
    if (tracing !== undefined) cleanup.push(bestEffort(() => tracing.shutdown())); // runs last: flushes
    // The runtime's spans feed the meters, with a logger the invocation and routing lines, and
    // with tracing on the exported spans.
    // Each part gets only the spans it reads (OBS-62): a step goes straight to the tracer.
    const observer: Observer = nodeObserver([
      ...(metrics === undefined ? [] : [{ observer: metrics.observer, spans: METERED_SPANS }]),
      ...(logger === silentLogger ? [] : [{ observer: invocationLogObserver(logger), spans: LOGGED_SPANS }]),
      ...(tracing === undefined ? [] : [{ observer: tracing.observer }]),
    ]);
    try {
      const tls = init.tls === undefined ? undefined : await readTls(init.tls);
      await log.start();
      cleanup.push(() => log.stop());
      await artifacts.start();
      cleanup.push(bestEffort(() => artifacts.stop()));
      // Nonces are remembered in memory only: refuse envelopes signed before this start (issue 11).
      const verifier = envelopeVerifier({ notBefore: Date.now() });
      const peers = init.peers ?? [];
      // Dependency order: the router and the primitives first (the runtime hosts the
      // primitives' agents and calls out through the router), then the runtime, then the peer
      // directory over its registry; the runtime and the directory are handed to the router
      // and the primitives before the runtime starts (its recovery may route calls).
      const remote = nodeRouter({
        peers,
        key: key.key,
        nodeId,
        log,
        snapshots,
        logger,
        routing: init.routing,
        observer,
      });
      await remote.start();
      cleanup.push(bestEffort(() => remote.stop()));
      const hyperspace = hyperspaceHost({ log, nodeId, peerId: key.identity.peerId }, options.primitives);
      await hyperspace.start();
      cleanup.push(bestEffort(() => hyperspace.stop()));
      const capabilities = await capabilityChecks(log, nodeId, init.capabilities, snapshots, observer);
      if (capabilities !== undefined) cleanup.push(bestEffort(() => capabilities.revocations.stop()));
      const demo = options.demo === false ? [] : demoAgents(options.demo === true ? undefined : options.demo);
      const agents = distinctAgents([
        { what: 'a demo agent', agents: demo },
        { what: 'a Hyperspace primitive', agents: hyperspace.agents },
        { what: 'an agent given to the node', agents: init.agents ?? [] },
      ]);
      const runtime = createRuntime({
        log,
        nodeId,
        agents,
        // Req 5.5: two tools of one name are refused at registration (MCP-52)
        registrationChecks: [uniqueToolNamesCheck],
        verifier,
        logger,
        observer,
        requireAuth: policy.required,
        // Agents announced by HELLO with an endpoint are reached there; other remote cards via the peers.
        remote: emergenceRemoteInvoker({ nodeId, logger, next: remote }),
        ...(capabilities === undefined
          ? {}
          : {
              authorizers: [capabilities.authorizer],
              preEffects: [auditPreEffect, capabilities.authorizer.auditEffect],
            }),
        snapshots,
        effects: {
          ...(init.budgets === undefined ? {} : { budgets: init.budgets }),
          ...(capabilities === undefined ? {} : { extraBudgets: ucanBudgets(capabilities.verifier) }),
          reserved: reservedTypes(NODE_PROJECTIONS),
        },
        ...(init.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: init.defaultTimeoutMs }),
        ...(init.retainIdempotencyKeys === undefined
          ? {}
          : { retainIdempotencyKeys: init.retainIdempotencyKeys }),
        ...(init.retainFinishedJobs === undefined ? {} : { retainFinishedJobs: init.retainFinishedJobs }),
        ...(init.supervision === undefined ? {} : { supervision: init.supervision }),
      });
      const directory =
        peers.length === 0
          ? undefined
          : peerDirectory({
              peers,
              runtime,
              logger,
              ...(init.peerPollMs === undefined
                ? {}
                : { intervalMs: init.peerPollMs, maxIntervalMs: Math.max(init.peerPollMs * 8, 1000) }),
            });
      hyperspace.attach(runtime);
      remote.attach({ runtime, resolver: directory ?? { peerFor: () => undefined } });
      await runtime.start();
      cleanup.push(({ drainMs }) => runtime.stop({ drainMs }));
      const auth = authenticator({
        jwt: { issuerKeys: [key.key] },
        ...(init.apiKeys === undefined || init.apiKeys.length === 0
          ? {}
          : { apiKeys: { keys: init.apiKeys } }),
        allowAnonymous: !policy.required,
      });
      const components: FaceComponents = {
        runtime,
        log,
        artifacts,
        auth,
        verifier,
        nodeId,
        nodeSigner: {
          kid: key.identity.did,
          sign: (data) => cryptoSign(null, data, key.key.privateKeyObject),
        },
        nodeSecret: () => new Uint8Array(key.key.secretKey),
        dataDir: options.dataDir,
        logger,
        ...(metrics === undefined ? {} : { metrics }),
        ...(tracing === undefined ? {} : { tracing: tracing.observer }),
        routeTransports: remote.transports,
        ...(hyperspace.trajectories === undefined ? {} : { trajectories: hyperspace.trajectories }),
        ...(capabilities === undefined ? {} : { capabilities: capabilities.gate }),
      };
      // Load shedding: bounds on work in flight, checked before any face decodes a request.
      const bare = admission({
        ...(init.maxInFlight === undefined ? {} : { maxInFlight: init.maxInFlight }),
        ...(init.maxInFlightPerConnection === undefined
          ? {}
          : { maxInFlightPerConnection: init.maxInFlightPerConnection }),
      });
      const gate = metrics === undefined ? bare : meteredAdmission(bare, metrics);
      const faces = faceHost({
        components,
        bodyLimitBytes: options.bodyLimitBytes,
        admission: gate,
        readiness: { ready: () => !draining, unreadyReason: health.unwritableReason },
        ...(tls === undefined ? {} : { https: tls }),
      });
      const { app } = faces;
      cleanup.push(() => app.close());
      for (const face of init.faces ?? defaultFaces(init)) await faces.add(face);
      cleanup.push(bestEffort(() => faces.stop()));
      // stop(): stop listening at once (new requests on open connections get 503), drain the
      // jobs, stop the router, stop the faces (their connections and own listeners), then give
      // the open connections a grace period; the steps below this one (faces, app, runtime, …)
      // then close what is left, in order.
      cleanup.push(async ({ drainMs }) => {
        draining = true;
        const closing = app.close();
        try {
          await runtime.stop({ drainMs });
        } finally {
          await remote.stop().catch(() => undefined);
          await faces.stop().catch(() => undefined);
          const timer = setTimeout(() => {
            app.server.closeAllConnections();
          }, CONNECTION_GRACE_MS);
          void closing
            .catch(() => undefined)
            .finally(() => {
              clearTimeout(timer);
            });
        }
      });
      await listen(app, options.host, options.port);
      const port = (app.server.address() as AddressInfo).port;
      const url = `${tls === undefined ? 'http' : 'https'}://${urlHost(options.host)}:${port}`;
      lock?.announce(port);
      await faces.start();
      if (directory !== undefined) {
        await directory.start();
        cleanup.push(bestEffort(() => directory.stop()));
      }
      logger.info({ nodeId, url, auth: policy.required ? 'on' : 'off' }, 'plexus node started');
      return { key, log, runtime, url, port, cleanup };
    } catch (error) {
      await cleanup.run({ drainMs: 0 }).catch(() => undefined);
      draining = false;
      throw toPlexusError(error);
    }
  };

  const life = startable({
    async start(): Promise<void> {
      running = await open();
    },
    async stop(drainMs: number): Promise<void> {
      const r = running;
      try {
        await r?.cleanup.run({ drainMs });
        if (r !== undefined) logger.info({ nodeId: r.key.identity.did }, 'plexus node stopped');
      } finally {
        running = undefined;
        draining = false;
      }
    },
  });

  const node: Node = {
    start: () => life.start(),
    stop: (stopOptions: NodeStopOptions = {}) => life.stop(stopOptions.drainMs ?? options.drainMs),
    get url() {
      return need().url;
    },
    get port() {
      return need().port;
    },
    get nodeId() {
      return need().key.identity.did;
    },
    get runtime() {
      return need().runtime;
    },
    get log() {
      return need().log;
    },
    auth: policy,
    dataDir: options.dataDir,
    tls: init.tls !== undefined,
  };
  return node;
}
