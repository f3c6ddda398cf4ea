/**
 * Effect composition over a pipeline of verbs (seed 002 §3.2): `a >> b >> c` has the union
 * of the effects and needs the union of the capabilities; it is a query only when every step
 * is, and deterministic only when every step is.
 */
import { composeEffects } from '../../../core/records/effects.js';
import type { Effects } from '../../../core/records/effects.js';
import type { VerbCategory, VerbSpec } from '../../../core/records/verb-spec.js';
import { parseVerbName, verbNameProblem } from '../../../core/verb-name.js';
import type { VerbVersion } from '../../../core/verb-name.js';
import { eraKey } from './manifest-model.js';
import type { Manifest } from './manifest-model.js';
import { didYouMean } from './problems.js';

/** What a pipeline does and needs. */
export interface PipelineSummary {
  /** The era chosen for each step, in order. */
  readonly steps: readonly VerbSpec[];
  /** The union of the steps' effects. */
  readonly effects: Effects;
  /** The union of the steps' capabilities, first-seen order. */
  readonly capabilities: readonly string[];
  /** `mutation` if any step is one, else `stream` if any step is one, else `query`. */
  readonly category: VerbCategory;
  /** True when every step is deterministic. */
  readonly deterministic: boolean;
}

/** The result of composing: the summary when every step resolved, and what went wrong. */
export interface PipelineResult {
  readonly summary?: PipelineSummary;
  /** Steps that could not be resolved (unknown verb, sunset era, bad name). */
  readonly errors: readonly string[];
  /** Steps that resolved to a deprecated era. */
  readonly warnings: readonly string[];
}

function compareEras(a: VerbVersion, b: VerbVersion): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b);
  return typeof a === 'number' ? -1 : 1;
}

/**
 * The era a step names: `name@version` exactly, or for a bare name the latest stable era
 * (the latest deprecated one when none is stable; sunset eras are never chosen implicitly).
 */
export function resolveStep(manifest: Manifest, step: string): VerbSpec | string {
  const problem = verbNameProblem(step);
  if (problem !== undefined) return problem;
  const parsed = parseVerbName(step);
  const eras = manifest.verbs.filter((v) => v.name === parsed.name);
  if (eras.length === 0) {
    return `unknown verb ${parsed.name}${didYouMean(parsed.name, new Set(manifest.verbs.map((v) => v.name)))}`;
  }
  if (parsed.version !== undefined) {
    const version = parsed.version;
    const era = eras.find((v) => v.version === version);
    if (era === undefined) {
      const known = eras.map((v) => eraKey(v.name, v.version)).join(', ');
      return `${step} is not declared; the manifest has ${known}`;
    }
    return era.status === 'sunset' ? `${step} is sunset and no longer served` : era;
  }
  const latest = (status: VerbSpec['status']): VerbSpec | undefined =>
    eras.filter((v) => v.status === status).sort((a, b) => compareEras(b.version, a.version))[0];
  return latest('stable') ?? latest('deprecated') ?? `every era of ${parsed.name} is sunset`;
}

/** Composes the pipeline `steps` (verb names, each optionally with `@version`). */
export function composePipeline(manifest: Manifest, steps: readonly string[]): PipelineResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const resolved: VerbSpec[] = [];
  if (steps.length === 0) return { errors: ['the pipeline is empty; name verbs as a,b,c'], warnings };
  for (const step of steps) {
    const era = resolveStep(manifest, step);
    if (typeof era === 'string') {
      errors.push(era);
      continue;
    }
    if (era.status === 'deprecated') {
      const until = era.deprecation?.sunsetAt === undefined ? '' : ` until ${era.deprecation.sunsetAt}`;
      const instead =
        era.deprecation?.replacement === undefined ? '' : `; use ${era.deprecation.replacement}`;
      warnings.push(`${eraKey(era.name, era.version)} is deprecated${until}${instead}`);
    }
    resolved.push(era);
  }
  if (errors.length > 0) return { errors, warnings };
  let effects: Effects = {};
  const capabilities: string[] = [];
  for (const era of resolved) {
    effects = composeEffects(effects, era.effects);
    for (const c of era.capabilities) if (!capabilities.includes(c)) capabilities.push(c);
  }
  const categories = new Set(resolved.map((v) => v.category));
  const category: VerbCategory = categories.has('mutation')
    ? 'mutation'
    : categories.has('stream')
      ? 'stream'
      : 'query';
  return {
    summary: {
      steps: resolved,
      effects,
      capabilities,
      category,
      deterministic: resolved.every((v) => v.deterministic),
    },
    errors,
    warnings,
  };
}
