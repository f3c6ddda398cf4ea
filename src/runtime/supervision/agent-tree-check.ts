/**
 * Which agents a supervision tree spec names, and the check of a spec against the agents a
 * runtime hosts (every worker of the tree must be one of them).
 */
import { PlexusError } from '../../core/errors.js';
import {
  checkSupervisorSpec,
  isSupervisorSpec,
  type ChildSpec,
  type SupervisorSpec,
} from './supervision-spec.js';

/** An agent named in a tree spec. */
export interface NamedAgent {
  readonly id: string;
  /** Its supervisor's id. */
  readonly supervisor: string;
  /** JSON pointer of its spec in the tree (`/children/1/children/0`). */
  readonly pointer: string;
}

/** The agents (workers) a tree spec names, in start order. */
export function namedAgents(spec: SupervisorSpec): readonly NamedAgent[] {
  const out: NamedAgent[] = [];
  const walk = (sup: SupervisorSpec, pointer: string): void => {
    sup.children.forEach((child: ChildSpec | SupervisorSpec, i) => {
      const at = `${pointer}/children/${i}`;
      if (isSupervisorSpec(child)) walk(child, at);
      else out.push({ id: child.id, supervisor: sup.id, pointer: at });
    });
  };
  walk(spec, '');
  return out;
}

/**
 * Checks a tree spec against the runtime's agents: a valid spec (see `checkSupervisorSpec`)
 * whose every worker is one of `agentIds`.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the bad field (`details.pointer`).
 */
export function checkAgentTree(spec: SupervisorSpec, agentIds: readonly string[]): SupervisorSpec {
  checkSupervisorSpec(spec);
  for (const named of namedAgents(spec)) {
    if (!agentIds.includes(named.id)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `supervision${named.pointer.replace(/\/children\/(\d+)/g, '.children[$1]')} names agent ${JSON.stringify(named.id)}, but this node has no such agent; its agents are: ${agentIds.join(', ') || 'none'}`,
        { details: { pointer: `${named.pointer}/id`, agent: named.id } },
      );
    }
  }
  return spec;
}
