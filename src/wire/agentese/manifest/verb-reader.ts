/**
 * Reads one entry of `verbs:` (docs/manifest.md) into its eras: a single era, or one per
 * item of `versions:` (each item inherits the verb's own fields and may override any).
 * Every problem is reported at its position; an era is returned only when it could be read.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import type { JsonObject } from '../../../core/json.js';
import { childPointer } from '../../../core/problem.js';
import type { Effects } from '../../../core/records/effects.js';
import { ERA_STATUSES, VERB_CATEGORIES } from '../../../core/records/verb-spec.js';
import type {
  EraStatus,
  ProjectionHints,
  VerbCategory,
  VerbDeprecation,
} from '../../../core/records/verb-spec.js';
import { parseVerbName, verbNameProblem, verbVersionProblem } from '../../../core/verb-name.js';
import type { VerbVersion } from '../../../core/verb-name.js';
import { eraKey } from './manifest-model.js';
import type { SandboxLimits } from './manifest-model.js';
import { didYouMean } from './problems.js';
import { compileYamlType } from './schema-builder.js';
import type { SchemaBuildContext } from './schema-builder.js';
import {
  readBoolean,
  readCapabilities,
  readChoice,
  readDate,
  readEffects,
  readProjection,
  readSandbox,
  readText,
} from './verb-fields.js';
import type { FieldRef } from './verb-fields.js';
import type { Entry, ManifestSource } from './yaml-source.js';
import { startOf } from './yaml-source.js';

/** The fields an era may carry. */
export const ERA_FIELDS = [
  'version',
  'status',
  'deprecated',
  'sunset',
  'migration',
  'replacement',
  'description',
  'input',
  'output',
  'effects',
  'capabilities',
  'category',
  'projection',
  'deterministic',
  'sandbox',
] as const;

/** One era as read, before its schemas get their `$defs`. */
export interface EraDraft {
  readonly name: string;
  readonly version: VerbVersion;
  readonly key: string;
  readonly status: EraStatus;
  readonly input: JsonObject;
  readonly output: JsonObject;
  readonly effects: Effects;
  readonly capabilities: readonly string[];
  readonly category: VerbCategory;
  readonly deterministic: boolean;
  readonly projection?: ProjectionHints;
  readonly deprecation?: VerbDeprecation;
  readonly description?: string;
  readonly sandbox?: SandboxLimits;
  /** Declared types the input uses directly. */
  readonly inputRefs: ReadonlySet<string>;
  /** Declared types the output uses directly. */
  readonly outputRefs: ReadonlySet<string>;
  /** Offset and pointer of the era's declaration. */
  readonly offset: number;
  readonly pointer: string;
}

type Fields = Map<string, FieldRef>;

function collectFields(
  source: ManifestSource,
  map: Node,
  pointer: string,
  allowed: readonly string[],
  into: Fields,
): void {
  if (!isMap(map)) return;
  for (const entry of source.entries(map)) {
    const at = childPointer(pointer, entry.key);
    if (!allowed.includes(entry.key)) {
      source.report(
        at,
        entry.offset,
        `unknown field "${entry.key}"${didYouMean(entry.key, allowed) || `; a verb takes ${allowed.join(', ')}`}`,
      );
      continue;
    }
    into.set(entry.key, { node: entry.value, pointer: at, keyOffset: entry.offset });
  }
}

function readVersion(source: ManifestSource, ref: FieldRef): VerbVersion | undefined {
  const value: unknown = isScalar(ref.node) ? ref.node.value : undefined;
  const problem = verbVersionProblem(value);
  if (problem === undefined) return value as VerbVersion;
  source.reportAt(ref.pointer, ref.node, `version: ${problem}`);
  return undefined;
}

