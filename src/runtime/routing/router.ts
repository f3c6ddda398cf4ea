/**
 * The router (Nova26 Req. 4): which agents a request can go to, and which one it goes to.
 *
 * - `to` = an agent id: that agent (`NOT_FOUND` when unknown, `UNKNOWN_VERB` when it does
 *   not offer the verb);
 * - `to` = `broadcast`: every agent offering the verb;
 * - `to` = `capability:<verb>`: the first match — the available candidate with the fewest
 *   running jobs, ties broken by agent id (code-unit order), so the choice is deterministic.
 *
 * Local and remote cards are candidates alike; a remote one is reached through the
 * `RemoteInvoker`.
 *
 * An envelope that names a target (seed 002 §6.1, extension `_x_agentese_target`) is resolved
 * from it instead of `to`: `local://<agent>` (a local agent), `http(s)://peer[/agent]` (a
 * configured peer's agents offering the verb — or, while the peer has announced none, a
 * placeholder card that forwards to it), `p2p://did:key:…[/agent]` (the mesh peer's agents
 * offering the verb, or a placeholder that forwards to it; `UNAVAILABLE` on a node whose
 * transports do not carry p2p), `mcp://<server>[/<tool>]` (the local agent bridging that MCP
 * server, docs/decisions/mcp.md MCP-35), `a2a+https://host[/path]` (the local agent bridging the
 * A2A agent at that URL, docs/decisions/a2a.md A2A-20); any other scheme is `INVALID_PARAMS` (see
 * `routing/target.ts`).
 */
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { findCapability, type AgentCapability, type AgentCard } from '../../core/records/agent-card.js';
import {
  capabilitySelector,
  parseCapabilitySelector,
  stripVerbVersion,
  verbNameProblem,
} from '../../core/verb-name.js';
import { compareIds, type Registry } from '../agents/registry.js';
import type { AgentRank } from '../agents/agent-outcomes.js';
import type { TargetRoutes } from './remote.js';
import { identityFromName } from '../../security/identity.js';
import {
  A2A_BRIDGE_EXTENSION,
  MCP_BRIDGE_EXTENSION,
  REMOTE_MESH_PEER_EXTENSION,
  REMOTE_PEER_EXTENSION,
  pendingTransportError,
  targetOf,
  type RouteTarget,
} from './target.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

/** How the request addressed its target. */
export type TargetKind = 'agent' | 'broadcast' | 'capability';

/** One agent a request can go to. */
export interface Candidate {
  readonly card: AgentCard;
  /** The capability of the card that serves the verb (its schemas). */
  readonly capability: AgentCapability;
}

/** The agents a request can go to, sorted by id. */
export interface Resolution {
  readonly kind: TargetKind;
  readonly verb: string;
  readonly candidates: readonly Candidate[];
}

function unknownVerb(verb: string, extra = ''): PlexusError {
  const problem = verbNameProblem(verb);
  return new PlexusError(
    'UNKNOWN_VERB',
    `no agent here offers the verb ${JSON.stringify(verb)}${problem === undefined ? '' : ` (${problem})`}${extra}`,
    { details: { verb } },
  );
}

function candidatesOf(cards: readonly AgentCard[], verb: string): Candidate[] {
  return cards.flatMap((card) => {
    const capability = findCapability(card, verb);
    return capability === undefined ? [] : [{ card, capability }];
  });
}

/** A card standing for an agent of a peer that has not announced it (yet): it forwards there. */
function placeholderCard(
  peer: string,
  id: string,
  verb: string,
  extension = REMOTE_PEER_EXTENSION,
): Candidate {
  // `true`, not `{}`: the same "anything" as a schema, but the validator's compile cache is
  // keyed by schema object, so a fresh `{}` per request was compiled by Ajv on every call (MESH-37)
  const capability: AgentCapability = { verb, input: true, output: true };
  const card: AgentCard = {
    id,
    name: id,
    version: '0',
    tier: 'L3',
    capabilities: [capability],
    origin: 'remote',
    extensions: { [extension]: peer },
  };
  return { card, capability };
}

/**
 * `mcp://<server>[/<tool>]`: the local agent bridging MCP server `<server>` (its card carries
 * {@link MCP_BRIDGE_EXTENSION}); with a tool, the request's verb must be that tool's.
 */
function resolveMcpTarget(
  registry: Registry,
  envelope: Envelope,
  target: Extract<RouteTarget, { scheme: 'mcp' }>,
): Resolution {
  const { verb } = envelope;
  const entry = registry.find(target.server);
  const bridged = entry?.card.extensions?.[MCP_BRIDGE_EXTENSION];
  if (entry === undefined || entry.card.origin === 'remote' || !isJsonObject(bridged ?? null))
    throw pendingTransportError(target);
  const tools =
    isJsonObject(bridged) && isJsonObject(bridged['tools'] ?? null) ? (bridged['tools'] as JsonObject) : {};
  if (target.tool !== undefined) {
    const toolVerb = tools[target.tool];
    if (typeof toolVerb !== 'string') {
      throw new PlexusError(
        'NOT_FOUND',
        `target ${target.text}: MCP server ${target.server} has no tool ${JSON.stringify(target.tool)}; its tools: ${Object.keys(tools).join(', ') || 'none'}`,
        { details: { pointer: '/target', target: target.text, server: target.server, tool: target.tool } },
      );
    }
    if (stripVerbVersion(verb) !== toolVerb) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `target ${target.text} is the verb ${toolVerb}, but the request's verb is ${verb}; send ${toolVerb}`,
        { details: { pointer: '/verb', target: target.text, verb: toolVerb } },
      );
    }
  }
  const capability = findCapability(entry.card, verb);
  if (capability === undefined) throw unknownVerb(verb, `: MCP server ${target.server} does not offer it`);
  return { kind: 'agent', verb, candidates: [{ card: entry.card, capability }] };
}

