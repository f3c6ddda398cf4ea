/**
 * Pipeline step `era` (seed 002 §10.1–10.3): honours the status and deprecation schedule of
 * the verb era a request reaches, by the runtime's clock.
 *
 * - An era is **sunset** when its status is `sunset`, or its `sunsetAt` date has come
 *   (00:00 UTC of that day). A request reaching only sunset eras is refused before any
 *   handler runs: `VERB_SUNSET`, with the replacement verb as the `fallbackVerb` hint and the
 *   migration guide in `details`. Candidates of a broadcast or capability request whose era is
 *   sunset are dropped; the rest still serve it.
 * - An era is **deprecated** when its status is `deprecated`, or its `deprecatedAt` date has
 *   come. A call to it succeeds and its answer carries a deprecation warning (the shape of
 *   §10.3) in the `_x_warnings` extension of the answer envelope; every face shows it.
 * - Otherwise it is stable: nothing happens. A verb registered without a spec is stable.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { EraStatus, VerbSpec } from '../../core/records/verb-spec.js';
import type { Registry } from '../agents/registry.js';
import type { Resolution } from '../routing/router.js';

/** The extension key of an answer envelope carrying its {@link EraWarning}s. */
export const WARNINGS_EXTENSION = '_x_warnings';

/** A deprecation warning, as seed 002 §10.3 writes it. */
export interface EraWarning {
  readonly type: 'deprecation';
  /** The era called, `name@version`. */
  readonly verb: string;
  /** A sentence for people. */
  readonly message: string;
  /** The deprecation date, `YYYY-MM-DD`. */
  readonly deprecated_at: string;
  /** The date the era stops being served, `YYYY-MM-DD`. */
  readonly sunset_at?: string;
  /** Where to read how to migrate. */
  readonly migration_guide?: string;
  /** The verb (`name@version`) to call instead. */
  readonly replacement?: string;
}

/** The start (00:00 UTC) of a `YYYY-MM-DD` date, Unix ms; `NaN` when it is not one. */
export function dayStartMs(date: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
}

function reached(date: string | undefined, nowMs: number): boolean {
  if (date === undefined) return false;
  const at = dayStartMs(date);
  return !Number.isNaN(at) && nowMs >= at;
}

/** The status an era has at `nowMs`: its declared status, advanced by its dates. */
export function eraStatusAt(spec: VerbSpec, nowMs: number): EraStatus {
  const d = spec.deprecation;
  if (spec.status === 'sunset' || reached(d?.sunsetAt, nowMs)) return 'sunset';
  if (spec.status === 'deprecated' || reached(d?.deprecatedAt, nowMs)) return 'deprecated';
  return 'stable';
}

/** `name@version` of an era. */
export function eraVerb(spec: VerbSpec): string {
  return `${spec.name}@${String(spec.version)}`;
}

/** The deprecation warning of a deprecated era. */
export function eraWarning(spec: VerbSpec, nowMs: number): EraWarning {
  const verb = eraVerb(spec);
  const d = spec.deprecation;
  const deprecatedAt = d?.deprecatedAt ?? new Date(nowMs).toISOString().slice(0, 10);
  const since = reached(deprecatedAt, nowMs) ? `since ${deprecatedAt}` : `from ${deprecatedAt}`;
  const until = d?.sunsetAt === undefined ? '' : `; it stops being served on ${d.sunsetAt}`;
  const use = d?.replacement === undefined ? '' : `; use ${d.replacement}`;
  const guide = d?.migration === undefined ? '' : ` (migration: ${d.migration})`;
  return {
    type: 'deprecation',
    verb,
    message: d?.message ?? `${verb} is deprecated ${since}${until}${use}${guide}`,
    deprecated_at: deprecatedAt,
    ...(d?.sunsetAt === undefined ? {} : { sunset_at: d.sunsetAt }),
    ...(d?.migration === undefined ? {} : { migration_guide: d.migration }),
    ...(d?.replacement === undefined ? {} : { replacement: d.replacement }),
  };
}