function readDeprecation(
  source: ManifestSource,
  fields: Fields,
  status: EraStatus,
  at: { offset: number; pointer: string },
): VerbDeprecation | undefined {
  const get = (k: string): FieldRef | undefined => fields.get(k);
  const deprecatedRef = get('deprecated');
  const sunsetRef = get('sunset');
  const deprecatedAt = deprecatedRef && readDate(source, deprecatedRef, 'deprecated');
  const sunsetAt = sunsetRef && readDate(source, sunsetRef, 'sunset');
  const migrationRef = get('migration');
  const migration = migrationRef && readText(source, migrationRef, 'migration');
  const replacementRef = get('replacement');
  let replacement: string | undefined;
  if (replacementRef !== undefined) {
    const value: unknown = isScalar(replacementRef.node) ? replacementRef.node.value : undefined;
    const problem = verbNameProblem(value);
    if (problem === undefined) replacement = value as string;
    else source.reportAt(replacementRef.pointer, replacementRef.node, `replacement: ${problem}`);
  }
  if (status !== 'stable' && deprecatedRef === undefined) {
    source.report(
      at.pointer,
      at.offset,
      `status ${status} needs the date it was deprecated: add deprecated: YYYY-MM-DD`,
    );
  }
  if (status === 'sunset' && sunsetRef === undefined) {
    source.report(
      at.pointer,
      at.offset,
      'status sunset needs the date it stops being served: add sunset: YYYY-MM-DD',
    );
  }
  const anyGiven = [sunsetRef, migrationRef, replacementRef].find((r) => r !== undefined);
  if (deprecatedRef === undefined && anyGiven !== undefined) {
    source.report(
      anyGiven.pointer,
      anyGiven.keyOffset,
      'sunset, migration and replacement need a deprecation date: add deprecated: YYYY-MM-DD',
    );
  }
  if (deprecatedAt !== undefined && sunsetAt !== undefined && sunsetAt < deprecatedAt && sunsetRef) {
    source.reportAt(
      sunsetRef.pointer,
      sunsetRef.node,
      `sunset ${sunsetAt} is before deprecated ${deprecatedAt}`,
    );
  }
  if (deprecatedAt === undefined) return undefined;
  return {
    deprecatedAt,
    ...(sunsetAt === undefined ? {} : { sunsetAt }),
    ...(migration === undefined ? {} : { migration }),
    ...(replacement === undefined ? {} : { replacement }),
  };
}

const FREE_EFFECTS = new Set(['reads', 'emits', 'audits']);

function lintEra(source: ManifestSource, era: EraDraft, fields: Fields): void {
  const at = fields.get('effects') ?? fields.get('category');
  const touching = Object.keys(era.effects).filter((e) => !FREE_EFFECTS.has(e));
  if (era.category === 'query' && (era.effects.writes !== undefined || era.effects.deletes !== undefined)) {
    source.report(
      at?.pointer ?? era.pointer,
      at?.keyOffset ?? era.offset,
      `${era.key} is a query but declares ${era.effects.writes ? 'writes' : 'deletes'}; make it a mutation or drop the effect`,
      'warning',
    );
  }
  if (touching.length > 0 && era.capabilities.length === 0) {
    source.report(
      era.pointer,
      era.offset,
      `${era.key} declares ${touching.join(', ')} but requires no capability; add capabilities: [namespace:ability]`,
      'warning',
    );
  }
}

function readEra(
  source: ManifestSource,
  ctx: SchemaBuildContext,
  name: string,
  fields: Fields,
  version: VerbVersion | undefined,
  at: { offset: number; pointer: string },
): EraDraft | undefined {
  const inputRefs = new Set<string>();
  const outputRefs = new Set<string>();
  const schemaOf = (which: 'input' | 'output'): JsonObject | undefined => {
    const refs = which === 'input' ? inputRefs : outputRefs;
    ctx.onReference = (type) => refs.add(type);
    const ref = fields.get(which);
    if (ref === undefined) {
      const hint = which === 'input' ? '; write "input: {}" for a verb that takes nothing' : '';
      source.report(at.pointer, at.offset, `${name} has no ${which}${hint}`);
      return undefined;
    }
    return compileYamlType(ref.node, ref.pointer, ctx, 'type').schema;
  };
  const input = schemaOf('input');
  const output = schemaOf('output');
  const statusRef = fields.get('status');
  const status = statusRef ? readChoice(source, statusRef, 'status', ERA_STATUSES) : 'stable';
  const categoryRef = fields.get('category');
  if (categoryRef === undefined) {
    source.report(
      at.pointer,
      at.offset,
      `${name} has no category; add category: ${VERB_CATEGORIES.join(' | ')}`,
    );
  }
  const category = categoryRef && readChoice(source, categoryRef, 'category', VERB_CATEGORIES);
  const detRef = fields.get('deterministic');
  const deterministic = detRef ? readBoolean(source, detRef, 'deterministic') : false;
  const effectsRef = fields.get('effects');
  const effects = effectsRef ? readEffects(source, effectsRef) : {};
  const capRef = fields.get('capabilities');
  const capabilities = capRef ? readCapabilities(source, capRef) : [];
  const projRef = fields.get('projection');
  const projection = projRef && readProjection(source, projRef);
  const sandboxRef = fields.get('sandbox');
  const sandbox = sandboxRef && readSandbox(source, sandboxRef);
  const descRef = fields.get('description');
  const description = descRef && readText(source, descRef, 'description');
  const deprecation = readDeprecation(source, fields, status ?? 'stable', at);
  if (version === undefined && !fields.has('version')) {
    source.report(
      at.pointer,
      at.offset,
      `${name} has no version; add version: 1 (an integer era or YYYY-MM)`,
    );
  }
  if (
    version === undefined ||
    input === undefined ||
    output === undefined ||
    status === undefined ||
    category === undefined ||
    deterministic === undefined
  ) {
    return undefined;
  }
  const era: EraDraft = {
    name,
    version,
    key: eraKey(name, version),
    status,
    input,
    output,
    effects,
    capabilities,
    category,
    deterministic,
    ...(projection === undefined ? {} : { projection }),
    ...(deprecation === undefined ? {} : { deprecation }),
    ...(description === undefined ? {} : { description }),
    ...(sandbox === undefined ? {} : { sandbox }),
    inputRefs,
    outputRefs,
    ...at,
  };
  lintEra(source, era, fields);
  return era;
}

