/**
 * Capability gossip (seed 003 §7.4): this node's local agent cards go out on its own topic
 * `hyperspace/capabilities/<peerId>` — the changed cards when something changes (delta), the
 * full set as a heartbeat and to a peer that newly subscribes — and the cards other peers
 * announce enter the registry with origin `remote`, owned by the announcing peer
 * (`extensions._x_plexus_mesh_peer`).
 *
 * - A remote card never replaces a local one, nor a card another owner (a mesh peer or an
 *   HTTP peer) announced first; cards that are `remote` on their peer are never taken.
 * - A card is written only when it changed, so heartbeats write no events.
 * - A peer's cards are removed when nothing was heard from it for the TTL; a full set (heartbeat
 *   or full) also removes the peer's cards it no longer lists.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { cardGeoProblem, peerCardProblem, type Runtime } from '../../runtime/index.js';

/** The extension naming the mesh peer (PeerId) a remote card came from. */
export const MESH_PEER_EXTENSION = '_x_plexus_mesh_peer';

/** What a capability message says. */
export interface CapabilityMessage {
  /** `delta`: changed and removed cards; `full` / `heartbeat`: the complete set. */
  readonly kind: 'delta' | 'full' | 'heartbeat';
  /** Cards announced (origin `local` on the announcing node). */
  readonly cards: readonly JsonObject[];
  /** Ids no longer served (delta only). */
  readonly removed: readonly string[];
  /**
   * The announcing node's peer card (MESH-43): `{reputation, geo?, taskTypes, tools}`, its
   * claims about itself; in every message of a node that sends one.
   */
  readonly peer?: JsonObject;
}

