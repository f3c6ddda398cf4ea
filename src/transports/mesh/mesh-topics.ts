/**
 * The gossip topics of the mesh: the six of Hyperspace (seed 003 §2.1) by their exact names
 * (D13), `hyperspace/{dataType}/{scope}`. Each message on a topic is a D3 envelope signed for
 * the topic itself.
 */

/** The six topic patterns, as the seed writes them. */
export const MESH_TOPIC_PATTERNS = [
  'hyperspace/capabilities/{peerId}',
  'hyperspace/tasks/{taskType}',
  'hyperspace/trajectories/{taskType}',
  'hyperspace/reputation/{peerId}',
  'hyperspace/crdt/sync/memory',
  'hyperspace/settlements/{round}',
] as const;

const SCOPE = '[A-Za-z0-9._:-]{1,128}';
const TOPIC_RES = MESH_TOPIC_PATTERNS.map(
  (pattern) => new RegExp(`^${pattern.replace(/\{[a-zA-Z]+\}/, SCOPE).replaceAll('/', '\\/')}$`),
);

/** The prefix of capability topics. */
export const CAPABILITIES_PREFIX = 'hyperspace/capabilities/';

/** The capability topic of a peer: `hyperspace/capabilities/<peerId>`. */
export function capabilitiesTopic(peerId: string): string {
  return `${CAPABILITIES_PREFIX}${peerId}`;
}

/** True when `topic` is one of the six Hyperspace topics, scope filled in. */
export function isMeshTopic(topic: string): boolean {
  return TOPIC_RES.some((re) => re.test(topic));
}

/**
 * The peer that alone may publish on `topic`: the scope of a capability topic (a node
 * announces only its own cards), `undefined` for other topics.
 */
export function topicPublisher(topic: string): string | undefined {
  return topic.startsWith(CAPABILITIES_PREFIX) ? topic.slice(CAPABILITIES_PREFIX.length) : undefined;
}
