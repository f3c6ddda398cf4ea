/**
 * The mesh half of the tool primitive (issue 15 item 6; docs/decisions/mesh.md MESH-28): a
 * remote tool is a verb of an agent card that a mesh peer announced (origin `remote`, owned by
 * the PeerId in `_x_plexus_mesh_peer`) — learned from capability gossip, or from the DHT when no
 * card here offers the verb (the registry's discovery port, MESH-20). `tool.discover` lists
 * them beside the registered tools; `tool.invoke` of one runs its verb on the owning peer, over
 * `/plexus/rpc/1.0.0`, through the router (a `p2p://<PeerId>/<agent>` target).
 *
 * This node's own calls of a remote tool (`tool.invoked` events) give it its reputation and
 * latency here, folded by {@link remoteToolStatsProjection}.
 */
import { createHash } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import { isVerbName, stripVerbVersion } from '../../core/verb-name.js';
import { GEO_EXTENSION, geoProblem, type PeerCard, type Runtime } from '../../runtime/index.js';
import { REMOTE_MESH_PEER_EXTENSION } from '../../runtime/routing/index.js';
import { eventOf } from '../../store/event-map.js';
import type { Projection } from '../../store/projection.js';
import { TOOL_EVENTS, type ToolRecord } from './tool-projection.js';

/** The prefix of remote tool ids (`tool-mesh-` and 16 hex digits). */
export const REMOTE_TOOL_PREFIX = 'tool-mesh-';

/** Most verbs one `tool.discover` looks up in the DHT. */
export const MAX_DISCOVERED_VERBS = 4;

/** A verb of a card a mesh peer announced, as a tool. */
export interface RemoteTool {
  /** {@link remoteToolId} of peer, agent and verb: stable while the peer announces the card. */
  readonly toolId: string;
  /** The verb (a remote tool is named by its verb). */
  readonly name: string;
  readonly description: string;
  /** The verb, for `capabilities` filters. */
  readonly capabilities: readonly string[];
  readonly verb: string;
  /** The agent that offers the verb on its peer. */
  readonly agent: string;
  /** The owning peer's libp2p PeerId. */
  readonly peerId: string;
  /**
   * The region: the card's (`extensions._x_plexus_geo`) or the registered tool's, else the
   * owning peer's (`mesh.geo` in its peer card), when one is named.
   */
  readonly geo?: string;
  readonly schema: { readonly input: JsonObject; readonly output: JsonObject };
  /** The reputation the owning peer claims (its peer card), 0…1: a prior only (MESH-44). */
  readonly claimedReputation?: number;
  /** The ping round trip this node measured to the owning peer, ms (MESH-43). */
  readonly latencyMs?: number;
  /**
   * Set for a tool registered on the owning peer (`tool.register` there, listed in its peer
   * card, MESH-46): its id there. `tool.invoke` then runs `tool.invoke` of that id on the peer.
   */
  readonly peerToolId?: string;
}

/** Where the tool primitive finds remote tools. */
export interface RemoteToolSource {
  /** The remote tools the registry holds now. */
  tools(): readonly RemoteTool[];
  /**
   * Looks providers of `verbs` up (the DHT, through the registry's discovery port) for the verbs
   * no card offers; their cards join the registry. Never rejects; bounded by the port and `signal`.
   */
  discover(verbs: readonly string[], signal: AbortSignal): Promise<void>;
}

/** The id of the tool `verb` of `agent` on mesh peer `peerId`. */
export function remoteToolId(peerId: string, agent: string, verb: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([peerId, agent, verb]))
    .digest('hex');
  return `${REMOTE_TOOL_PREFIX}${digest.slice(0, 16)}`;
}

/** The card extension a remote card may name its region in. */
export { GEO_EXTENSION };

/** The id of the tool registered as `toolId` on mesh peer `peerId` (MESH-46). */
export function peerToolId(peerId: string, toolId: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(['registered', peerId, toolId]))
    .digest('hex');
  return `${REMOTE_TOOL_PREFIX}${digest.slice(0, 16)}`;
}

/** The tools registered on mesh peers, as their peer cards list them (MESH-46). */
function registeredOnPeers(peers: readonly PeerCard[]): RemoteTool[] {
  const out: RemoteTool[] = [];
  for (const peer of peers) {
    for (const tool of peer.tools) {
      const geo = tool.geo ?? peer.geo;
      out.push({
        toolId: peerToolId(peer.peerId, tool.toolId),
        name: tool.name,
        description: tool.description,
        capabilities: [...tool.capabilities],
        verb: 'tool.invoke',
        agent: 'tool',
        peerId: peer.peerId,
        ...(geo === undefined ? {} : { geo }),
        schema: { input: tool.schema.input as JsonObject, output: tool.schema.output as JsonObject },
        ...(peer.reputation === undefined ? {} : { claimedReputation: peer.reputation }),
        ...(peer.latencyMs === undefined ? {} : { latencyMs: peer.latencyMs }),
        peerToolId: tool.toolId,
      });
    }
  }
  return out;
}

/**
 * The remote tools of a runtime's registry. The runtime is looked up at call time (the
 * primitive exists before the runtime that hosts it).
 */
