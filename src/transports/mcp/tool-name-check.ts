/**
 * Seed 004 Req 5.5: registering two tools with the same name is refused with a descriptive
 * error (docs/decisions/mcp.md MCP-52). A local agent's tools are named as the face names them
 * (`agentName.verb`, cleaned to the MCP charset, or the name a verb declares with `mcp:tool`;
 * MCP-2, MCP-40); before the runtime registers it, {@link uniqueToolNamesCheck} refuses it when
 * one of those names equals another of its own or one of another local agent, naming both
 * (agent id and verb), and refuses a declared name outside the MCP charset. Remote cards are not checked: what another node announces cannot be
 * refused here, so a clash with one is still settled by MCP-2's hash suffix.
 */
import { PlexusError } from '../../core/errors.js';
import type { RegistrationCandidate } from '../../runtime/index.js';
import { toolHintOf } from './tool-catalog.js';
import { MCP_TOOL_NAME_PATTERN, wantedToolName } from './tool-names.js';

interface Named {
  readonly agentId: string;
  readonly verb: string;
}

function describe(n: Named): string {
  return `verb ${n.verb} of agent ${n.agentId}`;
}

/** The wanted tool names of the verbs of one card, name → (agent, verb). @throws on a clash inside it. */
function namesOf(
  card: RegistrationCandidate['card'],
  specOf: (verb: string) => { readonly projection?: Readonly<Record<string, unknown>> } | undefined,
  refuse: boolean,
): Map<string, Named> {
  const out = new Map<string, Named>();
  for (const verb of new Set(card.capabilities.map((c) => c.verb))) {
    const declared = toolHintOf(specOf(verb)).name;
    if (refuse && declared !== undefined && !MCP_TOOL_NAME_PATTERN.test(declared)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `agent ${card.id} cannot be registered: its verb ${verb} declares the MCP tool name ${JSON.stringify(declared)} (mcp:tool), which is not 1–128 characters of [A-Za-z0-9_.-]`,
        { details: { agent: card.id, verb, tool: declared } },
      );
    }
    const name = wantedToolName({
      agentId: card.id,
      agentName: card.name,
      verb,
      ...(declared === undefined ? {} : { declared }),
    });
    const other = out.get(name);
    if (other !== undefined && refuse) {
      throw new PlexusError(
        'CONFLICT',
        `agent ${card.id} cannot be registered: its ${describe(other)} and its verb ${verb} would both be the MCP tool ${JSON.stringify(name)}; rename one of the verbs or its mcp:tool name`,
        { details: { tool: name, agent: card.id, verbs: [other.verb, verb] } },
      );
    }
    if (other === undefined) out.set(name, { agentId: card.id, verb });
  }
  return out;
}

/**
 * The registration check (`RuntimeInit.registrationChecks`).
 * @throws PlexusError `CONFLICT` naming the tool and both (agent, verb) pairs.
 */
export function uniqueToolNamesCheck(candidate: RegistrationCandidate): void {
  const { card, verbs, registry } = candidate;
  const mine = namesOf(card, (verb) => verbs.find((v) => v.name === verb), true);
  if (mine.size === 0) return;
  for (const other of registry.list()) {
    if (other.id === card.id || other.origin === 'remote') continue;
    const theirs = namesOf(other, (verb) => registry.verbSpec(other.id, verb), false);
    for (const [name, at] of mine) {
      const taken = theirs.get(name);
      if (taken === undefined) continue;
      throw new PlexusError(
        'CONFLICT',
        `agent ${card.id} cannot be registered: its ${describe(at)} would be the MCP tool ${JSON.stringify(name)}, which the ${describe(taken)} already is (tool names must be unique, seed 004 Req 5.5); give the agent another name or the verb another mcp:tool name`,
        {
          details: {
            tool: name,
            agent: card.id,
            verb: at.verb,
            conflictsWith: { agent: taken.agentId, verb: taken.verb },
          },
        },
      );
    }
  }
}
