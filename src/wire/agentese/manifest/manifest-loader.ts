/**
 * Loads a verb manifest (docs/manifest.md) from YAML text: declared `types:` compiled to JSON
 * Schema, every era of every `verbs:` entry read into a core VerbSpec, and every problem
 * located by file, line and column. Pure: the caller reads the file.
 */
import { isMap, isScalar } from 'yaml';
import type { JsonObject } from '../../../core/json.js';
import { childPointer } from '../../../core/problem.js';
import { validateVerbSpec } from '../../../core/records/verb-spec.js';
import type { VerbSpec } from '../../../core/records/verb-spec.js';
import { JSON_SCHEMA_DIALECT } from '../../../core/schema-validator.js';
import { MANIFEST_FORMAT_VERSION } from './manifest-model.js';
import type { Manifest, ManifestLoad, SandboxLimits } from './manifest-model.js';
import { didYouMean, sortManifestProblems } from './problems.js';
import { checkDefaults, compileYamlType } from './schema-builder.js';
import type { SchemaBuildContext, SchemaLocation } from './schema-builder.js';
import { readVerb } from './verb-reader.js';
import type { EraDraft } from './verb-reader.js';
import { readManifestSource } from './yaml-source.js';
import type { Entry, ManifestSource } from './yaml-source.js';

/** The top-level keys of a manifest. */
export const MANIFEST_KEYS = ['manifest', 'name', 'description', 'types', 'verbs'] as const;

/** The pattern a declared type name matches (PascalCase; lower case is for built-ins). */
export const TYPE_NAME_PATTERN = /^[A-Z][A-Za-z0-9_]*$/;

/** The prefix reserved for names the code generator emits. */
export const RESERVED_TYPE_PREFIX = 'Plexus';

interface TypeGraph {
  /** Every declared type each type refers to. */
  readonly refs: Map<string, Set<string>>;
  /** The references made outside any list, map or object. */
  readonly unguarded: Map<string, Set<string>>;
}

function readTypeNames(source: ManifestSource, entries: readonly Entry[]): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    const at = childPointer('/types', entry.key);
    if (!TYPE_NAME_PATTERN.test(entry.key)) {
      source.report(
        at,
        entry.offset,
        `type name "${entry.key}" must start with an upper-case letter and hold only letters, digits and "_" (lower-case names are built-in types)`,
      );
    } else if (entry.key.startsWith(RESERVED_TYPE_PREFIX)) {
      source.report(
        at,
        entry.offset,
        `type names starting with "${RESERVED_TYPE_PREFIX}" are reserved for generated code`,
      );
    } else {
      names.add(entry.key);
    }
  }
  return names;
}

function reportCycles(source: ManifestSource, entries: readonly Entry[], graph: TypeGraph): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const reported = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name];
      const key = [...cycle].sort().join(',');
      if (reported.has(key)) return;
      reported.add(key);
      const entry = entries.find((e) => e.key === name);
      source.report(
        childPointer('/types', name),
        entry?.offset ?? 0,
        `type ${name} is defined in terms of itself with no list, map or object in between (${cycle.join(' → ')}), so no value can match it`,
      );
      return;
    }
    state.set(name, 'visiting');
    for (const next of graph.unguarded.get(name) ?? []) visit(next, [...path, name]);
    state.set(name, 'done');
  };
  for (const entry of entries) visit(entry.key, []);
}

function closure(roots: Iterable<string>, refs: Map<string, Set<string>>): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    stack.push(...(refs.get(name) ?? []));
  }
  return seen;
}

function emptyManifest(file: string): Manifest {
  return { file, types: {}, verbs: [], sandbox: {} };
}

/**
 * Loads the manifest in `text`; `file` names it in problems. Never throws for bad input:
 * every problem (YAML syntax, unknown fields, type errors, bad defaults, type cycles, …) is
 * in `problems`, sorted by position, and the manifest holds what could be read.
 */
