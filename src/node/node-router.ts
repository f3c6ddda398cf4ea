/**
 * The node's router (seed 002 Part VI): the peer client wrapped in the routing invoker — the
 * HTTP peer transport for the configured peers, the local transport for `local://` steps, the
 * fallback policies of the node's configuration, and the answer cache over the node's log.
 */
import type { EventLog, SnapshotStore } from '../store/index.js';
import type { Runtime } from '../runtime/index.js';
import {
  fallbackPolicies,
  localTransport,
  routingInvoker,
  type RoutingInvoker,
} from '../runtime/routing/index.js';
import type { Ed25519KeyPair } from '../security/index.js';
import type { FaceLogger } from '../transports/face-components.js';
import {
  httpPeerTransport,
  normalizePeerUrl,
  peerRemoteInvoker,
  type PeerConfig,
  type PeerResolver,
} from '../transports/peer/index.js';
import type { RoutingConfig } from './config-schema.js';

/** What {@link nodeRouter} needs. */
export interface NodeRouterComponents {
  readonly peers: readonly PeerConfig[];
  readonly key: Ed25519KeyPair;
  readonly nodeId: string;
  readonly log: EventLog;
  readonly snapshots: SnapshotStore | undefined;
  /** Which peer announced a remote card (the peer directory, created after the runtime). */
  readonly resolver: PeerResolver;
  /** The runtime, created after the router. */
  readonly runtime: () => Runtime;
  readonly logger: FaceLogger;
  readonly routing: RoutingConfig | undefined;
}

/**
 * The router of a node with peers, or `undefined` for a node without any (nothing is remote).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad peer URL, policy or queue bound.
 */
export function nodeRouter(c: NodeRouterComponents): RoutingInvoker | undefined {
  if (c.peers.length === 0) return undefined;
  const invoker = peerRemoteInvoker({ key: c.key, peers: c.resolver, logger: c.logger });
  return routingInvoker({
    transports: [httpPeerTransport({ peers: c.peers, invoker }), localTransport(c.runtime)],
    peerUrls: c.peers.map((p) => normalizePeerUrl(p.url)),
    policies: fallbackPolicies(c.routing ?? {}),
    log: c.log,
    ...(c.snapshots === undefined ? {} : { snapshots: c.snapshots }),
    runtime: c.runtime,
    nodeId: c.nodeId,
    ...(c.routing?.queueForSync === undefined ? {} : { queue: c.routing.queueForSync }),
    logger: {
      warn: (fields, message) => {
        c.logger.warn(fields, message);
      },
      info: (fields, message) => {
        c.logger.info(fields, message);
      },
    },
  });
}
