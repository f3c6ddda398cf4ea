/**
 * The HTTP peer transport (seed 002 §6.2): `http(s)://` targets that name one of the node's
 * configured peers (`http://host:port`, or `http://host:port/<agent>`), carried by the peer
 * `RemoteInvoker` — a signed envelope POSTed to the peer's `/v1/peer/invoke`, with D4 retries.
 */
import type { Envelope } from '../../core/envelope.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { RemoteInvoker } from '../../runtime/index.js';
import { matchPeer, type RouteTransport } from '../../runtime/routing/index.js';
import { PEER_EXTENSION, normalizePeerUrl, type PeerConfig } from './peer-config.js';

/** Options of {@link httpPeerTransport}. */
export interface HttpPeerTransportInit {
  /** The configured peers; only their URLs are reachable. */
  readonly peers: readonly PeerConfig[];
  /** The peer client (`peerRemoteInvoker`). */
  readonly invoker: RemoteInvoker;
}

/**
 * Creates the HTTP peer transport.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad peer URL.
 * @example
 * const http = httpPeerTransport({ peers, invoker: peerRemoteInvoker({ key, peers: directory }) });
 */
export function httpPeerTransport(init: HttpPeerTransportInit): RouteTransport {
  const urls = new Set(init.peers.map((p) => normalizePeerUrl(p.url)));
  return {
    name: 'http-peer',
    supports: (target) =>
      (target.scheme === 'http' || target.scheme === 'https') && matchPeer(urls, target.url) !== undefined,
    async invoke({ target, envelope, card }, signal): Promise<Envelope> {
      const match =
        target.scheme === 'http' || target.scheme === 'https' ? matchPeer(urls, target.url) : undefined;
      const to = match?.agent ?? envelope.to;
      const via: AgentCard = card ?? {
        id: to,
        name: to,
        version: '0',
        tier: 'L3',
        capabilities: [],
        origin: 'remote',
        extensions: { [PEER_EXTENSION]: match?.peer ?? '' },
      };
      return init.invoker.invoke(via, { ...envelope, to }, signal);
    },
  };
}
