/**
 * The runtime's one table of verb aliases (docs/decisions/primitive-names.md): an agent may
 * declare other names for its verbs (the Hyperspace primitives declare the seed's camelCase
 * method names, `state.createSession` → `state.create_session`). Every face resolves a name
 * through this table where it decodes a request, and the runtime resolves it again as the
 * first step of `invoke` / `submit`, so the job, its events and its answer carry the canonical
 * verb whatever name the caller used.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { capabilitySelector, parseCapabilitySelector } from '../../core/verb-name.js';

/** The alias table. */
export interface VerbAliases {
  /**
   * The canonical verb of `name`: the verb an alias stands for (an `@version` suffix is kept),
   * or `name` itself when it is no alias.
   */
  resolve(name: string): string;
  /** `envelope` with its verb, and a capability selector `to`, resolved (the same object when nothing changes). */
  resolveEnvelope(envelope: Envelope): Envelope;
  /**
   * Adds the aliases of agent `owner` (alias → verb), replacing the ones it had.
   * @throws PlexusError `CONFLICT` when another agent already declared one of the aliases.
   */
  add(owner: string, table: Readonly<Record<string, string>>): void;
  /** Removes the aliases of agent `owner`. */
  remove(owner: string): void;
  /** Every alias and its verb, sorted by alias. */
  entries(): readonly (readonly [alias: string, verb: string])[];
}

/** An empty alias table. */
export function verbAliases(): VerbAliases {
  const byAlias = new Map<string, { readonly verb: string; readonly owner: string }>();
  const resolve = (name: string): string => {
    const at = name.indexOf('@');
    const base = at === -1 ? name : name.slice(0, at);
    const entry = byAlias.get(base);
    if (entry === undefined) return name;
    return at === -1 ? entry.verb : `${entry.verb}${name.slice(at)}`;
  };
  const remove = (owner: string): void => {
    for (const [alias, entry] of byAlias) if (entry.owner === owner) byAlias.delete(alias);
  };
  return {
    resolve,
    resolveEnvelope(envelope) {
      if (byAlias.size === 0) return envelope;
      const verb = resolve(envelope.verb);
      const selected = parseCapabilitySelector(envelope.to);
      const to = selected === undefined ? envelope.to : capabilitySelector(resolve(selected));
      return verb === envelope.verb && to === envelope.to ? envelope : { ...envelope, verb, to };
    },
    add(owner, table) {
      for (const alias of Object.keys(table)) {
        const taken = byAlias.get(alias);
        if (taken !== undefined && taken.owner !== owner) {
          throw new PlexusError(
            'CONFLICT',
            `the verb alias ${JSON.stringify(alias)} of agent ${owner} is already declared by agent ${taken.owner}`,
            { details: { alias, agent: taken.owner } },
          );
        }
      }
      remove(owner);
      for (const [alias, verb] of Object.entries(table)) byAlias.set(alias, { verb, owner });
    },
    remove,
    entries() {
      return [...byAlias]
        .map(([alias, { verb }]) => [alias, verb] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    },
  };
}