/**
 * Reads the verb entry `entry` (under `verbs:`, at `pointer`) into its eras, reporting every
 * problem. The entry's key is the verb name, optionally with `@version`.
 */
export function readVerb(
  source: ManifestSource,
  ctx: SchemaBuildContext,
  entry: Entry,
  pointer: string,
): EraDraft[] {
  const nameProblem = verbNameProblem(entry.key);
  if (nameProblem !== undefined) {
    source.report(pointer, entry.offset, nameProblem);
    return [];
  }
  const parsed = parseVerbName(entry.key);
  if (!isMap(entry.value)) {
    source.report(
      pointer,
      startOf(entry.value) || entry.offset,
      `verb ${entry.key} must be a mapping of its fields`,
    );
    return [];
  }
  const shared: Fields = new Map();
  collectFields(source, entry.value, pointer, [...ERA_FIELDS, 'versions'], shared);
  const versionsRef = shared.get('versions');
  shared.delete('versions');
  const keyVersionCheck = (fields: Fields, own: VerbVersion | undefined): VerbVersion | undefined => {
    const ref = fields.get('version');
    const fieldVersion = ref && readVersion(source, ref);
    if (own !== undefined && fieldVersion !== undefined && own !== fieldVersion && ref) {
      source.reportAt(
        ref.pointer,
        ref.node,
        `version ${String(fieldVersion)} differs from the @${String(own)} in the verb's name; keep one of them`,
      );
    }
    return own ?? fieldVersion;
  };
  if (versionsRef === undefined) {
    const version = keyVersionCheck(shared, parsed.version);
    const era = readEra(source, ctx, parsed.name, shared, version, { offset: entry.offset, pointer });
    return era === undefined ? [] : [era];
  }
  if (parsed.version !== undefined || shared.has('version')) {
    source.report(
      pointer,
      entry.offset,
      `verb ${entry.key} lists versions:, so it takes no version of its own`,
    );
  }
  shared.delete('version');
  if (!isSeq(versionsRef.node) || versionsRef.node.items.length === 0) {
    source.reportAt(
      versionsRef.pointer,
      versionsRef.node,
      'versions must be a non-empty list of eras, each with era: N',
    );
    return [];
  }
  const eras: EraDraft[] = [];
  versionsRef.node.items.forEach((raw, i) => {
    const item = source.resolve(raw);
    const at = childPointer(versionsRef.pointer, i);
    if (!isMap(item)) {
      source.reportAt(
        at,
        item,
        'each item of versions must be a mapping with era: N and the fields it changes',
      );
      return;
    }
    const own: Fields = new Map();
    collectFields(source, item, at, [...ERA_FIELDS, 'era'], own);
    const eraRef = own.get('era');
    if (eraRef !== undefined) {
      if (own.has('version'))
        source.report(eraRef.pointer, eraRef.keyOffset, 'give era or version, not both');
      own.set('version', eraRef);
      own.delete('era');
    }
    const fields: Fields = new Map([...shared, ...own]);
    const version = keyVersionCheck(own, undefined);
    const era = readEra(source, ctx, parsed.name, fields, version, { offset: startOf(item), pointer: at });
    if (era !== undefined) eras.push(era);
  });
  return eras;
}
