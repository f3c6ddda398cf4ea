/**
 * `plexus codegen --lang typescript` (seed 002 §12.1–12.2): from a manifest, one
 * dependency-free TypeScript module with the declared types, a map of every era's input and
 * output types, the eras' metadata, and a typed client. The client calls a node over HTTP
 * (ESRP `POST /v1/execute`) or through any transport function.
 */
import { PlexusError } from '../../../core/errors.js';
import type { JsonObject } from '../../../core/json.js';
import type { VerbSpec } from '../../../core/records/verb-spec.js';
import { eraKey } from './manifest-model.js';
import type { Manifest } from './manifest-model.js';
import { resolveStep } from './pipeline.js';
import { HTTP_CLIENT_SOURCE } from './ts-client-runtime.js';
import { jsDoc, tsType, typeDeclaration } from './ts-type-writer.js';

/** Global names the generated module uses; a declared type may not shadow them. */
export const GENERATED_GLOBALS = [
  'Promise',
  'Record',
  'Error',
  'Date',
  'JSON',
  'Object',
  'ReadonlyArray',
] as const;

interface VerbTree {
  era?: VerbSpec;
  children: Map<string, VerbTree>;
}

function buildTree(manifest: Manifest): VerbTree {
  const root: VerbTree = { children: new Map() };
  for (const name of new Set(manifest.verbs.map((v) => v.name))) {
    const era = resolveStep(manifest, name);
    if (typeof era === 'string') continue; // every era sunset: reachable through call() only
    let node = root;
    for (const segment of name.split('.')) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.era = era;
  }
  return root;
}

function eraDoc(spec: VerbSpec): string[] {
  const lines: string[] = [];
  if (spec.description !== undefined) lines.push(spec.description);
  lines.push(
    `\`${eraKey(spec.name, spec.version)}\` — ${spec.category}${spec.deterministic ? ', deterministic' : ''}.`,
  );
  const effects = Object.entries(spec.effects).map(([e, r]) => `${e}: ${r.join(', ')}`);
  if (effects.length > 0) lines.push(`Effects: ${effects.join('; ')}.`);
  if (spec.capabilities.length > 0) lines.push(`Capabilities: ${spec.capabilities.join(', ')}.`);
  if (spec.status !== 'stable' && spec.deprecation !== undefined) {
    const d = spec.deprecation;
    const parts = [`${spec.status} since ${d.deprecatedAt}`];
    if (d.sunsetAt !== undefined) parts.push(`sunset ${d.sunsetAt}`);
    if (d.replacement !== undefined) parts.push(`use ${d.replacement}`);
    if (d.migration !== undefined) parts.push(`see ${d.migration}`);
    lines.push(`@deprecated ${parts.join('; ')}`);
  }
  return lines;
}

function methodType(spec: VerbSpec): string {
  const k = JSON.stringify(eraKey(spec.name, spec.version));
  return `(input: PlexusVerbs[${k}]['input'], options?: PlexusCallOptions) => Promise<PlexusVerbs[${k}]['output']>`;
}