export function loadManifest(text: string, file: string): ManifestLoad {
  const source = readManifestSource(text, file);
  const locations = new WeakMap<object, SchemaLocation>();
  const verbLocations = new Map<string, SchemaLocation>();
  const result = (manifest: Manifest): ManifestLoad => ({
    manifest,
    problems: sortManifestProblems(source.problems),
    locations: { schema: (s) => locations.get(s), verb: (k) => verbLocations.get(k) },
  });
  const root = source.resolve(source.doc.contents);
  if (root === undefined || (isScalar(root) && root.value === null)) {
    if (source.problems.length === 0)
      source.report('', 0, 'the manifest is empty; it needs at least "verbs:"');
    return result(emptyManifest(file));
  }
  if (!isMap(root)) {
    source.reportAt('', root, 'the manifest must be a mapping with "verbs:" (and "types:")');
    return result(emptyManifest(file));
  }
  const top = new Map<string, Entry>();
  for (const entry of source.entries(root)) {
    if (!(MANIFEST_KEYS as readonly string[]).includes(entry.key)) {
      source.report(
        childPointer('', entry.key),
        entry.offset,
        `unknown top-level key "${entry.key}"${didYouMean(entry.key, MANIFEST_KEYS) || `; a manifest has ${MANIFEST_KEYS.join(', ')}`}`,
      );
    } else {
      top.set(entry.key, entry);
    }
  }
  const format = top.get('manifest');
  if (format !== undefined && !(isScalar(format.value) && format.value.value === MANIFEST_FORMAT_VERSION)) {
    source.reportAt(
      '/manifest',
      format.value,
      `manifest must be ${MANIFEST_FORMAT_VERSION}, the only format this version reads`,
    );
  }
  const textOf = (key: 'name' | 'description'): string | undefined => {
    const entry = top.get(key);
    if (entry === undefined) return undefined;
    if (isScalar(entry.value) && typeof entry.value.value === 'string') return entry.value.value;
    source.reportAt(`/${key}`, entry.value, `${key} must be text`);
    return undefined;
  };
  const name = textOf('name');
  const description = textOf('description');

  const typesEntry = top.get('types');
  let typeEntries: Entry[] = [];
  if (typesEntry !== undefined && !(isScalar(typesEntry.value) && typesEntry.value.value === null)) {
    if (isMap(typesEntry.value)) typeEntries = source.entries(typesEntry.value);
    else source.reportAt('/types', typesEntry.value, 'types must be a mapping from type names to types');
  }
  const typeNames = readTypeNames(source, typeEntries);
  const graph: TypeGraph = { refs: new Map(), unguarded: new Map() };
  const ctx: SchemaBuildContext = {
    source,
    typeNames,
    locations,
    onReference: () => undefined,
    defaults: [],
  };
  const types: Record<string, JsonObject> = {};
  for (const entry of typeEntries) {
    if (!typeNames.has(entry.key)) continue;
    const refs = new Set<string>();
    const unguarded = new Set<string>();
    graph.refs.set(entry.key, refs);
    graph.unguarded.set(entry.key, unguarded);
    ctx.onReference = (ref, guarded) => {
      refs.add(ref);
      if (!guarded) unguarded.add(ref);
    };
    types[entry.key] = compileYamlType(entry.value, childPointer('/types', entry.key), ctx, 'type').schema;
  }
  reportCycles(source, typeEntries, graph);

  const verbsEntry = top.get('verbs');
  const eras: EraDraft[] = [];
  if (verbsEntry === undefined) {
    source.report('', 0, 'the manifest has no "verbs:"; declare at least one verb');
  } else if (isMap(verbsEntry.value)) {
    const seen = new Map<string, EraDraft>();
    for (const entry of source.entries(verbsEntry.value)) {
      for (const era of readVerb(source, ctx, entry, childPointer('/verbs', entry.key))) {
        if (seen.has(era.key)) {
          source.report(
            era.pointer,
            era.offset,
            `era ${era.key} is declared twice; give each era its own version`,
          );
          continue;
        }
        seen.set(era.key, era);
        eras.push(era);
      }
    }
    if (source.entries(verbsEntry.value).length === 0) {
      source.reportAt('/verbs', verbsEntry.value, 'the manifest declares no verbs', 'warning');
    }
  } else {
    source.reportAt('/verbs', verbsEntry.value, 'verbs must be a mapping from verb names to their fields');
  }
  checkDefaults(ctx, types);

  const used = closure(
    eras.flatMap((e) => [...e.inputRefs, ...e.outputRefs]),
    graph.refs,
  );
  for (const entry of typeEntries) {
    if (typeNames.has(entry.key) && !used.has(entry.key)) {
      source.report(
        childPointer('/types', entry.key),
        entry.offset,
        `type ${entry.key} is not used by any verb`,
        'warning',
      );
    }
  }
  const wrap = (schema: JsonObject, refs: ReadonlySet<string>): JsonObject => {
    const needed = [...closure(refs, graph.refs)].filter((n) => types[n] !== undefined).sort();
    const defs = Object.fromEntries(needed.map((n) => [n, types[n] as JsonObject]));
    const out: JsonObject = {
      $schema: JSON_SCHEMA_DIALECT,
      ...schema,
      ...(needed.length === 0 ? {} : { $defs: defs }),
    };
    const at = locations.get(schema);
    if (at !== undefined) locations.set(out, at);
    return out;
  };
  const eraNames = new Set(eras.map((e) => e.key));
  const hadErrors = source.problems.some((p) => p.severity === 'error');
  const verbs: VerbSpec[] = [];
  const sandbox: Record<string, SandboxLimits> = {};
  for (const era of eras) {
    const { inputRefs, outputRefs, offset, pointer, sandbox: limits, key, ...fields } = era;
    const spec: VerbSpec = {
      ...fields,
      input: wrap(era.input, inputRefs),
      output: wrap(era.output, outputRefs),
    };
    verbLocations.set(key, { file, ...source.position(offset), pointer });
    if (!hadErrors) {
      // A safety net: a manifest read without errors must give valid VerbSpecs.
      for (const p of validateVerbSpec(spec))
        source.report(pointer, offset, `${key}: ${p.pointer} ${p.message}`);
    }
    const replacement = era.deprecation?.replacement;
    if (replacement !== undefined && replacement.includes('@') && !eraNames.has(replacement)) {
      source.report(
        `${pointer}/replacement`,
        source.offsetOfPointer(`${pointer}/replacement`),
        `replacement ${replacement} is not declared in this manifest`,
        'warning',
      );
    }
    verbs.push(spec);
    if (limits !== undefined) sandbox[key] = limits;
  }
  return result({
    file,
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    types,
    verbs,
    sandbox,
  });
}
