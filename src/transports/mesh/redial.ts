/**
 * Redialling lost peers (MESH-34): a node dials its bootstrap addresses and known peers at
 * start; afterwards libp2p's reconnect queue redials only the DHT's closest peers, a few times.
 * So that a longer partition heals too, every round the addresses of the bootstrap and known
 * peers that are not connected are dialled again, a few at a time, in turn.
 */
import type { KnownPeer } from './known-peers.js';

/** The most peers dialled again in one round. */
export const REDIAL_PER_ROUND = 8;

/** How often lost peers are dialled again: two heartbeats, between 1 s and 30 s. */
export function redialIntervalMs(heartbeatMs: number): number {
  return Math.min(30_000, Math.max(1_000, 2 * heartbeatMs));
}

/** The PeerId a multiaddr names (its last `/p2p/` part), if any. */
export function peerOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('/p2p/');
  if (at < 0) return undefined;
  const id = address.slice(at + 5).split('/')[0];
  return id === undefined || id === '' ? undefined : id;
}

/** One address to dial per peer: bootstrap addresses first, then known peers. */
export function redialCandidates(
  bootstrap: readonly string[],
  known: readonly KnownPeer[],
  self: string,
): { readonly peerId: string; readonly address: string }[] {
  const seen = new Set<string>([self]);
  const out: { peerId: string; address: string }[] = [];
  for (const address of bootstrap) {
    const peerId = peerOfAddress(address);
    if (peerId === undefined || seen.has(peerId)) continue;
    seen.add(peerId);
    out.push({ peerId, address });
  }
  for (const peer of known) {
    const [first] = peer.addrs;
    if (first === undefined || seen.has(peer.peerId)) continue;
    seen.add(peer.peerId);
    out.push({ peerId: peer.peerId, address: `${first}/p2p/${peer.peerId}` });
  }
  return out;
}

/**
 * The addresses to dial this round: of the candidates not connected, at most `limit`, starting
 * at `round × limit` (so every lost peer gets its turn), and the next round number.
 */
export function redialRound(
  candidates: readonly { readonly peerId: string; readonly address: string }[],
  connected: (peerId: string) => boolean,
  round: number,
  limit = REDIAL_PER_ROUND,
): string[] {
  const lost = candidates.filter((c) => !connected(c.peerId));
  if (lost.length <= limit) return lost.map((c) => c.address);
  const start = (round * limit) % lost.length;
  return [...lost.slice(start), ...lost.slice(0, start)].slice(0, limit).map((c) => c.address);
}
