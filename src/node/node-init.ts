/**
 * The options of a node: what `createNode` takes, the defaults, how a `plexus.yaml`
 * configuration and command-line flags combine into them, and the checks made before
 * anything is opened (including D14: TLS on any non-loopback listener).
 */
import { resolve } from 'node:path';
import { PlexusError } from '../core/errors.js';
import type { AgentDefinition } from '../runtime/index.js';
import { isLoopbackHost } from '../security/index.js';
import type { Logger } from '../core/logger.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { memoryStore, sqliteStore, type StoreFactory } from '../store/index.js';
import type { FaceFactory } from '../transports/face.js';
import type { PaymentRoutesInit } from '../transports/http/payment-route.js';
import { checkPrimitiveNames } from './primitive-names.js';
import type { AuthConfig, LimitsConfig, NodeConfig, NodeStoreKind } from './config-schema.js';

/** The default port (D15). */
export const DEFAULT_PORT = 3100;
/** The default listen address: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
/** The default data directory, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.plexus';
/** The default largest request body: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** The default bound on draining in-flight jobs at stop, ms. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Options of {@link createNode}. */
export interface NodeInit {
  /** The data directory (created if missing; holds node.key, events.db, artifacts/, projections/). @default ./.plexus */
  readonly dataDir?: string;
  /**
   * The storage backend: a {@link StoreFactory} (`sqliteStore()`, `memoryStore()`, or a new
   * backend's), or the name `plexus.yaml` and the CLI give (`'sqlite'`, `'memory'`).
   * @default 'sqlite'
   */
  readonly store?: StoreFactory | NodeStoreKind;
  /** The listen address. A non-loopback address needs `tls` (D14). @default '127.0.0.1' */
  readonly host?: NodeConfig['host'];
  /** The port; 0 picks a free one (read it from `node.port` after start). @default 3100 */
  readonly port?: NodeConfig['port'];
  /** Dev mode: on a loopback address, requests without credentials are allowed (D14). @default false */
  readonly dev?: NodeConfig['dev'];
  /** Register the demo agents (echo, summariser, evaluator, slow job), or those listed by id. @default false */
  readonly demo?: NodeConfig['demo'];
  /**
   * Host the eight Hyperspace primitives (state, guard, tool, memory, recursive, learning,
   * improving, micropayments), or those listed.
   * @default true
   */
  readonly primitives?: NodeConfig['primitives'];
  /** Priced routes answered with the HTTP 402 payment flow (seed 003 §6.3). @default none */
  readonly payments?: PaymentRoutesInit;
  /** UCAN capability checks on every request (D7). @default off */
  readonly capabilities?: NodeConfig['capabilities'];
  /** The A2A face: the webhook hosts push notifications may go to (docs/faces/a2a.md). */
  readonly a2a?: NodeConfig['a2a'];
  /** MCP servers bridged as agents, and `bridge.registerMCPServer` (docs/faces/mcp.md). @default none */
  readonly mcp?: NodeConfig['mcp'];
  /** More agents to host. @default [] */
  readonly agents?: readonly AgentDefinition[];
  /**
   * A supervision tree over the hosted agents (by id; docs/supervision.md). Agents it does not
   * name keep their own restart policy. @default none
   */
  readonly supervision?: NodeConfig['supervision'];
  /**
   * Prices of the meters verbs charge and budget limits, micro-units (docs/effects.md).
   * @default none: charges are not taken
   */
  readonly budgets?: NodeConfig['budgets'];
  /** Fallback policies, per-verb selection, target groups, queue-for-sync bounds (docs/routing.md). @default only `default: [error]` */
  readonly routing?: NodeConfig['routing'];
  /** API keys accepted as bearer credentials (their SHA-256 only). @default [] */
  readonly apiKeys?: AuthConfig['apiKeys'];
  /** Peer nodes whose agents this node can call (a peer's `did` also admits its calls). @default [] */
  readonly peers?: NodeConfig['peers'];
  /**
   * Peer nodes (did:key or PeerId) whose signed calls to `POST /v1/peer/invoke` are admitted,
   * beside the `did`s of `peers`. When neither names any, only a dev node (auth off) admits
   * signed calls; a node with auth on refuses every other signer with 403, whatever bearer it
   * carries (docs/decisions/peer-trust.md).
   * @default []
   */
  readonly trustedPeers?: AuthConfig['trustedPeers'];
  /** How often peers' agent lists are polled, ms. @default 10000 */
  readonly peerPollMs?: NodeConfig['peerPollMs'];
  /** The node's libp2p mesh peer (docs/mesh.md); on when `enabled` is true. @default off */
  readonly mesh?: NodeConfig['mesh'];
  /** How long an agent registered by an Emergence HELLO without an endpoint stays registered, ms. @default 300000 */
  readonly helloTtlMs?: NodeConfig['helloTtlMs'];
  /** The largest request body, bytes. @default 1048576 */
  readonly bodyLimitBytes?: LimitsConfig['bodyLimitBytes'];
  /** The timeout of a request that names none, ms. @default 30000 */
  readonly defaultTimeoutMs?: LimitsConfig['defaultTimeoutMs'];
  /**
   * Idempotency keys the runtime keeps in memory; older ones inside their window are looked up
   * in the log (A2A-23). Programmatic only (tests, benchmarks): keep the default on a node
   * checked with `plexus replay --verify`. @default 10000
   */
  readonly retainIdempotencyKeys?: number;
  /**
   * Finished jobs the runtime keeps in memory, the most recently finished (P3-002); older ones
   * (A2A tasks among them) are read back from the log on demand. Programmatic only (tests,
   * benchmarks): keep the default on a node checked with `plexus replay --verify`. @default 10000
   */
  readonly retainFinishedJobs?: number;
  /**
   * Most requests in flight on the node (an async job counts until it ends); more are answered
   * HTTP 429 with `Retry-After` / JSON-RPC −32003. Health probes are never counted. @default 256
   */
  readonly maxInFlight?: LimitsConfig['maxInFlight'];
  /** Most requests in flight on one connection (TCP or WebSocket); more are answered 429 / −32003. @default 32 */
  readonly maxInFlightPerConnection?: LimitsConfig['maxInFlightPerConnection'];
  /**
   * `GET /metrics` (docs/observability.md): `enabled: false` keeps no meters at all (the
   * scrape answers 404); `public` serves it without a credential; `maxVerbs` / `maxTenants` cap
   * the distinct `verb` / `tenant` label values (the rest count as `other`).
   * @default { enabled: true, public: false, maxVerbs: 200, maxTenants: 200 }
   */
  readonly metrics?: NodeConfig['metrics'];
  /**
   * OpenTelemetry traces over OTLP/HTTP (docs/observability.md "Traces"): on when `enabled` or
   * an `endpoint` is set; the endpoint defaults to `OTEL_EXPORTER_OTLP_ENDPOINT`, then
   * `http://localhost:4318`. @default off
   */
  readonly tracing?: NodeConfig['tracing'];
  /** Where spans go instead of OTLP (tests: an in-memory exporter), each as it ends. Turns tracing on. */
  readonly spanExporter?: SpanExporter;
  /** How long `stop()` waits for in-flight jobs before cancelling them, ms. @default 10000 */
  readonly drainMs?: NodeConfig['drainMs'];
  /** TLS certificate and key files (PEM): the node then listens on HTTPS / WSS. */
  readonly tls?: NodeConfig['tls'];
  /** Where the node and its faces log. @default silentLogger */
  readonly logger?: Logger;
  /**
   * The faces the node serves, registered in this order on its one port, started once it
   * listens and stopped in reverse order. `payments`, `trustedPeers` and `helloTtlMs` are read
   * by the defaults: to add a face, list `[...defaultFaces(init), myFace()]`.
   * @default defaultFaces(init)
   */
  readonly faces?: readonly FaceFactory[];
}

