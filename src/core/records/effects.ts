/**
 * Declared effects (seed 002 Part III, DESIGN D6): the nine effect names, the normal form
 * `{effect: [resources]}`, normalisation of the manifest's shorthand forms, and composition.
 */
import { PlexusError } from '../errors.js';
import { isJsonObject } from '../json.js';
import { childPointer } from '../problem.js';
import type { Problem } from '../problem.js';
import { problemsDetails, summarizeProblems } from '../schema-validator.js';

/** The effect names of seed 002 §3.1, in canonical order. */
export const EFFECT_NAMES = [
  'reads',
  'writes',
  'deletes',
  'charges',
  'earns',
  'calls',
  'emits',
  'forces',
  'audits',
] as const;
/** One of {@link EFFECT_NAMES}. */
export type EffectName = (typeof EFFECT_NAMES)[number];

/** Normalised effects: each declared effect with its resources, no duplicates. */
export type Effects = { readonly [E in EffectName]?: readonly string[] };

/** True when `value` is one of {@link EFFECT_NAMES}. */
export function isEffectName(value: unknown): value is EffectName {
  return typeof value === 'string' && (EFFECT_NAMES as readonly string[]).includes(value);
}

type Collected = Map<EffectName, string[]>;

function add(out: Collected, effect: string, resource: unknown, pointer: string, problems: Problem[]): void {
  if (!isEffectName(effect)) {
    problems.push({
      pointer,
      message: `"${effect}" is not an effect; expected one of ${EFFECT_NAMES.join(', ')}`,
    });
    return;
  }
  const list = out.get(effect) ?? [];
  out.set(effect, list);
  const resources = Array.isArray(resource) ? resource : [resource];
  resources.forEach((r: unknown, i) => {
    const at = Array.isArray(resource) ? childPointer(pointer, i) : pointer;
    if (typeof r !== 'string' || r.trim() === '') {
      problems.push({ pointer: at, message: `a resource of "${effect}" must be a non-empty string` });
    } else if (!list.includes(r.trim())) {
      list.push(r.trim());
    }
  });
}

function addObject(out: Collected, obj: Record<string, unknown>, pointer: string, problems: Problem[]): void {
  for (const [effect, resource] of Object.entries(obj))
    add(out, effect, resource, childPointer(pointer, effect), problems);
}

function toEffects(out: Collected): Effects {
  const effects: Partial<Record<EffectName, readonly string[]>> = {};
  for (const name of EFFECT_NAMES) {
    const list = out.get(name);
    if (list !== undefined) effects[name] = list;
  }
  return effects;
}

/**
 * Normalises a manifest's `effects` to `{effect: [resources]}` and lists every problem.
 * Accepted forms (seed 002 §1.3, §3.1): a mapping `{reads: "x"}` or `{reads: ["x", "y"]}`;
 * a list of one-key mappings `[{writes: "session_registry"}, {charges: "tokens"}]` (how YAML
 * reads `[writes: session_registry, charges: tokens]`); a list of strings `"reads: x"` or
 * `"reads:x"`; `null` / absent for no effects. Resources are trimmed and de-duplicated in
 * first-seen order; effect keys come out in {@link EFFECT_NAMES} order.
 */
export function normalizeEffectsWithProblems(
  raw: unknown,
  pointer = '',
): { effects: Effects; problems: Problem[] } {
  const out: Collected = new Map();
  const problems: Problem[] = [];
  if (raw === undefined || raw === null) return { effects: {}, problems };
  if (isJsonObject(raw)) {
    addObject(out, raw, pointer, problems);
  } else if (Array.isArray(raw)) {
    raw.forEach((item: unknown, i) => {
      const at = childPointer(pointer, i);
      if (typeof item === 'string') {
        const colon = item.indexOf(':');
        if (colon === -1) {
          problems.push({
            pointer: at,
            message: `"${item}" must be written "effect: resource" (e.g. "reads: memory_crystals")`,
          });
        } else {
          add(out, item.slice(0, colon).trim(), item.slice(colon + 1), at, problems);
        }
      } else if (isJsonObject(item)) {
        addObject(out, item, at, problems);
      } else {
        problems.push({
          pointer: at,
          message: 'an effect must be "effect: resource" or {effect: resources}',
        });
      }
    });
  } else {
    problems.push({
      pointer,
      message: 'effects must be a mapping {effect: [resources]} or a list of effects',
    });
  }
  return { effects: toEffects(out), problems };
}

/**
 * Normalises a manifest's `effects` (see {@link normalizeEffectsWithProblems}).
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when any entry is malformed.
 */
export function normalizeEffects(raw: unknown): Effects {
  const { effects, problems } = normalizeEffectsWithProblems(raw);
  if (problems.length > 0) {
    throw new PlexusError('INVALID_PARAMS', `effects are invalid: ${summarizeProblems(problems)}`, {
      details: problemsDetails(problems),
    });
  }
  return effects;
}

/**
 * The effects of running `a` then `b`: the union per effect (seed 002 §3.2), resources of
 * `a` first.
 */
export function composeEffects(a: Effects, b: Effects): Effects {
  const out: Collected = new Map();
  for (const name of EFFECT_NAMES) {
    const merged = [...(a[name] ?? [])];
    for (const r of b[name] ?? []) if (!merged.includes(r)) merged.push(r);
    if (a[name] !== undefined || b[name] !== undefined) out.set(name, merged);
  }
  return toEffects(out);
}
