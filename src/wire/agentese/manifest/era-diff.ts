/**
 * Compares a manifest with an older one (`plexus lint --against OLD`, seed 002 §10): an era
 * present in both may only change additively; breaking changes need a new era. Removing an
 * era is breaking unless it was sunset. New verbs and new eras are additive.
 */
import type { JsonObject } from '../../../core/json.js';
import { EFFECT_NAMES } from '../../../core/records/effects.js';
import type { VerbSpec } from '../../../core/records/verb-spec.js';
import { eraKey } from './manifest-model.js';
import type { ManifestLoad } from './manifest-model.js';
import type { SchemaLocation } from './schema-builder.js';
import { diffSchemas } from './schema-diff.js';

/** One difference between the old and the new manifest. */
export interface EraChange {
  readonly kind: 'breaking' | 'additive';
  /** The era (`name@version`) it concerns. */
  readonly era: string;
  readonly message: string;
  /** Where to look: in the new manifest, or in the old one for a removed era. */
  readonly location?: SchemaLocation;
}

function keyOf(spec: VerbSpec): string {
  return eraKey(spec.name, spec.version);
}

function verbChanges(
  before: VerbSpec,
  after: VerbSpec,
): { kind: 'breaking' | 'additive'; message: string }[] {
  const out: { kind: 'breaking' | 'additive'; message: string }[] = [];
  if (before.category !== after.category) {
    out.push({ kind: 'breaking', message: `category changed from ${before.category} to ${after.category}` });
  }
  for (const effect of EFFECT_NAMES) {
    const a = before.effects[effect] ?? [];
    const b = after.effects[effect] ?? [];
    for (const r of b) {
      if (!a.includes(r)) {
        out.push({
          kind: 'breaking',
          message: `now also ${effect} ${r}; tokens granted for this era may not cover it`,
        });
      }
    }
    for (const r of a)
      if (!b.includes(r)) out.push({ kind: 'additive', message: `no longer ${effect} ${r}` });
  }
  for (const c of after.capabilities) {
    if (!before.capabilities.includes(c)) {
      out.push({
        kind: 'breaking',
        message: `now requires capability ${c}; existing callers' tokens lack it`,
      });
    }
  }
  for (const c of before.capabilities) {
    if (!after.capabilities.includes(c))
      out.push({ kind: 'additive', message: `no longer requires capability ${c}` });
  }
  if (before.deterministic && !after.deterministic) {
    out.push({
      kind: 'breaking',
      message: 'is no longer deterministic; callers that cache its results would be wrong',
    });
  }
  if (before.status !== after.status) {
    out.push({ kind: 'additive', message: `status changed from ${before.status} to ${after.status}` });
  }
  return out;
}

/**
 * Every change from `before` to `after`, breaking ones first within each era, in the new
 * manifest's order (removed eras last).
 */
export function diffManifests(before: ManifestLoad, after: ManifestLoad): EraChange[] {
  const changes: EraChange[] = [];
  const old = new Map(before.manifest.verbs.map((v) => [keyOf(v), v]));
  const oldNames = new Set(before.manifest.verbs.map((v) => v.name));
  const seen = new Set<string>();
  for (const spec of after.manifest.verbs) {
    const key = keyOf(spec);
    const at = after.locations.verb(key);
    const withAt = (c: Omit<EraChange, 'location'>, loc: SchemaLocation | undefined = at): EraChange =>
      loc === undefined ? c : { ...c, location: loc };
    const prior = old.get(key);
    if (prior === undefined) {
      const message = oldNames.has(spec.name) ? `new era ${key}` : `new verb ${key}`;
      changes.push(withAt({ kind: 'additive', era: key, message }));
      continue;
    }
    seen.add(key);
    const found: EraChange[] = [];
    for (const which of ['input', 'output'] as const) {
      for (const c of diffSchemas(prior[which] as JsonObject, spec[which] as JsonObject, which)) {
        const loc = after.locations.schema(c.at) ?? after.locations.schema(spec[which] as object) ?? at;
        found.push(withAt({ kind: c.kind, era: key, message: `${c.path}: ${c.message}` }, loc));
      }
    }
    for (const c of verbChanges(prior, spec)) found.push(withAt({ era: key, ...c }));
    changes.push(
      ...found.filter((c) => c.kind === 'breaking'),
      ...found.filter((c) => c.kind === 'additive'),
    );
  }
  for (const [key, spec] of old) {
    if (seen.has(key)) continue;
    const at = before.locations.verb(key);
    const kind = spec.status === 'sunset' ? 'additive' : 'breaking';
    const message =
      kind === 'additive'
        ? `removed the sunset era ${key}`
        : `removed ${key}, which is ${spec.status}, not sunset; keep it with status: sunset and a sunset date before removing it`;
    changes.push(at === undefined ? { kind, era: key, message } : { kind, era: key, message, location: at });
  }
  return changes;
}
