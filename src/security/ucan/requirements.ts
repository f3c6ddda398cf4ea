/**
 * What a verb needs from a capability token (DESIGN D7, seed 002 §1.3, Part III): first the
 * verb itself — some capability whose resource is `agentese:verb/<name>` or a pattern covering
 * it (`agentese:verb/echo.*`, `agentese:verb/*`, `agentese:*`), whatever its ability; then each
 * scope of its `capabilities` as an ability on the verb (`soul:read` → `soul/read` on
 * `agentese:verb/<name>`), and each declared effect as `effect/<name>` on each of its
 * resources (`writes: session_registry` → `effect/writes` on `agentese:session_registry`;
 * an effect without resources → on the verb). Then the check of a verified chain against them.
 */
import { EFFECT_NAMES } from '../../core/records/effects.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import {
  abilityCovers,
  caveatProblem,
  effectAbility,
  resourceCovers,
  resourceUri,
  scopeAbility,
  verbResource,
  type CaveatContext,
  type CapabilityEntry,
  type Requirement,
} from './capability.js';
import { ucanError } from './ucan-error.js';

const memo = new WeakMap<VerbSpec, readonly Requirement[]>();

/** The requirements of one verb spec (memoised per spec object). */
export function verbRequirements(spec: VerbSpec): readonly Requirement[] {
  const known = memo.get(spec);
  if (known !== undefined) return known;
  const verb = verbResource(spec.name);
  const out: Requirement[] = [{ resource: verb, ability: '*', kind: 'verb', scope: spec.name }];
  for (const scope of spec.capabilities) {
    out.push({ resource: verb, ability: scopeAbility(scope), kind: 'scope', scope });
  }
  for (const effect of EFFECT_NAMES) {
    const resources = spec.effects[effect];
    if (resources === undefined) continue;
    const ability = effectAbility(effect);
    if (resources.length === 0) out.push({ resource: verb, ability, kind: 'effect', scope: effect });
    for (const r of resources) {
      out.push({ resource: resourceUri(r), ability, kind: 'effect', scope: `${effect}:${r}` });
    }
  }
  const frozen = Object.freeze(out);
  memo.set(spec, frozen);
  return frozen;
}

/** The requirements of several specs (the candidates of a broadcast), without duplicates. */
export function unionRequirements(lists: readonly (readonly Requirement[])[]): readonly Requirement[] {
  if (lists.length === 1) return lists[0] as readonly Requirement[];
  const seen = new Set<string>();
  const out: Requirement[] = [];
  for (const list of lists) {
    for (const r of list) {
      const key = `${r.kind}\n${r.resource}\n${r.ability}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(r);
      }
    }
  }
  return out;
}

/**
 * Checks that `capabilities` (a verified leaf's) grant every requirement under caveats the
 * request satisfies. Returns true when the answer did not depend on the request (every
 * requirement was granted by a capability without caveats), so a caller may remember it.
 *
 * @param verb names the verb in the refusal.
 * @throws PlexusError `FORBIDDEN` naming the verb the token does not cover (`details.reason`
 *   `missing-verb`), or the first missing scope or effect (`missing-scope` / `missing-effect`,
 *   `details.scope`, `details.resource`, `details.ability`), or the unmet caveat (`caveat`).
 */
export function assertCovers(
  capabilities: readonly CapabilityEntry[],
  requirements: readonly Requirement[],
  context: CaveatContext,
  verb: string,
): boolean {
  let contextFree = true;
  for (const req of requirements) {
    let problem: string | undefined;
    let found = false;
    let free = false;
    const anyAbility = req.kind === 'verb';
    for (const entry of capabilities) {
      if (
        !resourceCovers(entry.resource, req.resource) ||
        (!anyAbility && !abilityCovers(entry.ability, req.ability))
      )
        continue;
      for (const caveat of entry.caveats) {
        found = true;
        problem = caveatProblem(caveat, context);
        if (problem === undefined) {
          free = Object.keys(caveat).length === 0;
          break;
        }
      }
      if (found && problem === undefined) break;
    }
    if (!found && req.kind === 'verb') {
      throw ucanError(
        'missing-verb',
        `the capability token does not cover the verb ${verb}: it holds no capability on ${req.resource} or a pattern covering it (agentese:verb/<namespace>.*, agentese:verb/*); ask for a token that includes it`,
        { scope: req.scope, resource: req.resource, verb },
      );
    }
    if (!found) {
      const what = req.kind === 'scope' ? `scope ${req.scope}` : `effect ${req.scope}`;
      throw ucanError(
        req.kind === 'scope' ? 'missing-scope' : 'missing-effect',
        `the capability token does not grant ${what} that ${verb} needs (ability ${req.ability} on ${req.resource}); ask for a token that includes it`,
        { scope: req.scope, resource: req.resource, ability: req.ability, verb },
      );
    }
    if (problem !== undefined) {
      throw ucanError(
        'caveat',
        `the capability token grants ${req.kind === 'verb' ? 'the verb' : req.scope} for ${verb} only under a caveat this request does not meet: ${problem}`,
        { scope: req.scope, resource: req.resource, ability: req.ability, verb },
      );
    }
    if (!free) contextFree = false;
  }
  return contextFree;
}
