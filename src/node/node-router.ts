/**
 * The node's router (seed 002 Part VI): the peer client wrapped in the routing invoker — the
 * HTTP peer transport for the configured peers, the local transport for `local://` steps, the
 * fallback policies of the node's configuration, and the answer cache over the node's log. The
 * runtime and the peer directory are created after the router; the node hands them over with
 * `attach`. Faces, made later still, add their own transports (the mesh face's libp2p one) to
 * `transports` (docs/decisions/mesh.md MESH-7), so every node has a router.
 */
import type { EventLog, SnapshotStore } from '../store/index.js';
import type { Observer, Runtime } from '../runtime/index.js';
import {
  fallbackPolicies,
  localTransport,
  routeTransportSet,
  routingInvoker,
  type RouteTransportSet,
  type RoutingInvoker,
} from '../runtime/routing/index.js';
import type { Ed25519KeyPair } from '../security/index.js';
import type { Logger } from '../core/logger.js';
import {
  httpPeerTransport,
  normalizePeerUrl,
  peerRemoteInvoker,
  type PeerConfig,
  type PeerResolver,
} from '../transports/peer/index.js';
import { late } from './late.js';
import type { RoutingConfig } from './config-schema.js';

/** What {@link nodeRouter} needs. */
export interface NodeRouterComponents {
  readonly peers: readonly PeerConfig[];
  readonly key: Ed25519KeyPair;
  readonly nodeId: string;
  readonly log: EventLog;
  readonly snapshots: SnapshotStore | undefined;
  readonly logger: Logger;
  readonly routing: RoutingConfig | undefined;
  /** Where the router reports its fallbacks (the node's meters). */
  readonly observer?: Observer;
}

/** What the router is handed once the node has built it. */
export interface NodeRouterParts {
  /** The runtime (`local://` steps and queue-for-sync run through it). */
  readonly runtime: Runtime;
  /** Which peer announced a remote card (the peer directory, created over the runtime). */
  readonly resolver: PeerResolver;
}

/** A node's router: the runtime's remote invoker, completed by {@link NodeRouter.attach}. */
export interface NodeRouter extends RoutingInvoker {
  /**
   * Hands the router the runtime and the peer directory, once they exist (before the runtime
   * starts). Until then a `local://` step is refused `UNAVAILABLE` and no card has a peer.
   * @throws PlexusError `INTERNAL` when called twice.
   */
  attach(parts: NodeRouterParts): void;
  /** The router's transports; faces add theirs (`FaceComponents.routeTransports`). */
  readonly transports: RouteTransportSet;
}

/**
 * The router of a node: the HTTP peer transport when it has peers, the local transport, and
 * whatever transports its faces add.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad peer URL, policy or queue bound.
 */
export function nodeRouter(c: NodeRouterComponents): NodeRouter {
  const parts = late<NodeRouterParts>('the runtime');
  const runtime = (): Runtime => parts.get().runtime;
  const resolver: PeerResolver = { peerFor: (card) => parts.peek()?.resolver.peerFor(card) };
  const invoker = peerRemoteInvoker({ key: c.key, peers: resolver, logger: c.logger });
  const transports = routeTransportSet([
    ...(c.peers.length === 0 ? [] : [httpPeerTransport({ peers: c.peers, invoker })]),
    localTransport(runtime),
  ]);
  const router = routingInvoker({
    transports,
    peerUrls: c.peers.map((p) => normalizePeerUrl(p.url)),
    policies: fallbackPolicies(c.routing ?? {}),
    log: c.log,
    ...(c.snapshots === undefined ? {} : { snapshots: c.snapshots }),
    runtime,
    nodeId: c.nodeId,
    ...(c.routing?.queueForSync === undefined ? {} : { queue: c.routing.queueForSync }),
    logger: c.logger,
    ...(c.observer === undefined ? {} : { observer: c.observer }),
  });
  return {
    ...router,
    transports,
    attach(given) {
      parts.set(given);
    },
  };
}