/**
 * `a2a+https://host[/path]`: the local agent bridging the A2A agent at that URL (its card
 * carries {@link A2A_BRIDGE_EXTENSION} with the URL); the request's verb must be one of its skills'.
 */
function resolveA2aTarget(
  registry: Registry,
  verb: string,
  target: Extract<RouteTarget, { scheme: 'a2a' }>,
): Resolution {
  const card = registry.list().find((c) => {
    const bridged = c.extensions?.[A2A_BRIDGE_EXTENSION];
    return (
      c.origin !== 'remote' && isJsonObject(bridged ?? null) && (bridged as JsonObject)['url'] === target.url
    );
  });
  if (card === undefined) throw pendingTransportError(target);
  const capability = findCapability(card, verb);
  if (capability === undefined) {
    const offered = card.capabilities.map((c) => c.verb).join(', ') || 'no verbs';
    throw unknownVerb(verb, `: the A2A agent at ${target.url} (agent ${card.id}) offers ${offered}`);
  }
  return { kind: 'agent', verb, candidates: [{ card, capability }] };
}

/** The candidates of a `p2p://` target: the mesh peer's cards offering the verb, or a placeholder. */
function resolveP2p(
  registry: Registry,
  verb: string,
  target: Extract<RouteTarget, { scheme: 'p2p' }>,
): Resolution {
  const peerId = identityFromName(target.did).peerId;
  const kind: TargetKind = target.agent === undefined ? 'capability' : 'agent';
  const owned = registry
    .list()
    .filter(
      (card) =>
        card.origin === 'remote' &&
        card.extensions?.[REMOTE_MESH_PEER_EXTENSION] === peerId &&
        (target.agent === undefined || card.id === target.agent),
    );
  const candidates = candidatesOf(owned, verb);
  if (candidates.length > 0) return { kind, verb, candidates };
  if (target.agent !== undefined && owned.length > 0) {
    throw unknownVerb(verb, `: agent ${target.agent} of mesh peer ${peerId} does not offer it`);
  }
  const id = target.agent ?? capabilitySelector(verb);
  return { kind, verb, candidates: [placeholderCard(peerId, id, verb, REMOTE_MESH_PEER_EXTENSION)] };
}

function resolveTarget(
  registry: Registry,
  envelope: Envelope,
  target: RouteTarget,
  routes: TargetRoutes | undefined,
): Resolution {
  const { verb } = envelope;
  if (target.scheme === 'local') {
    if (target.agent === undefined) {
      const candidates = candidatesOf(
        registry.byCapability(verb).filter((card) => card.origin !== 'remote'),
        verb,
      );
      if (candidates.length === 0) throw unknownVerb(verb, ` (target ${target.text})`);
      return { kind: 'capability', verb, candidates };
    }
    const entry = registry.find(target.agent);
    if (entry === undefined || entry.card.origin === 'remote') {
      throw new PlexusError(
        'NOT_FOUND',
        `target ${target.text}: no agent with id ${JSON.stringify(target.agent)} is hosted by this node`,
        { details: { agent: target.agent, target: target.text } },
      );
    }
    const capability = findCapability(entry.card, verb);
    if (capability === undefined) throw unknownVerb(verb, `: agent ${target.agent} does not offer it`);
    return { kind: 'agent', verb, candidates: [{ card: entry.card, capability }] };
  }
  if (target.scheme === 'mcp') return resolveMcpTarget(registry, envelope, target);
  if (target.scheme === 'a2a') return resolveA2aTarget(registry, verb, target);
  if (target.scheme === 'p2p' && routes?.carries?.(target) === true) {
    return resolveP2p(registry, verb, target);
  }
  if (target.scheme === 'p2p') throw pendingTransportError(target);
  const match = routes?.peerOf(target.url);
  if (match === undefined) {
    throw new PlexusError(
      'FORBIDDEN',
      `target ${target.text} is not one of this node's configured peers; a node forwards only to the peers listed under "peers" in its configuration`,
      { details: { pointer: '/target', target: target.text } },
    );
  }
  const owned = registry
    .list()
    .filter(
      (card) =>
        card.origin === 'remote' &&
        card.extensions?.[REMOTE_PEER_EXTENSION] === match.peer &&
        (match.agent === undefined || card.id === match.agent),
    );
  const candidates = candidatesOf(owned, verb);
  if (candidates.length > 0) {
    return { kind: match.agent === undefined ? 'capability' : 'agent', verb, candidates };
  }
  if (match.agent !== undefined && owned.length > 0) {
    throw unknownVerb(verb, `: agent ${match.agent} of peer ${match.peer} does not offer it`);
  }
  const id = match.agent ?? capabilitySelector(verb);
  return {
    kind: match.agent === undefined ? 'capability' : 'agent',
    verb,
    candidates: [placeholderCard(match.peer, id, verb)],
  };
}