export function registryRemoteTools(runtimeOf: () => Pick<Runtime, 'agents'>): RemoteToolSource {
  return {
    tools() {
      const { registry, peers } = runtimeOf().agents;
      const out: RemoteTool[] = registeredOnPeers(peers.cards());
      for (const card of registry.list()) {
        const owner = card.extensions?.[REMOTE_MESH_PEER_EXTENSION];
        if (card.origin !== 'remote' || typeof owner !== 'string') continue;
        const peer = peers.card(owner);
        const own = card.extensions?.[GEO_EXTENSION];
        const geo = typeof own === 'string' && geoProblem(own) === undefined ? own : peer?.geo;
        for (const capability of card.capabilities) {
          const verb = stripVerbVersion(capability.verb);
          out.push({
            toolId: remoteToolId(owner, card.id, verb),
            name: verb,
            description: capability.description ?? card.description ?? card.name,
            capabilities: [verb],
            verb,
            agent: card.id,
            peerId: owner,
            ...(geo === undefined ? {} : { geo }),
            schema: { input: capability.input as JsonObject, output: capability.output as JsonObject },
            ...(peer?.reputation === undefined ? {} : { claimedReputation: peer.reputation }),
            ...(peer?.latencyMs === undefined ? {} : { latencyMs: peer.latencyMs }),
          });
        }
      }
      return out;
    },
    async discover(verbs, signal) {
      const { discovery } = runtimeOf().agents;
      if (!discovery.active) return;
      const wanted = [...new Set(verbs.filter(isVerbName).map(stripVerbVersion))].slice(
        0,
        MAX_DISCOVERED_VERBS,
      );
      await Promise.all(wanted.map((verb) => discovery.providers(verb, { signal })));
    },
  };
}

/** This node's recorded calls of one remote tool. */
export interface RemoteToolStats {
  readonly invocations: number;
  readonly successes: number;
  readonly totalDuration: number;
  readonly lastInvokedAt?: string;
}

/** Remote tool id → this node's calls of it. */
export type RemoteToolStatsState = Map<string, RemoteToolStats>;

/** The projection name of the remote tool statistics. */
export const REMOTE_TOOL_STATS_PROJECTION_NAME = 'tool.remote-stats';

function statsOf(event: Event): { toolId: string; ok: boolean; duration: number; at: string } | undefined {
  const invoked = eventOf(event, TOOL_EVENTS.invoked);
  if (invoked === undefined) return undefined;
  const { toolId, ok, duration, at } = invoked.data;
  if (typeof toolId !== 'string' || !toolId.startsWith(REMOTE_TOOL_PREFIX)) return undefined;
  if (typeof duration !== 'number' || !Number.isFinite(duration)) {
    throw new PlexusError('INTERNAL', `${event.type} event ${event.seq} has no numeric duration`);
  }
  return { toolId, ok, duration, at };
}

/** `tool.invoked` events of remote tools, folded into counters per tool. */
export const remoteToolStatsProjection: Projection<RemoteToolStatsState> = {
  name: REMOTE_TOOL_STATS_PROJECTION_NAME,
  version: 1,
  filter: { type: [TOOL_EVENTS.invoked] },
  initial: () => new Map(),
  apply(state, event) {
    const call = statsOf(event);
    if (call === undefined) return state;
    const before = state.get(call.toolId);
    state.set(call.toolId, {
      invocations: (before?.invocations ?? 0) + 1,
      successes: (before?.successes ?? 0) + (call.ok ? 1 : 0),
      totalDuration: (before?.totalDuration ?? 0) + call.duration,
      lastInvokedAt: call.at,
    });
    return state;
  },
  toJson(state) {
    return [...state.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, s]) => ({ id, ...s }));
  },
  fromJson(json) {
    const rows = json as unknown as (RemoteToolStats & { id: string })[];
    return new Map(rows.map(({ id, ...s }) => [id, s]));
  },
};

/**
 * A remote tool as a tool record, for the shared search and ranking: its prior the reputation
 * its peer claims (else `prior`), counted as the same ten calls as a registered prior, blended
 * with this node's own calls of it; its latency the round trip measured to the peer.
 */
export function remoteRecord(
  tool: RemoteTool,
  prior: number,
  stats: RemoteToolStats | undefined,
): ToolRecord {
  prior = tool.claimedReputation ?? prior;
  return {
    toolId: tool.toolId,
    name: tool.name,
    description: tool.description,
    schema: tool.schema,
    capabilities: tool.capabilities,
    verb: tool.verb,
    agent: tool.agent,
    ...(tool.geo === undefined ? {} : { geo: tool.geo }),
    prior,
    peerId: tool.peerId,
    owner: tool.peerId,
    ...(tool.latencyMs === undefined ? {} : { latencyMs: tool.latencyMs }),
    ...(tool.peerToolId === undefined ? {} : { peerToolId: tool.peerToolId }),
    at: '',
    registeredAt: '',
    invocations: stats?.invocations ?? 0,
    successes: stats?.successes ?? 0,
    totalDuration: stats?.totalDuration ?? 0,
    ...(stats?.lastInvokedAt === undefined ? {} : { lastInvokedAt: stats.lastInvokedAt }),
  };
}
