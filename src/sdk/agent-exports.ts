/**
 * Which exports of a user's module are SDK agents (what `plexus start --agent FILE` hosts):
 * every export — the default one and the named ones — whose value is an agent made by
 * {@link agent}, or a non-empty array of such agents. Other exports (verbs, helpers,
 * constants) are ignored; the same agent exported under several names counts once. An array
 * that mixes agents with other values is a mistake, reported rather than half-used.
 *
 * Agents are recognised by their shape, not by identity, so a module that imports another
 * copy of `plexus/sdk` (its own `node_modules`) still works.
 */
import type { AgentSpec, SomeVerbDefinition } from './verb.js';

/** One agent found in a module, with the export that holds it (`default`, `greet`, `all[1]`). */
export interface ExportedAgent {
  readonly spec: AgentSpec;
  readonly exportName: string;
}

/** What a module's exports hold: its agents, and the problems that make it unusable. */
export interface ModuleAgents {
  readonly agents: readonly ExportedAgent[];
  /** Human-readable problems (a mixed array); empty when the exports are usable. */
  readonly problems: readonly string[];
  /** Names of the exports that are single verbs (for a hint when no agent is exported). */
  readonly verbExports: readonly string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True when `value` has the shape of a verb made by `verb()`. */
export function isVerbDefinition(value: unknown): value is SomeVerbDefinition {
  return (
    isObject(value) &&
    typeof value['name'] === 'string' &&
    isObject(value['spec']) &&
    typeof value['handler'] === 'function'
  );
}

/** True when `value` has the shape of an agent made by `agent()`. */
export function isAgentSpec(value: unknown): value is AgentSpec {
  if (!isObject(value) || Array.isArray(value)) return false;
  const verbs = value['verbs'];
  return (
    typeof value['id'] === 'string' &&
    value['id'].trim() !== '' &&
    Array.isArray(verbs) &&
    verbs.length > 0 &&
    verbs.every(isVerbDefinition) &&
    isObject(value['options'])
  );
}

/**
 * The agents a module namespace exports (the object `import()` resolves with).
 *
 * @example
 * const found = agentsExportedBy(await import(url));
 * found.agents.map((a) => a.spec.id); // ['greet']
 */
export function agentsExportedBy(namespace: Readonly<Record<string, unknown>>): ModuleAgents {
  const agents: ExportedAgent[] = [];
  const problems: string[] = [];
  const verbExports: string[] = [];
  const seen = new Set<AgentSpec>();
  const add = (spec: AgentSpec, exportName: string): void => {
    if (seen.has(spec)) return;
    seen.add(spec);
    agents.push({ spec, exportName });
  };
  // `default` first, then the named exports in name order: stable messages whatever the source order
  const names = Object.keys(namespace).sort((a, b) =>
    a === 'default' ? -1 : b === 'default' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
  for (const name of names) {
    const value = namespace[name];
    if (isAgentSpec(value)) {
      add(value, name);
    } else if (Array.isArray(value)) {
      const items: readonly unknown[] = value;
      const agentAt = items.map(isAgentSpec);
      if (!agentAt.includes(true)) continue;
      const bad = agentAt.indexOf(false);
      if (bad >= 0) {
        problems.push(
          `export "${name}" is a list of agents, but item ${bad} is not an agent (make it with agent(id, verbs))`,
        );
        continue;
      }
      items.forEach((item, i) => {
        add(item as AgentSpec, `${name}[${i}]`);
      });
    } else if (isVerbDefinition(value)) {
      verbExports.push(name);
    }
  }
  return { agents, problems, verbExports };
}