/** The node's options with every default filled in. */
export interface ResolvedNodeInit {
  readonly dataDir: string;
  /** As given (a name or a factory); {@link storeFactoryOf} turns it into the factory. */
  readonly store: StoreFactory | NodeStoreKind;
  readonly host: string;
  readonly port: number;
  readonly dev: boolean;
  readonly demo: boolean | readonly string[];
  readonly primitives: boolean | readonly string[];
  readonly bodyLimitBytes: number;
  readonly drainMs: number;
}

/**
 * The store factory of a `store` option: a factory as is, a backend name mapped to its factory.
 */
export function storeFactoryOf(store: StoreFactory | NodeStoreKind): StoreFactory {
  if (typeof store === 'function') return store;
  if (store === 'sqlite') return sqliteStore();
  // Anything but 'sqlite' has always meant the memory store (a typed caller cannot pass more).
  return memoryStore();
}

/**
 * The node options a configuration file gives, with `overrides` (command-line flags) on top.
 * Fields absent from both keep the node's defaults.
 */
export function nodeInitFromConfig(config: NodeConfig, overrides: NodeInit = {}): NodeInit {
  // The sections NodeInit takes under their own names pass through as they are; the rest are
  // renamed (data → dataDir), flattened (auth, limits), or not node options (agents: the CLI
  // imports those modules).
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- agents are module paths, not node options
  const { data, auth, limits, agents, ...same } = config;
  return {
    ...same,
    ...limits,
    ...(data === undefined ? {} : { dataDir: data }),
    ...(auth?.apiKeys === undefined ? {} : { apiKeys: auth.apiKeys }),
    ...(auth?.trustedPeers === undefined ? {} : { trustedPeers: auth.trustedPeers }),
    ...overrides,
  };
}

/**
 * Checks the options that can be checked before anything is opened: port, body limit,
 * drain bound, and D14 (TLS on any non-loopback listener).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the option.
 */
export function resolveNodeInit(init: NodeInit, cwd: string = process.cwd()): ResolvedNodeInit {
  const host = init.host ?? DEFAULT_HOST;
  const port = init.port ?? DEFAULT_PORT;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `port must be a whole number from 0 to 65535, got ${String(port)}`,
    );
  }
  const bodyLimitBytes = init.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `bodyLimitBytes must be a whole number ≥ 1, got ${String(bodyLimitBytes)}`,
    );
  }
  const drainMs = init.drainMs ?? DEFAULT_DRAIN_MS;
  if (!Number.isSafeInteger(drainMs) || drainMs < 0) {
    throw new PlexusError('INVALID_PARAMS', `drainMs must be a whole number ≥ 0, got ${String(drainMs)}`);
  }
  if (!isLoopbackHost(host) && init.tls === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `refusing to listen on ${host === '' ? 'all interfaces' : host} without TLS: a non-loopback listener needs HTTPS (D14). ` +
        'Set tls.cert and tls.key in plexus.yaml, or listen on 127.0.0.1.',
      { details: { field: 'tls' } },
    );
  }
  return {
    dataDir: resolve(cwd, init.dataDir ?? DEFAULT_DATA_DIR),
    store: init.store ?? 'sqlite',
    host,
    port,
    dev: init.dev ?? false,
    demo: init.demo ?? false,
    primitives:
      init.primitives === undefined || init.primitives === true
        ? true
        : init.primitives === false
          ? false
          : checkPrimitiveNames(init.primitives),
    bodyLimitBytes,
    drainMs,
  };
}
