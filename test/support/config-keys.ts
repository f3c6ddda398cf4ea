/**
 * The keys `plexus.yaml` accepts, read from its zod schema (`src/node/config-schema.ts`): the
 * keys of one mapping, and every key path of the file. Used by the tests that hold the README
 * reference and docs/config.md to the schema.
 *
 * Paths are dotted, with `[]` for the items of a list (`auth.apiKeys[].hash`). Mappings whose
 * keys are the user's own names (records: prices, tenants, policies, verbs, groups) end a path.
 * A key typed `never` is a forbidden key (a worker's `children`), not a known one.
 */
import type { z } from 'zod';
import { nodeConfigFileSchema } from '../../src/node/config-schema.js';

type Schema = z.core.$ZodType;
type Def = { type: string } & Record<string, unknown>;

const defOf = (s: Schema): Def => s._zod.def as unknown as Def;

/** The schema under wrappers that do not change which keys are accepted. */
function unwrap(schema: Schema): Schema {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (
      def.type === 'optional' ||
      def.type === 'default' ||
      def.type === 'readonly' ||
      def.type === 'nullable'
    )
      s = def['innerType'] as Schema;
    else if (def.type === 'pipe') s = def['in'] as Schema;
    else if (def.type === 'lazy') s = (def['getter'] as () => Schema)();
    else return s;
  }
}

/** The keys an object schema accepts (not those typed `never`). */
function objectKeys(schema: Schema): string[] {
  const shape = defOf(schema)['shape'] as Record<string, Schema>;
  return Object.keys(shape).filter((k) => defOf(unwrap(shape[k] as Schema)).type !== 'never');
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object branch of a union that `value` is written for: every required key present, most required keys. */
function branchFor(schema: Schema, value: unknown): Schema | undefined {
  const options = (defOf(schema)['options'] as Schema[])
    .map(unwrap)
    .filter((o) => defOf(o).type === 'object');
  const fitting = options
    .map((o) => {
      const shape = defOf(o)['shape'] as Record<string, Schema>;
      const required = Object.keys(shape).filter(
        (k) => !['optional', 'default'].includes(defOf(shape[k] as Schema).type),
      );
      return { o, required };
    })
    .filter(({ required }) => isMapping(value) && required.every((k) => k in value))
    .sort((a, b) => b.required.length - a.required.length);
  return fitting[0]?.o;
}

/**
 * The keys the schema accepts for the mapping at `path` in `config` (a parsed `plexus.yaml`):
 * the path is walked in the value and the schema together, so a union takes the branch the
 * value is written for.
 */
export function schemaKeysAt(config: unknown, path: readonly (string | number)[]): string[] {
  let schema = unwrap(nodeConfigFileSchema);
  let value: unknown = config;
  for (const step of path) {
    if (defOf(schema).type === 'union') schema = unwrap(branchFor(schema, value) ?? schema);
    const def = defOf(schema);
    if (def.type === 'object')
      schema = unwrap((def['shape'] as Record<string, Schema>)[String(step)] as Schema);
    else if (def.type === 'array') schema = unwrap(def['element'] as Schema);
    else throw new Error(`the schema has no mapping at ${path.join('.')}`);
    value = (value as Record<string | number, unknown>)[step];
  }
  if (defOf(schema).type === 'union') schema = unwrap(branchFor(schema, value) ?? schema);
  if (defOf(schema).type !== 'object') throw new Error(`the schema has no mapping at ${path.join('.')}`);
  return objectKeys(schema).sort();
}

/** Every key path of the schema, and the paths of its free-form mappings (records). */
export function schemaKeyPaths(): { paths: Set<string>; records: Set<string> } {
  const paths = new Set<string>();
  const records = new Set<string>();
  const walk = (schema: Schema, at: string, seen: ReadonlySet<Schema>): void => {
    if (seen.has(schema)) return;
    const inner = new Set([...seen, schema]);
    const s = unwrap(schema);
    const def = defOf(s);
    if (def.type === 'object') {
      for (const key of objectKeys(s)) {
        const path = at === '' ? key : `${at}.${key}`;
        paths.add(path);
        walk((def['shape'] as Record<string, Schema>)[key] as Schema, path, inner);
      }
    } else if (def.type === 'array') walk(def['element'] as Schema, `${at}[]`, inner);
    else if (def.type === 'union') for (const o of def['options'] as Schema[]) walk(o, at, inner);
    else if (def.type === 'record') records.add(at);
  };
  walk(nodeConfigFileSchema, '', new Set());
  return { paths, records };
}

/** Every key path written in a parsed `plexus.yaml`, not entering free-form mappings. */
export function documentKeyPaths(value: unknown, records: ReadonlySet<string>, at = ''): Set<string> {
  const out = new Set<string>();
  if (records.has(at)) return out;
  if (Array.isArray(value)) {
    for (const item of value) for (const p of documentKeyPaths(item, records, `${at}[]`)) out.add(p);
  } else if (isMapping(value)) {
    for (const [key, v] of Object.entries(value)) {
      const path = at === '' ? key : `${at}.${key}`;
      out.add(path);
      for (const p of documentKeyPaths(v, records, path)) out.add(p);
    }
  }
  return out;
}
