/**
 * Gossipsub scoring of the mesh (MESH-4, MESH-26): a peer's score drops with every message
 * the validator rejects (`invalidMessageDeliveriesWeight` negative), on every topic the node
 * subscribes to, and a peer whose score falls below {@link MESH_SCORE_THRESHOLDS}
 * `graylistThreshold` is graylisted: gossipsub ignores everything it sends (messages are not
 * even validated) and drops it from every topic mesh at the next heartbeat, while other peers'
 * messages flow on. Quiet topics (a heartbeat every 30 s) must not punish honest peers, so
 * delivery-rate penalties are off.
 *
 * The numbers: an invalid message weighs −12 × (count)², the count decaying by 0.99 a second
 * (a half-life of about 69 s). One or two invalid messages leave a peer at −12 / −48 — below
 * the gossip threshold (−10), above the graylist threshold (−80); the third within a minute
 * brings even a peer at the positive cap (+10) to −98: graylisted, for about 10 s after three,
 * longer the more it sent, and again at once if it goes on.
 */
import type { TopicScoreParams } from '@libp2p/gossipsub/score';

/** The weight of one invalid message (squared count × this), per topic. */
export const INVALID_MESSAGE_WEIGHT = -12;

/** The decay of the invalid-message count, per second. */
export const INVALID_MESSAGE_DECAY = 0.99;

/** The score thresholds of the mesh (gossipsub's own defaults, stated here, MESH-26). */
export const MESH_SCORE_THRESHOLDS = {
  /** Below this, no gossip (IHAVE / IWANT) is exchanged with the peer. */
  gossipThreshold: -10,
  /** Below this, this node publishes nothing to the peer. */
  publishThreshold: -50,
  /** Below this, everything the peer sends is ignored (graylisted). */
  graylistThreshold: -80,
  /** Peer exchange is accepted only from peers above this. */
  acceptPXThreshold: 10,
  /** Opportunistic grafting happens below this median mesh score. */
  opportunisticGraftThreshold: 20,
} as const;

/**
 * Addresses exempt from gossipsub's IP-colocation penalty: peers on this machine (tests,
 * several nodes on one host) share one address by design, and more than ten of them would
 * otherwise graylist each other.
 */
export const COLOCATION_WHITELIST: readonly string[] = ['127.0.0.1', '::1'];

/** The parameters of every mesh topic. */
export function meshTopicScoreParams(): TopicScoreParams {
  return {
    topicWeight: 1,
    timeInMeshWeight: 0.01,
    timeInMeshQuantum: 1000,
    timeInMeshCap: 3600,
    firstMessageDeliveriesWeight: 1,
    firstMessageDeliveriesDecay: 0.5,
    firstMessageDeliveriesCap: 10,
    meshMessageDeliveriesWeight: 0,
    meshMessageDeliveriesDecay: 0.5,
    meshMessageDeliveriesCap: 100,
    meshMessageDeliveriesThreshold: 1,
    meshMessageDeliveriesWindow: 10,
    meshMessageDeliveriesActivation: 5000,
    meshFailurePenaltyWeight: 0,
    meshFailurePenaltyDecay: 0.5,
    invalidMessageDeliveriesWeight: INVALID_MESSAGE_WEIGHT,
    invalidMessageDeliveriesDecay: INVALID_MESSAGE_DECAY,
  };
}

/** Where gossipsub keeps its score parameters (internal to gossipsub 17; MESH-4). */
interface ScoredGossipsub {
  readonly score?: { readonly params?: { readonly topics?: Record<string, TopicScoreParams> } };
}

/**
 * Gives `topic` the mesh score parameters on a running gossipsub. Gossipsub 17 copies its
 * `scoreParams` at construction and has no API to add a topic later, so this writes into its
 * score's parameter table; returns false when that table is not where it was (a gossipsub
 * upgrade changed it), and the caller logs it.
 */
export function scoreTopic(pubsub: unknown, topic: string): boolean {
  const topics = (pubsub as ScoredGossipsub).score?.params?.topics;
  if (topics === undefined) return false;
  topics[topic] ??= meshTopicScoreParams();
  return true;
}
