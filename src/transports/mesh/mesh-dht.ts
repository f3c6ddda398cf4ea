/**
 * The DHT half of a running mesh (issue 15 item 4): serves `/plexus/card/1.0.0`, keeps the
 * local verbs provided, and plugs the DHT lookup into the runtime's discovery port, so lookups
 * by capability that miss the registry ask the DHT (docs/decisions/mesh.md MESH-20…22).
 */
import type { JsonObject } from '../../core/json.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { Runtime } from '../../runtime/index.js';
import { envelopeVerifier, type Ed25519KeyPair } from '../../security/index.js';
import { CARD_PROTOCOL, cardHandler } from './card-protocol.js';
import type { CapabilityGossip } from './capability-gossip.js';
import { dhtDiscovery, REPROVIDE_BELOW_PEERS, type DhtDiscovery } from './dht-discovery.js';
import type { MeshLibp2p } from './mesh-peer.js';

/** Options of {@link attachMeshDht}. */
export interface MeshDhtInit {
  readonly peer: MeshLibp2p;
  readonly key: Ed25519KeyPair;
  readonly runtime: Pick<Runtime, 'agents'>;
  /** Where found cards are merged (by the gossip's rules). */
  readonly gossip: CapabilityGossip;
  /** This node's peer card, answered with its cards (MESH-50). @default none */
  readonly peerCard?: () => JsonObject;
  /** The longest DHT lookup, ms. */
  readonly timeoutMs: number;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** The attached DHT half. */
export interface MeshDht {
  /** The discovery (for tests and the status). */
  readonly discovery: DhtDiscovery;
  /** Tells it the local agents changed: their verbs are provided (coalesced). */
  localChanged(): void;
  /** Unplugs the discovery, stops serving cards, waits for its work. */
  detach(): Promise<void>;
}

/** Attaches the DHT half to a started peer. */
export async function attachMeshDht(init: MeshDhtInit): Promise<MeshDht> {
  const { peer, runtime } = init;
  const logger = init.logger ?? silentLogger;
  const lifetime = new AbortController();
  const discovery = dhtDiscovery({
    peer,
    registry: runtime.agents.registry,
    verifier: envelopeVerifier(),
    // MESH-50: the provider's peer card rides with its cards, under the gossip's claim rules
    merge: (peerId, cards, peerCard) =>
      init.gossip.receive(peerId, {
        kind: 'delta',
        cards: [...cards],
        removed: [],
        ...(peerCard === undefined ? {} : { peer: peerCard }),
      }),
    timeoutMs: init.timeoutMs,
    logger,
  });
  await peer.handle(
    CARD_PROTOCOL,
    cardHandler({
      key: init.key,
      registry: runtime.agents.registry,
      logger,
      ...(init.peerCard === undefined ? {} : { peerCard: init.peerCard }),
    }),
  );
  const unplug = runtime.agents.discovery.provide(discovery);

  // One provide pass at a time; a request while one runs runs one more after it.
  let running: Promise<void> | undefined;
  let pending: boolean | undefined;
  const provide = (again: boolean): void => {
    if (lifetime.signal.aborted) return;
    if (running !== undefined) {
      pending = (pending ?? false) || again;
      return;
    }
    running = discovery.provideLocal(again, lifetime.signal).finally(() => {
      running = undefined;
      const next = pending;
      pending = undefined;
      if (next !== undefined) provide(next);
    });
  };
  // While the node knows few peers, each new one may be closer to a key than the ones that
  // hold its provider records: provide again.
  const onIdentify = (): void => {
    if (peer.getPeers().length <= REPROVIDE_BELOW_PEERS) provide(true);
  };
  peer.addEventListener('peer:identify', onIdentify);
  provide(false);

  return {
    discovery,
    localChanged: () => {
      provide(false);
    },
    async detach() {
      lifetime.abort();
      unplug();
      peer.removeEventListener('peer:identify', onIdentify);
      await running?.catch(() => undefined);
      await peer.unhandle(CARD_PROTOCOL).catch(() => undefined);
    },
  };
}
