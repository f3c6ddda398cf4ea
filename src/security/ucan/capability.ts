/**
 * AGENTESE scopes, resources and effects as UCAN capabilities (DESIGN D7), and the two
 * relations a chain is checked with: "covers" (a proof capability contains a delegated one)
 * and "satisfies" (a request meets a capability's caveats).
 *
 * The mapping:
 * - a resource `session/*` is the URI `agentese:session/*`; `agentese:*` is every resource;
 * - a verb is the resource `agentese:verb/<name>` (`agentese:verb/soul.*` covers `soul.` verbs,
 *   `agentese:verb/*` every verb); a token must hold a capability on it to call it at all;
 * - a scope `soul:read` is the ability `soul/read` (`soul:*` → `soul/*`; `*` is top);
 * - an effect `writes` is the ability `effect/writes` on each of its resources.
 *
 * A resource or ability ending in `*` covers everything that starts with the part before
 * the `*` (`agentese:session/*` covers `agentese:session/42`; `soul/*` covers `soul/read`).
 * Abilities are compared lower-cased (UCAN §2.3).
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AbilityMap, Capabilities, Caveat } from './ucan-token.js';

/** The URI scheme of AGENTESE resources. */
export const AGENTESE_SCHEME = 'agentese:';
/** The ability namespace of declared effects. */
export const EFFECT_NAMESPACE = 'effect';

/** One capability: a resource, an ability and its caveats (an OR). */
export interface CapabilityEntry {
  readonly resource: string;
  readonly ability: string;
  readonly caveats: readonly Caveat[];
}

/** What a request needs: an ability on a resource, and the AGENTESE words it came from. */
export interface Requirement {
  readonly resource: string;
  /** The ability needed; for a `verb` requirement `*`, but any ability on the resource holds. */
  readonly ability: string;
  /**
   * `verb` for the verb itself (any capability whose resource covers `agentese:verb/<name>`),
   * `scope` for a `capabilities` entry of the verb spec, `effect` for a declared effect.
   */
  readonly kind: 'verb' | 'scope' | 'effect';
  /** The verb (`math.evaluate`), the scope (`soul:read`) or the effect with its resource (`writes:session_registry`). */
  readonly scope: string;
}

/** What a request brings for caveats to be checked against. */
export interface CaveatContext {
  readonly tenantId?: string | undefined;
  readonly sessionId?: string | undefined;
  /** Meters the verb charges (its `charges` effect resources). */
  readonly charges?: readonly string[];
}

/** The caveat keys Plexus understands; any other key makes a caveat unusable for invocation. */
export const KNOWN_CAVEATS = ['tenant', 'session', 'budget'] as const;

/**
 * The URI of an AGENTESE resource: `session/*` → `agentese:session/*`, `*` → `agentese:*`.
 * Text that already has a URI scheme (a `:` before any `/`) passes through.
 */
export function resourceUri(resource: string): string {
  if (resource === '*' || resource === '') return `${AGENTESE_SCHEME}*`;
  const colon = resource.indexOf(':');
  const slash = resource.indexOf('/');
  const hasScheme =
    colon > 0 && (slash === -1 || colon < slash) && /^[a-z][a-z0-9+.-]*$/i.test(resource.slice(0, colon));
  return hasScheme ? resource : `${AGENTESE_SCHEME}${resource}`;
}

/** The resource URI of a verb: `agentese:verb/<name>`. */
export function verbResource(verb: string): string {
  return `${AGENTESE_SCHEME}verb/${verb}`;
}

/**
 * The ability of an AGENTESE scope: `soul:read` → `soul/read`, `soul:*` → `soul/*`, `*` → `*`.
 * An ability (with `/`) passes through, lower-cased.
 *
 * @throws PlexusError `INVALID_PARAMS` when `scope` is neither `namespace:ability`, an ability, nor `*`.
 */
export function scopeAbility(scope: string): string {
  if (scope === '*') return '*';
  const colon = scope.indexOf(':');
  if (colon > 0 && colon < scope.length - 1 && !/\s/.test(scope)) {
    return `${scope.slice(0, colon)}/${scope.slice(colon + 1)}`.toLowerCase();
  }
  if (/^[^/\s:]+(\/[^/\s]+)+$/.test(scope)) return scope.toLowerCase();
  throw new PlexusError(
    'INVALID_PARAMS',
    `scope ${JSON.stringify(scope)} must be "namespace:ability" (soul:read), an ability (soul/read) or "*"`,
  );
}

/** The ability of an effect: `writes` → `effect/writes`. */
export function effectAbility(effect: string): string {
  return `${EFFECT_NAMESPACE}/${effect.toLowerCase()}`;
}