/** The `VERB_SUNSET` refusal of a call to a sunset era. */
export function sunsetError(spec: VerbSpec, calledVerb: string): PlexusError {
  const verb = eraVerb(spec);
  const d = spec.deprecation;
  const when = d?.sunsetAt === undefined ? 'was sunset' : `was sunset on ${d.sunsetAt}`;
  const instead = d?.replacement === undefined ? '' : `; call ${d.replacement} instead`;
  const guide = d?.migration === undefined ? '' : ` (migration: ${d.migration})`;
  const details: JsonObject = { verb };
  if (d?.sunsetAt !== undefined) details['sunset_at'] = d.sunsetAt;
  if (d?.replacement !== undefined) details['replacement'] = d.replacement;
  if (d?.migration !== undefined) details['migration_guide'] = d.migration;
  const action =
    d?.replacement !== undefined
      ? `Call ${d.replacement} instead${d.migration === undefined ? '' : `; see ${d.migration}`}.`
      : d?.migration !== undefined
        ? `Migrate as described in ${d.migration}.`
        : undefined;
  return new PlexusError('VERB_SUNSET', `${verb} ${when} and is no longer served${instead}${guide}`, {
    details,
    hints: {
      verb: calledVerb,
      ...(d?.replacement === undefined ? {} : { fallbackVerb: d.replacement }),
      ...(action === undefined ? {} : { suggestedAction: action }),
    },
  });
}

/**
 * Pipeline step `era`: the resolution without the candidates whose era is sunset at `nowMs`.
 *
 * @throws PlexusError `VERB_SUNSET` (with `fallbackVerb` = the replacement) when every
 *   candidate's era is sunset.
 */
export function eraStep(
  resolution: Resolution,
  specOf: (agentId: string) => VerbSpec | undefined,
  nowMs: number,
  calledVerb: string = resolution.verb,
): Resolution {
  let firstSunset: VerbSpec | undefined;
  const live = resolution.candidates.filter((candidate) => {
    const spec = specOf(candidate.card.id);
    if (spec === undefined || eraStatusAt(spec, nowMs) !== 'sunset') return true;
    firstSunset ??= spec;
    return false;
  });
  if (firstSunset === undefined) return resolution;
  if (live.length === 0) throw sunsetError(firstSunset, calledVerb);
  return { ...resolution, candidates: live };
}

/**
 * The deprecation warnings of a call of `verb` answered by `agentIds` (every agent offering
 * the verb when `undefined`, or when none of them is registered), one per deprecated era.
 */
export function eraWarnings(
  registry: Registry,
  verb: string,
  agentIds: readonly string[] | undefined,
  nowMs: number,
): EraWarning[] {
  if (verb === '') return [];
  let ids = agentIds?.filter((id) => registry.find(id) !== undefined);
  if (ids === undefined || ids.length === 0) ids = registry.byCapability(verb).map((card) => card.id);
  const out: EraWarning[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const spec = registry.verbSpec(id, verb);
    if (spec === undefined || eraStatusAt(spec, nowMs) !== 'deprecated') continue;
    const warning = eraWarning(spec, nowMs);
    if (seen.has(warning.verb)) continue;
    seen.add(warning.verb);
    out.push(warning);
  }
  return out;
}

/** True when `value` has the shape of an {@link EraWarning}. */
export function isEraWarning(value: unknown): value is EraWarning {
  return (
    isJsonObject(value) &&
    value['type'] === 'deprecation' &&
    typeof value['verb'] === 'string' &&
    typeof value['message'] === 'string' &&
    typeof value['deprecated_at'] === 'string'
  );
}

/** The warnings an answer envelope carries in its `_x_warnings` extension (none: `[]`). */
export function warningsOf(envelope: Envelope): EraWarning[] {
  const list = envelope.extensions?.[WARNINGS_EXTENSION];
  if (!Array.isArray(list)) return [];
  const out: EraWarning[] = [];
  for (const item of list) if (isEraWarning(item)) out.push(item);
  return out;
}

/** `envelope` with `warnings` added to its `_x_warnings` extension (unchanged when there are none). */
export function withWarnings(envelope: Envelope, warnings: readonly EraWarning[]): Envelope {
  if (warnings.length === 0) return envelope;
  const list = warnings.map((w) => ({ ...w }));
  return { ...envelope, extensions: { ...(envelope.extensions ?? {}), [WARNINGS_EXTENSION]: list } };
}