/** Options of {@link capabilityGossip}. */
export interface CapabilityGossipInit {
  /** The registry's runtime. */
  readonly runtime: Pick<Runtime, 'agents'>;
  /** Publishes a capability message on this node's own topic. */
  readonly publish: (message: CapabilityMessage) => Promise<void>;
  /** How long a peer's cards live without a message from it, ms. */
  readonly ttlMs: number;
  /** This node's peer card, sent with every message (MESH-43). @default none */
  readonly peerCard?: () => JsonObject;
  /** The clock. @default Date.now */
  readonly now?: () => number;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** The capability gossip of one node. */
export interface CapabilityGossip {
  /** Publishes the cards that changed since the last publication (nothing when none did). */
  publishDelta(): Promise<void>;
  /** Publishes every local card (`heartbeat` or `full`). */
  publishFull(kind: 'full' | 'heartbeat'): Promise<void>;
  /** Applies a validated message from `peerId`. Never throws. */
  receive(peerId: string, payload: JsonValue): Promise<void>;
  /** Removes the cards of peers silent for longer than the TTL; resolves with how many. */
  sweep(): Promise<number>;
  /** The peers whose cards this node holds, with when they were last heard from (ms). */
  owners(): ReadonlyMap<string, number>;
  /** The last peer card `peerId` announced (dropped with its cards when it goes silent). */
  peerCard(peerId: string): JsonObject | undefined;
}

/** The mesh peer that owns a remote card, if a mesh peer does. */
export function meshOwnerOf(card: AgentCard): string | undefined {
  const owner = card.extensions?.[MESH_PEER_EXTENSION];
  return card.origin === 'remote' && typeof owner === 'string' ? owner : undefined;
}

/**
 * Creates the capability gossip. Cards of mesh peers already in the (durable) registry count
 * as heard from now, so they expire after one TTL unless their peer is heard again.
 */
export function capabilityGossip(init: CapabilityGossipInit): CapabilityGossip {
  const { registry } = init.runtime.agents;
  const now = init.now ?? Date.now;
  const logger = init.logger ?? silentLogger;
  /** The canonical text of each local card as last published, by id. */
  let published = new Map<string, string>();
  /** The canonical text of this node's peer card as last published. */
  let publishedPeer: string | undefined;
  const peerCards = new Map<string, JsonObject>();
  const lastHeard = new Map<string, number>();
  for (const card of registry.list()) {
    const owner = meshOwnerOf(card);
    if (owner !== undefined) lastHeard.set(owner, now());
  }
  let writes: Promise<unknown> = Promise.resolve();
  const serialize = <T>(work: () => Promise<T>): Promise<T> => {
    const next = writes.then(work, work);
    writes = next.catch(() => undefined);
    return next;
  };

  const localCards = (): Map<string, JsonObject> => {
    const cards = new Map<string, JsonObject>();
    for (const card of registry.list()) {
      if (card.origin === 'remote') continue;
      const plain: JsonObject = { ...(card as unknown as JsonObject) };
      delete plain['revision'];
      cards.set(card.id, plain);
    }
    return cards;
  };

  const ownedBy = (peerId: string): AgentCard[] =>
    registry.list().filter((card) => meshOwnerOf(card) === peerId);

  async function remove(cards: readonly AgentCard[], why: string): Promise<void> {
    for (const card of cards) {
      try {
        await registry.remove(card.id);
        logger.info({ agent: card.id, peer: meshOwnerOf(card) }, `mesh agent removed: ${why}`);
      } catch (error) {
        const failure = toPlexusError(error);
        if (failure.code !== 'NOT_FOUND')
          logger.warn({ agent: card.id, err: failure.message }, 'could not remove mesh agent');
      }
    }
  }

  async function apply(peerId: string, message: CapabilityMessage): Promise<void> {
    lastHeard.set(peerId, now());
    if (message.peer !== undefined) peerCards.set(peerId, message.peer);
    const listed = new Set<string>();
    for (const raw of message.cards) {
      const id = raw['id'];
      if (typeof id !== 'string' || raw['origin'] === 'remote') continue;
      listed.add(id);
      const existing = registry.find(id)?.card;
      if (existing !== undefined && meshOwnerOf(existing) !== peerId) continue;
      const desired = remoteCard(raw, peerId);
      if (existing !== undefined && sameCard(existing, desired)) continue;
      try {
        await registry.upsert(desired, { origin: 'remote' });
      } catch (error) {
        const failure = toPlexusError(error);
        logger.warn(
          { agent: id, peer: peerId, code: failure.code, err: failure.message },
          'mesh card refused',
        );
      }
    }
    const gone =
      message.kind === 'delta'
        ? ownedBy(peerId).filter((card) => message.removed.includes(card.id))
        : ownedBy(peerId).filter((card) => !listed.has(card.id));
    await remove(gone, 'no longer announced by its peer');
  }

  return {
    async publishDelta() {
      const current = localCards();
      const next = new Map<string, string>();
      const cards: JsonObject[] = [];
      for (const [id, card] of current) {
        const text = canonicalizeJcs(card);
        next.set(id, text);
        if (published.get(id) !== text) cards.push(card);
      }
      const removed = [...published.keys()].filter((id) => !current.has(id));
      const peer = init.peerCard?.();
      const peerText = peer === undefined ? undefined : canonicalizeJcs(peer);
      if (cards.length === 0 && removed.length === 0 && peerText === publishedPeer) return;
      published = next;
      publishedPeer = peerText;
      await init.publish({ kind: 'delta', cards, removed, ...(peer === undefined ? {} : { peer }) });
    },
    async publishFull(kind) {
      const current = localCards();
      published = new Map([...current].map(([id, card]) => [id, canonicalizeJcs(card)]));
      const peer = init.peerCard?.();
      publishedPeer = peer === undefined ? undefined : canonicalizeJcs(peer);
      await init.publish({
        kind,
        cards: [...current.values()],
        removed: [],
        ...(peer === undefined ? {} : { peer }),
      });
    },
    async receive(peerId, payload) {
      const message = parseMessage(payload);
      if (message === undefined) {
        logger.warn({ peer: peerId }, 'capability message of an unknown shape ignored');
        return;
      }
      await serialize(() => apply(peerId, message)).catch((error: unknown) => {
        logger.warn({ peer: peerId, err: toPlexusError(error).message }, 'capability message not applied');
      });
    },
    async sweep() {
      const t = now();
      const silent = [...lastHeard].filter(([, heard]) => t - heard > init.ttlMs).map(([peer]) => peer);
      let count = 0;
      for (const peer of silent) {
        lastHeard.delete(peer);
        peerCards.delete(peer);
        const cards = ownedBy(peer);
        count += cards.length;
        await serialize(() => remove(cards, `not heard from its peer for ${init.ttlMs} ms`));
      }
      return count;
    },
    owners: () => lastHeard,
    peerCard: (peerId) => peerCards.get(peerId),
  };
}

function parseMessage(payload: JsonValue): CapabilityMessage | undefined {
  if (!isJsonObject(payload)) return undefined;
  const { kind, cards, removed, peer } = payload;
  if (kind !== 'delta' && kind !== 'full' && kind !== 'heartbeat') return undefined;
  if (!Array.isArray(cards) || !cards.every(isJsonObject)) return undefined;
  const gone = removed === undefined ? [] : removed;
  if (!Array.isArray(gone) || !gone.every((id) => typeof id === 'string')) return undefined;
  // MESH-45: the topic validator rejected bad claims already; checked again for other paths (DHT)
  if (capabilityClaimsProblem(payload) !== undefined) return undefined;
  return { kind, cards: cards, removed: gone, ...(isJsonObject(peer) ? { peer } : {}) };
}

/**
 * Why the claims of a capability message are refused (MESH-45), or `undefined`: a peer card
 * that is not well-formed (reputation outside 0…1, a bad region, a declared latency, bad
 * tools), or a card naming a malformed region. A message that is not a capability message
 * at all is left to the receiver (ignored there, as before).
 */
export function capabilityClaimsProblem(payload: JsonValue): string | undefined {
  if (!isJsonObject(payload)) return undefined;
  const { cards, peer } = payload;
  if (peer !== undefined) {
    const problem = peerCardProblem(peer);
    if (problem !== undefined) return problem;
  }
  if (!Array.isArray(cards)) return undefined;
  for (const card of cards) {
    if (!isJsonObject(card)) continue;
    const problem = cardGeoProblem(card);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The card as this node registers it: origin remote, owned by `peerId`, no peer revision. */
function remoteCard(raw: JsonObject, peerId: string): AgentCard {
  const rest: JsonObject = { ...raw };
  delete rest['revision'];
  delete rest['origin'];
  const extensions = isJsonObject(rest['extensions']) ? rest['extensions'] : {};
  return {
    ...rest,
    origin: 'remote',
    extensions: { ...extensions, [MESH_PEER_EXTENSION]: peerId },
  } as unknown as AgentCard;
}

function sameCard(stored: AgentCard, desired: AgentCard): boolean {
  const rest: { -readonly [K in keyof AgentCard]?: AgentCard[K] } = { ...stored };
  delete rest.revision;
  try {
    return canonicalizeJcs(rest) === canonicalizeJcs(desired);
  } catch {
    return false;
  }
}