/** True when resource pattern `outer` covers resource (or pattern) `inner`. */
export function resourceCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  return outer.endsWith('*') && inner.startsWith(outer.slice(0, -1));
}

/** True when ability `outer` covers ability `inner`, compared case-insensitively. */
export function abilityCovers(outer: string, inner: string): boolean {
  if (outer === '*' || outer === inner) return true;
  if (outer.endsWith('/*') && inner.startsWith(outer.slice(0, -1))) return true;
  const o = outer.toLowerCase();
  const i = inner.toLowerCase();
  return (o !== outer || i !== inner) && abilityCovers(o, i);
}

/** The capabilities of a `cap` map as a flat list, abilities lower-cased. */
export function capabilityEntries(cap: Capabilities): CapabilityEntry[] {
  const out: CapabilityEntry[] = [];
  for (const [resource, abilities] of Object.entries(cap)) {
    for (const [ability, caveats] of Object.entries(abilities)) {
      out.push({ resource, ability: ability.toLowerCase(), caveats });
    }
  }
  return out;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && sameJson(ao[k], bo[k]));
}

/** Checks a `budget` caveat value: `{meter: integer micro-units ≥ 0}` (D12). */
export function isBudget(value: JsonValue | undefined): value is { [meter: string]: number } {
  return (
    isJsonObject(value) &&
    Object.values(value).every((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)
  );
}

/**
 * True when caveat `child` is `parent` or narrower (UCAN 0.10 §3.2.6.3: it keeps every field
 * of the parent, and may add fields). A `budget` may lower each meter's cap and add meters;
 * an array is a list of allowed alternatives and may keep a subset of them (the conformance
 * fixtures' `{"templates": [...]}`); every other field must be equal. Removing a field,
 * raising a cap, adding an alternative or changing a value loosens the caveat: not narrower.
 */
export function caveatNarrows(parent: Caveat, child: Caveat): boolean {
  for (const [key, value] of Object.entries(parent)) {
    if (!Object.hasOwn(child, key)) return false;
    const own = child[key];
    if (key === 'budget' && isBudget(value)) {
      if (!isBudget(own)) return false;
      for (const [meter, cap] of Object.entries(value)) {
        const mine = own[meter];
        if (mine === undefined || mine > cap) return false;
      }
    } else if (Array.isArray(value)) {
      if (!Array.isArray(own) || !own.every((x) => value.some((y) => sameJson(x, y)))) return false;
    } else if (!sameJson(value, own)) {
      return false;
    }
  }
  return true;
}

/**
 * The caveats of a delegated capability are covered when each of them narrows some caveat
 * of the proof capabilities that cover it. (An empty list, which grants nothing, never gets
 * this far: a token with one is malformed.)
 */
export function caveatsCovered(proofCaveats: readonly Caveat[], caveats: readonly Caveat[]): boolean {
  return caveats.every((c) => proofCaveats.some((p) => caveatNarrows(p, c)));
}

/**
 * Why `caveat` does not hold for a request, or `undefined` when it holds. `tenant` and
 * `session` must equal the envelope's; a `budget` must name every meter the verb charges;
 * an unknown key never holds (spec: caveats not understood MUST prevent invocation).
 */
export function caveatProblem(caveat: Caveat, context: CaveatContext): string | undefined {
  for (const [key, value] of Object.entries(caveat)) {
    if (key === 'tenant') {
      if (value !== context.tenantId) return `it is bound to tenant ${JSON.stringify(value)}`;
    } else if (key === 'session') {
      if (value !== context.sessionId) return `it is bound to session ${JSON.stringify(value)}`;
    } else if (key === 'budget') {
      if (!isBudget(value)) return 'its budget is not {meter: integer micro-units}';
      const missing = (context.charges ?? []).find((m) => value[m] === undefined);
      if (missing !== undefined) return `its budget has no cap for meter ${JSON.stringify(missing)}`;
    } else {
      return `caveat ${JSON.stringify(key)} is not understood by this node`;
    }
  }
  return undefined;
}

/** Adds `ability` with `caveats` on `resource` to a mutable capability map (merging caveat lists). */
export function addCapability(
  cap: Record<string, Record<string, Caveat[]>>,
  resource: string,
  ability: string,
  caveats: readonly Caveat[] = [{}],
): void {
  const abilities = (cap[resource] ??= {});
  const list = (abilities[ability] ??= []);
  for (const c of caveats) if (!list.some((x) => sameJson(x, c))) list.push(c);
}

/** A frozen copy of a mutable capability map. */
export function freezeCapabilities(cap: Record<string, Record<string, Caveat[]>>): Capabilities {
  const out: Record<string, AbilityMap> = {};
  for (const [resource, abilities] of Object.entries(cap)) out[resource] = { ...abilities };
  return out;
}
