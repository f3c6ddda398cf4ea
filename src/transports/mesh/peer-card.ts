/**
 * This node's peer card and the peer cards it holds (seed 003 §2.4; docs/decisions/mesh.md
 * MESH-43): a node announces `{reputation, geo?, taskTypes, tools}` with its capability
 * messages — its reputation from the outcomes of its own agents (MESH-44), its region from
 * `mesh.geo`, the verbs it serves, and the tools registered on it (`tool.register`, MESH-46) —
 * and keeps each peer's last card with the ping round trip it measured to that peer.
 */
import type { JsonObject } from '../../core/json.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import {
  PEER_CARD_MAX_TASK_TYPES,
  PEER_CARD_MAX_TOOLS,
  peerCardOf,
  type PeerCard,
  type PeerCardSource,
  type Runtime,
} from '../../runtime/index.js';
import type { ToolRecord } from '../../primitives/tool/index.js';

/** What {@link ownPeerCard} reads. */
export interface OwnPeerCardInit {
  readonly runtime: Pick<Runtime, 'agents'>;
  /** `mesh.geo`. */
  readonly geo?: string;
  /** The tools registered on this node. */
  readonly tools: () => Iterable<ToolRecord>;
}

/**
 * This node's peer card as announced. The reputation is rounded to 2 decimals so the card (and
 * so a delta) changes only on a visible change.
 */
export function ownPeerCard(init: OwnPeerCardInit): JsonObject {
  const verbs = new Set<string>();
  for (const card of init.runtime.agents.registry.list()) {
    if (card.origin === 'remote') continue;
    for (const c of card.capabilities) verbs.add(stripVerbVersion(c.verb));
  }
  const registered = [...init.tools()]
    .sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0))
    .slice(0, PEER_CARD_MAX_TOOLS);
  const tools: JsonObject[] = registered.map((t) => ({
    toolId: t.toolId,
    name: t.name,
    description: t.description,
    capabilities: [...t.capabilities],
    schema: { input: t.schema.input, output: t.schema.output },
    ...(t.geo === undefined ? {} : { geo: t.geo }),
  }));
  const reputation = Math.round(init.runtime.agents.outcomes.localReputation() * 100) / 100;
  return {
    reputation,
    ...(init.geo === undefined ? {} : { geo: init.geo }),
    taskTypes: [...verbs].sort().slice(0, PEER_CARD_MAX_TASK_TYPES),
    tools,
  };
}

/**
 * The peer cards of a running mesh: the last card each peer announced (as the capability gossip
 * holds it) with the latency this node measured, or the latency alone for a peer that announced
 * none.
 */
export function peerCardSource(
  announced: (peerId: string) => JsonObject | undefined,
  owners: () => Iterable<string>,
  latencyMs: (peerId: string) => number | undefined,
): PeerCardSource {
  const card = (peerId: string): PeerCard | undefined => {
    const claims = announced(peerId);
    const latency = latencyMs(peerId);
    if (claims === undefined && latency === undefined) return undefined;
    return peerCardOf(peerId, claims ?? {}, latency);
  };
  return {
    card,
    cards: () => [...owners()].flatMap((id) => card(id) ?? []),
  };
}