/**
 * Finds the candidates of a request from the registry, or from its target when it names one.
 *
 * @param routes how http(s) targets map onto the node's peers (without it they are refused)
 *   and the check of the envelope's fallback policy.
 * @throws PlexusError `NOT_FOUND` for an unknown agent id; `UNKNOWN_VERB` when no candidate
 *   offers the verb; `INVALID_PARAMS` when a capability selector names another verb than
 *   the envelope's, or for a bad target or fallback policy; `FORBIDDEN` for an http(s)
 *   target that is not a configured peer; `UNAVAILABLE` for an MCP server or A2A agent this node
 *   does not bridge, or a `p2p://` target when no transport carries it.
 */
export function resolveTargets(registry: Registry, envelope: Envelope, routes?: TargetRoutes): Resolution {
  const { verb, to } = envelope;
  if (envelope.extensions !== undefined) {
    routes?.checkPolicy(envelope);
    const target = targetOf(envelope);
    if (target !== undefined) return resolveTarget(registry, envelope, target, routes);
  }
  if (to === BROADCAST) {
    const candidates = candidatesOf(registry.byCapability(verb), verb);
    if (candidates.length === 0) throw unknownVerb(verb);
    return { kind: 'broadcast', verb, candidates };
  }
  const selected = parseCapabilitySelector(to);
  if (selected !== undefined) {
    if (stripVerbVersion(selected) !== stripVerbVersion(verb)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `the address ${JSON.stringify(to)} selects the verb ${selected}, but the request's verb is ${verb}`,
        { details: { pointer: '/to' } },
      );
    }
    const candidates = candidatesOf(registry.byCapability(selected.includes('@') ? selected : verb), verb);
    if (candidates.length === 0) throw unknownVerb(verb);
    return { kind: 'capability', verb, candidates };
  }
  const entry = registry.find(to);
  if (entry === undefined) {
    throw new PlexusError('NOT_FOUND', `no agent with id ${JSON.stringify(to)} is registered`, {
      details: { agent: to },
    });
  }
  const capability = findCapability(entry.card, verb);
  if (capability === undefined) {
    const offered = entry.card.capabilities.map((c) => c.verb).join(', ') || 'no verbs';
    throw unknownVerb(verb, `: agent ${to} offers ${offered}`);
  }
  return { kind: 'agent', verb, candidates: [{ card: entry.card, capability }] };
}

/** What the router needs to know about each candidate at dispatch time. */
export interface RouteState {
  /** Jobs running on the agent now. */
  load(card: AgentCard): number;
  /**
   * Its reputation and latency as this node sees them (agents/agent-outcomes.ts). @default
   * every candidate ranks alike (load, then id)
   */
  rank?(card: AgentCard): AgentRank;
  /** `undefined` when the agent can take the job, else why not (a retryable PlexusError). */
  unavailable(card: AgentCard): PlexusError | undefined;
}

/**
 * Picks one candidate (MESH-44): among the available ones, the fewest running jobs; then the
 * highest reputation; then the lowest latency (unknown counts as 0); then the smallest id — a
 * total order, so the choice is deterministic.
 *
 * @throws PlexusError the first candidate's (by id) unavailability error when none is
 *   available (`UNAVAILABLE`, or `PEER_UNAVAILABLE` for a remote agent without a transport).
 */
export function selectCandidate(candidates: readonly Candidate[], state: RouteState): Candidate {
  let best: { candidate: Candidate; load: number; rank: AgentRank } | undefined;
  let firstError: PlexusError | undefined;
  for (const candidate of [...candidates].sort((a, b) => compareIds(a.card.id, b.card.id))) {
    const why = state.unavailable(candidate.card);
    if (why !== undefined) {
      firstError ??= why;
      continue;
    }
    const load = state.load(candidate.card);
    if (best !== undefined && load > best.load) continue;
    const rank = state.rank?.(candidate.card) ?? UNRANKED;
    if (best === undefined || load < best.load || ranksAbove(rank, best.rank)) {
      best = { candidate, load, rank };
    }
  }
  if (best !== undefined) return best.candidate;
  throw firstError ?? new PlexusError('UNAVAILABLE', 'no agent is available for this request');
}

const UNRANKED: AgentRank = { reputation: 0, latencyMs: undefined };

/** True when `a` ranks strictly above `b`: higher reputation, else lower latency. */
function ranksAbove(a: AgentRank, b: AgentRank): boolean {
  if (a.reputation !== b.reputation) return a.reputation > b.reputation;
  return (a.latencyMs ?? 0) < (b.latencyMs ?? 0);
}
