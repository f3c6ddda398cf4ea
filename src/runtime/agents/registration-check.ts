/**
 * Checks a local agent must pass before the runtime registers it (at start and by
 * `runtime.agents.add`): a face that derives names from the registry plugs one in through
 * `RuntimeInit.registrationChecks` so a registration that would make two of its names equal
 * fails loudly instead of being renamed silently (the MCP face's tool names, seed 004 Req 5.5;
 * docs/decisions/mcp.md MCP-52). A check throws a PlexusError (`CONFLICT`) naming both parties.
 */
import type { AgentCard } from '../../core/records/agent-card.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { Registry } from './registry.js';

/** What a check sees: the card about to be registered, its verb specs, the registry now. */
export interface RegistrationCandidate {
  readonly card: AgentCard;
  readonly verbs: readonly VerbSpec[];
  readonly registry: Registry;
}

/** Refuses `candidate` by throwing; returns normally to accept it. */
export type RegistrationCheck = (candidate: RegistrationCandidate) => void;