function treeType(node: VerbTree, indent: string): string {
  const inner = `${indent}  `;
  const lines = [...node.children].map(([segment, child]) => {
    const doc = child.era === undefined ? '' : jsDoc(eraDoc(child.era), inner);
    return `${doc}${inner}readonly ${segment}: ${nodeType(child, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function nodeType(node: VerbTree, indent: string): string {
  if (node.era === undefined) return treeType(node, indent);
  const fn = methodType(node.era);
  return node.children.size === 0 ? fn : `(${fn}) & ${treeType(node, indent)}`;
}

function treeValue(node: VerbTree, indent: string): string {
  const inner = `${indent}  `;
  const lines = [...node.children].map(
    ([segment, child]) => `${inner}${segment}: ${nodeValue(child, inner)},`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function nodeValue(node: VerbTree, indent: string): string {
  if (node.era === undefined) return treeValue(node, indent);
  const k = JSON.stringify(eraKey(node.era.name, node.era.version));
  const fn = `(input: PlexusVerbs[${k}]['input'], options?: PlexusCallOptions) => call(${k}, input, options)`;
  return node.children.size === 0 ? fn : `Object.assign(${fn}, ${treeValue(node, indent)})`;
}

function verbMetadata(spec: VerbSpec): JsonObject {
  return {
    name: spec.name,
    version: spec.version,
    status: spec.status,
    category: spec.category,
    deterministic: spec.deterministic,
    effects: spec.effects as JsonObject,
    capabilities: [...spec.capabilities],
    ...(spec.deprecation === undefined ? {} : { deprecation: spec.deprecation as unknown as JsonObject }),
  };
}

/** Options of {@link generateTypeScript}. */
export interface TypeScriptCodegenInit {
  /** The manifest's file name, for the header comment. @default manifest.file */
  readonly sourceName?: string;
}

/**
 * The TypeScript module for `manifest`. The manifest must have loaded without errors.
 *
 * @throws PlexusError `INVALID_PARAMS` when a declared type shadows a global the module uses
 *   (`details.types`).
 */
export function generateTypeScript(manifest: Manifest, init: TypeScriptCodegenInit = {}): string {
  const shadowing = Object.keys(manifest.types).filter((n) =>
    (GENERATED_GLOBALS as readonly string[]).includes(n),
  );
  if (shadowing.length > 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `cannot generate TypeScript: the type name(s) ${shadowing.join(', ')} would hide the global of the same name; rename them`,
      { details: { types: shadowing } },
    );
  }
  const out: string[] = [];
  out.push(
    `// Generated by \`plexus codegen --lang typescript\` from ${init.sourceName ?? manifest.file}.`,
    '// Do not edit: change the manifest and generate again. This module has no dependencies.',
    '',
  );
  if (manifest.description !== undefined || manifest.name !== undefined) {
    out.push(
      jsDoc([[manifest.name, manifest.description].filter((s) => s !== undefined).join(': ')], '').trimEnd(),
      '',
    );
    out.push(`export const PLEXUS_MANIFEST_NAME = ${JSON.stringify(manifest.name ?? null)};`, '');
  }
  for (const [name, schema] of Object.entries(manifest.types)) out.push(typeDeclaration(name, schema));
  out.push('/** Every era of every verb (`name@version`): its input and output types. */');
  out.push('export interface PlexusVerbs {');
  for (const spec of manifest.verbs) {
    out.push(jsDoc(eraDoc(spec), '  ').trimEnd());
    out.push(`  readonly ${JSON.stringify(eraKey(spec.name, spec.version))}: {`);
    out.push(`    readonly input: ${tsType(spec.input as JsonObject, '    ')};`);
    out.push(`    readonly output: ${tsType(spec.output as JsonObject, '    ')};`);
    out.push('  };');
  }
  out.push(
    '}',
    '',
    '/** An era key: `name@version`. */',
    'export type PlexusVerbKey = keyof PlexusVerbs;',
    '',
  );
  out.push('/** What the manifest says about each era: category, effects, capabilities, status. */');
  const meta = Object.fromEntries(manifest.verbs.map((v) => [eraKey(v.name, v.version), verbMetadata(v)]));
  out.push(`export const PLEXUS_VERBS = ${JSON.stringify(meta, null, 2)} as const;`, '');
  out.push(HTTP_CLIENT_SOURCE);
  const tree = buildTree(manifest);
  out.push(
    '/** The verbs of the manifest as methods; each calls the latest stable era of its verb. */',
    `export type PlexusVerbMethods = ${treeType(tree, '')};`,
    '',
    '/** A typed client: `verbs.<namespace>.<resource>.<action>(input)` or `call("name@version", input)`. */',
    'export interface PlexusClient {',
    '  /** Calls the era `key` with `input`. */',
    "  call<K extends PlexusVerbKey>(key: K, input: PlexusVerbs[K]['input'], options?: PlexusCallOptions): Promise<PlexusVerbs[K]['output']>;",
    '  /** One method per verb (latest stable era). */',
    '  readonly verbs: PlexusVerbMethods;',
    '}',
    '',
    '/**',
    ' * Creates a client that sends each call through `transport`, or over HTTP to a node when',
    ' * given `{url, token?}` (ESRP `POST /v1/execute`).',
    ' */',
    'export function createPlexusClient(transport: PlexusTransport | PlexusHttpInit): PlexusClient {',
    "  const send = typeof transport === 'function' ? transport : plexusHttpTransport(transport);",
    "  const call = <K extends PlexusVerbKey>(key: K, input: PlexusVerbs[K]['input'], options: PlexusCallOptions = {}): Promise<PlexusVerbs[K]['output']> => {",
    '    const era = (PLEXUS_VERBS as Readonly<Record<string, { readonly name: string; readonly version: number | string }>>)[key];',
    "    if (era === undefined) return Promise.reject(new PlexusClientError('UNKNOWN_VERB', `no era ${key} in this manifest`));",
    "    return send({ verb: era.name, version: era.version, input, options }) as Promise<PlexusVerbs[K]['output']>;",
    '  };',
    `  const verbs: PlexusVerbMethods = ${treeValue(tree, '  ')};`,
    '  return { call, verbs };',
    '}',
    '',
  );
  return out.join('\n');
}
