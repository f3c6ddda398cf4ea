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
 */
import { BROADCAST, type Envelope } from '../core/envelope.js';
import { PlexusError } from '../core/errors.js';
import { findCapability, type AgentCapability, type AgentCard } from '../core/records/agent-card.js';
import { parseCapabilitySelector, stripVerbVersion, verbNameProblem } from '../core/verb-name.js';
import { compareIds, type Registry } from './registry.js';

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

/**
 * Finds the candidates of a request from the registry.
 *
 * @throws PlexusError `NOT_FOUND` for an unknown agent id; `UNKNOWN_VERB` when no candidate
 *   offers the verb; `INVALID_PARAMS` when a capability selector names another verb than
 *   the envelope's.
 */
export function resolveTargets(registry: Registry, envelope: Envelope): Resolution {
  const { verb, to } = envelope;
  const candidatesOf = (cards: readonly AgentCard[]): Candidate[] =>
    cards.flatMap((card) => {
      const capability = findCapability(card, verb);
      return capability === undefined ? [] : [{ card, capability }];
    });
  if (to === BROADCAST) {
    const candidates = candidatesOf(registry.byCapability(verb));
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
    const candidates = candidatesOf(registry.byCapability(selected.includes('@') ? selected : verb));
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
  /** `undefined` when the agent can take the job, else why not (a retryable PlexusError). */
  unavailable(card: AgentCard): PlexusError | undefined;
}

/**
 * Picks one candidate: the available one with the fewest running jobs, ties broken by id.
 *
 * @throws PlexusError the first candidate's (by id) unavailability error when none is
 *   available (`UNAVAILABLE`, or `PEER_UNAVAILABLE` for a remote agent without a transport).
 */
export function selectCandidate(candidates: readonly Candidate[], state: RouteState): Candidate {
  let best: Candidate | undefined;
  let bestLoad = Infinity;
  let firstError: PlexusError | undefined;
  for (const candidate of [...candidates].sort((a, b) => compareIds(a.card.id, b.card.id))) {
    const why = state.unavailable(candidate.card);
    if (why !== undefined) {
      firstError ??= why;
      continue;
    }
    const load = state.load(candidate.card);
    if (load < bestLoad) {
      best = candidate;
      bestLoad = load;
    }
  }
  if (best !== undefined) return best;
  throw firstError ?? new PlexusError('UNAVAILABLE', 'no agent is available for this request');
}
