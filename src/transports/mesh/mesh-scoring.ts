/**
 * Gossipsub topic score parameters of the mesh (MESH-4): a peer's score drops with every
 * message the validator rejects (`invalidMessageDeliveriesWeight` negative), on every topic
 * the node subscribes to. Quiet topics (a heartbeat every 30 s) must not punish honest peers,
 * so delivery-rate penalties are off.
 */
import type { TopicScoreParams } from '@libp2p/gossipsub/score';

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
    invalidMessageDeliveriesWeight: -100,
    invalidMessageDeliveriesDecay: 0.9,
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
