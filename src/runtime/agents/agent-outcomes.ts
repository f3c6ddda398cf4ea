/**
 * What this node observed of each agent it ran or called (issue 15 item 5; docs/decisions/mesh.md
 * MESH-44): calls, successes and their durations, per agent id, in memory since the start. The
 * router ranks capability candidates by them, and the mesh announces the node's own reputation
 * from the outcomes of its local agents.
 *
 * - Only outcomes that say something about the agent count: a success, or a failure of the
 *   agent or of the way to it (`INTERNAL`, `TIMEOUT`, `UNAVAILABLE`, `PEER_UNAVAILABLE`,
 *   `OUT_OF_MEMORY`, `REPLICATION_FAILED`). Refusals of the caller's request (bad params,
 *   forbidden, cancelled, …) are not counted.
 * - Reputation = `(prior·w + successes) / (w + calls)`, 4 decimals: the prior counts as `w` = 10
 *   calls. The prior is what the owning mesh peer claims (its peer card's `reputation`,
 *   validated 0…1) for a mesh card, else 0.5. So a peer that claims 1.0 gains at most the
 *   weight of ten calls, and this node's own calls take over as they accumulate.
 * - Latency = the mean duration of this node's calls of the agent; before any, the ping round
 *   trip this node measured to the owning mesh peer; else unknown.
 */
import type { PlexusErrorCode } from '../../core/errors.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { REMOTE_MESH_PEER_EXTENSION } from '../routing/target.js';
import type { PeerCardSource } from './peer-cards.js';

/** The reputation of an agent nothing is known about. */
export const REPUTATION_PRIOR = 0.5;
/** How many observed calls a prior weighs as. */
export const PRIOR_WEIGHT = 10;
/** Most agents remembered (the oldest entry is dropped beyond). */
const MAX_AGENTS = 10_000;

/** Failures that count against an agent. */
const COUNTED_FAILURES: ReadonlySet<PlexusErrorCode> = new Set<PlexusErrorCode>([
  'INTERNAL',
  'TIMEOUT',
  'UNAVAILABLE',
  'PEER_UNAVAILABLE',
  'OUT_OF_MEMORY',
  'REPLICATION_FAILED',
]);

/** This node's counted calls of one agent. */
export interface AgentOutcome {
  readonly calls: number;
  readonly successes: number;
  /** Sum of the counted calls' durations, ms. */
  readonly totalMs: number;
}

/** How the router weighs one candidate (besides its load). */
export interface AgentRank {
  /** 0…1, 4 decimals. */
  readonly reputation: number;
  /** ms; `undefined` when nothing was measured. */
  readonly latencyMs: number | undefined;
}

/** The observations of one runtime. */
export interface AgentOutcomes {
  /** Records one call of `card`'s agent: a success, or a failure with its code (not all count). */
  record(card: AgentCard, failure: PlexusErrorCode | undefined, durationMs: number): void;
  /** The counted calls of an agent, if any. */
  of(agentId: string): AgentOutcome | undefined;
  /** The reputation this node announces: the prior blended with every local agent's counted calls. */
  localReputation(): number;
  /** The rank of a candidate card. */
  rank(card: AgentCard): AgentRank;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** The blend of a prior with observed calls. */
export function blendReputation(prior: number, successes: number, calls: number): number {
  return round4((prior * PRIOR_WEIGHT + successes) / (PRIOR_WEIGHT + calls));
}

/** The mesh peer owning a remote card, if one does. */
function meshOwner(card: AgentCard): string | undefined {
  const owner = card.extensions?.[REMOTE_MESH_PEER_EXTENSION];
  return card.origin === 'remote' && typeof owner === 'string' ? owner : undefined;
}

/** Creates the observations; `peers` gives claimed reputations and measured latencies of mesh peers. */
export function agentOutcomes(peers: Pick<PeerCardSource, 'card'>): AgentOutcomes {
  const byAgent = new Map<string, AgentOutcome>();
  let local = { calls: 0, successes: 0 };
  return {
    record(card, failure, durationMs) {
      const ok = failure === undefined;
      if (!ok && !COUNTED_FAILURES.has(failure)) return;
      const ms = Number.isFinite(durationMs) && durationMs > 0 ? durationMs : 0;
      const before = byAgent.get(card.id);
      if (before === undefined && byAgent.size >= MAX_AGENTS) {
        const oldest = byAgent.keys().next().value;
        if (oldest !== undefined) byAgent.delete(oldest);
      }
      byAgent.set(card.id, {
        calls: (before?.calls ?? 0) + 1,
        successes: (before?.successes ?? 0) + (ok ? 1 : 0),
        totalMs: (before?.totalMs ?? 0) + ms,
      });
      if (card.origin !== 'remote') {
        local = { calls: local.calls + 1, successes: local.successes + (ok ? 1 : 0) };
      }
    },
    of: (agentId) => byAgent.get(agentId),
    localReputation: () => blendReputation(REPUTATION_PRIOR, local.successes, local.calls),
    rank(card) {
      const owner = meshOwner(card);
      const peer = owner === undefined ? undefined : peers.card(owner);
      const claimed = peer?.reputation;
      const prior = typeof claimed === 'number' && claimed >= 0 && claimed <= 1 ? claimed : REPUTATION_PRIOR;
      const seen = byAgent.get(card.id);
      const reputation = blendReputation(prior, seen?.successes ?? 0, seen?.calls ?? 0);
      const latencyMs =
        seen !== undefined && seen.calls > 0 ? Math.round(seen.totalMs / seen.calls) : peer?.latencyMs;
      return { reputation, latencyMs };
    },
  };
}
