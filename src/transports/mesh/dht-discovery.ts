/**
 * DHT discovery (seed 003 §2.4; issue 15 item 4; docs/decisions/mesh.md MESH-21): a node
 * provides one DHT key per verb its local agents serve ({@link capabilityKey}), and looks up a
 * verb no card of its registry offers: the providers the DHT names are asked for their cards
 * over `/plexus/card/1.0.0`, and the verified cards are merged like gossiped ones (origin
 * `remote`, owned by the peer that signed them, never replacing a local card), with the peer
 * card the provider sent (MESH-50).
 *
 * - Keys are provided when the local verbs change, and again while the node knows few peers
 *   (a key provided before the node had DHT neighbours reached nobody); kad-dht re-provides
 *   them later on its own schedule. A verb no longer served is no longer re-provided.
 * - A lookup takes at most `timeoutMs`; at most `maxProviders` providers are asked. It answers
 *   once the first provider's cards are merged (the DHT walk stops there; fetches already
 *   started finish in the background, within the same bound), or when the walk ends.
 */
import type { PeerId, PeerInfo } from '@libp2p/interface';
import { toPlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import type { CapabilityDiscovery, Registry } from '../../runtime/index.js';
import type { EnvelopeVerifier } from '../../security/index.js';
import { requestCards } from './card-protocol.js';
import { capabilityKey } from './dht-keys.js';
import type { MeshLibp2p } from './mesh-peer.js';

/** The CID type of kad-dht (its multiformats is another copy than ours; the bytes are the same). */
type DhtKey = Parameters<MeshLibp2p['services']['dht']['provide']>[0];
const keyOf = (verb: string): DhtKey => capabilityKey(verb) as unknown as DhtKey;

/** Below this many connected peers, a new peer makes the node provide its keys again. */
export const REPROVIDE_BELOW_PEERS = 20;

/** Options of {@link dhtDiscovery}. */
export interface DhtDiscoveryInit {
  /** The started mesh peer. */
  readonly peer: MeshLibp2p;
  /** The registry whose local verbs are provided. */
  readonly registry: Pick<Registry, 'list'>;
  /** Checks the card answers. */
  readonly verifier: EnvelopeVerifier;
  /**
   * Merges the verified cards of `peerId` and its peer card when it sent one (the capability
   * gossip's rules, MESH-50).
   */
  readonly merge: (peerId: string, cards: readonly JsonObject[], peerCard?: JsonObject) => Promise<void>;
  /** The longest lookup, ms. */
  readonly timeoutMs: number;
  /** Most providers asked per lookup. @default 8 */
  readonly maxProviders?: number;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** The DHT discovery of one node. */
export interface DhtDiscovery extends CapabilityDiscovery {
  /**
   * Provides the keys of the local verbs not provided yet (all of them with `again`), and
   * stops re-providing verbs no longer served. Never rejects.
   */
  provideLocal(again: boolean, signal: AbortSignal): Promise<void>;
  /** The verbs provided, sorted. */
  provided(): readonly string[];
}

/** The verbs of the local cards, without versions. */
function localVerbs(registry: Pick<Registry, 'list'>): Set<string> {
  const verbs = new Set<string>();
  for (const card of registry.list()) {
    if (card.origin === 'remote') continue;
    for (const capability of card.capabilities) verbs.add(stripVerbVersion(capability.verb));
  }
  return verbs;
}

/** Creates the DHT discovery over a started peer. */
export function dhtDiscovery(init: DhtDiscoveryInit): DhtDiscovery {
  const { peer } = init;
  const { dht } = peer.services;
  const self = peer.peerId.toString();
  const logger = init.logger ?? silentLogger;
  const maxProviders = init.maxProviders ?? 8;
  /** Verbs provided, with the number of DHT peers the last provide reached. */
  const provided = new Map<string, number>();

  async function provideOne(verb: string, signal: AbortSignal): Promise<void> {
    let reached = 0;
    try {
      for await (const event of dht.provide(keyOf(verb), { signal })) {
        if (event.name === 'PEER_RESPONSE') reached += 1;
      }
    } catch (error) {
      if (!signal.aborted) logger.info({ verb, err: toPlexusError(error).message }, 'DHT provide incomplete');
    }
    provided.set(verb, reached);
  }

  /** Asks `provider` for its cards of `verb` and merges them; resolves how many it answered. */
  async function fetchFrom(provider: PeerInfo, verb: string, signal: AbortSignal): Promise<number> {
    const id: PeerId = provider.id;
    if (provider.multiaddrs.length > 0) await peer.peerStore.merge(id, { multiaddrs: provider.multiaddrs });
    const { cards, peer: card } = await requestCards(peer, id, [verb], { verifier: init.verifier, signal });
    await init.merge(id.toString(), cards, card);
    logger.info({ verb, peer: id.toString(), cards: cards.length }, 'cards found through the DHT');
    return cards.length;
  }

  return {
    async provideLocal(again, signal) {
      const verbs = localVerbs(init.registry);
      for (const verb of [...provided.keys()]) {
        if (verbs.has(verb)) continue;
        provided.delete(verb);
        await dht.cancelReprovide(keyOf(verb)).catch(() => undefined);
      }
      for (const verb of [...verbs].sort()) {
        if (signal.aborted) return;
        if (again || (provided.get(verb) ?? 0) === 0) await provideOne(verb, signal);
      }
    },
    provided: () => [...provided.keys()].sort(),
    async discover(verb, options) {
      // The fetches run to the lookup's deadline; the DHT walk stops at the first provider whose
      // cards arrived (MESH-25): a lookup answers as soon as it can, not when the walk ends.
      const deadline = AbortSignal.any([options.signal, AbortSignal.timeout(init.timeoutMs)]);
      const walkDone = new AbortController();
      const signal = AbortSignal.any([deadline, walkDone.signal]);
      let answered = (): void => undefined;
      const found = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const asked = new Set<string>();
      const fetches: Promise<void>[] = [];
      const walk = async (): Promise<void> => {
        try {
          for await (const event of dht.findProviders(keyOf(verb), { signal })) {
            if (event.name !== 'PROVIDER') continue;
            for (const provider of event.providers) {
              const id = provider.id.toString();
              if (id === self || asked.has(id) || asked.size >= maxProviders) continue;
              asked.add(id);
              fetches.push(
                fetchFrom(provider, verb, deadline).then(
                  (cards) => {
                    if (cards === 0) return;
                    walkDone.abort();
                    answered();
                  },
                  (error: unknown) => {
                    logger.info(
                      { verb, peer: id, err: toPlexusError(error).message },
                      'cards of a DHT provider not taken',
                    );
                  },
                ),
              );
            }
            if (asked.size >= maxProviders) break;
          }
        } catch (error) {
          if (!signal.aborted) logger.info({ verb, err: toPlexusError(error).message }, 'DHT lookup failed');
        }
        // The walk ended without a provider that answered: wait for the fetches it started.
        await Promise.all(fetches);
      };
      await Promise.race([found, walk()]);
    },
  };
}
