/**
 * Generates JSON values that match a JSON Schema (2020-12), deterministically from a seed —
 * the heart of `plexus mock` (seed 002 §1.3 "single source of truth generates … mocks",
 * §12.1). It reads what the schema language compiles to (docs/schema-language.md) and the
 * common rest of JSON Schema:
 *
 * - `const`, `enum`, `type` (one or a list), `anyOf` / `oneOf` (one branch), `allOf` (merged),
 *   local `$ref`s (`#`, `#/$defs/…`, any JSON pointer into the root);
 * - objects: every required property, optional ones at random, extra keys when
 *   `additionalProperties` is a schema (maps), `minProperties` / `maxProperties`;
 * - arrays: `items`, `prefixItems`, `minItems` / `maxItems`, `uniqueItems`;
 * - numbers and integers: `minimum` / `maximum` (and exclusive), `multipleOf`;
 * - strings: lengths, formats, base64 content, patterns (see `sample-string.ts`).
 *
 * Recursive types are cut off: past `maxDepth` nested values, the generator writes the
 * smallest value (no optional properties, the fewest items, a `null` branch when there is one).
 * {@link sampleMatching} checks each value with Ajv and draws again when one misses (a schema
 * with `not`, `if`, overlapping `oneOf` branches, …), so what it returns always validates.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { summarizeProblems, type JsonSchema, type SchemaValidator } from '../../core/schema-validator.js';
import { MOCK_WORDS, sampleString, sampleText } from './sample-string.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

/** Options of {@link sampleSchema}. */
export interface SampleInit {
  /** Nesting depth past which the smallest value is written. @default 4 */
  readonly maxDepth?: number;
}

/** The default of {@link SampleInit.maxDepth}. */
export const DEFAULT_SAMPLE_DEPTH = 4;
/** Nesting beyond which generation gives up (a schema with no finite value). */
export const HARD_DEPTH_LIMIT = 64;
/** How many values {@link sampleMatching} draws before it gives up. */
export const SAMPLE_ATTEMPTS = 8;

type Schema = Readonly<Record<string, unknown>>;

const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
type TypeName = (typeof TYPES)[number];

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(schema: Schema, key: string): number | undefined {
  const v = schema[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function unsatisfiable(message: string, pointer: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', `the mock cannot generate a value: ${message}`, {
    details: { pointer },
  });
}

function resolveRef(root: JsonSchema, ref: string, at: string): JsonSchema {
  if (!ref.startsWith('#')) {
    throw unsatisfiable(`only local $refs (#/…) are supported, got ${JSON.stringify(ref)}`, at);
  }
  let node: unknown = root;
  const path = decodeURIComponent(ref.slice(1));
  if (path !== '') {
    for (const raw of path.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isSchemaObject(node)
        ? node[key]
        : Array.isArray(node)
          ? (node as unknown[])[Number(key)]
          : undefined;
    }
  }
  if (typeof node !== 'boolean' && !isSchemaObject(node)) {
    throw unsatisfiable(`$ref ${JSON.stringify(ref)} points at nothing`, at);
  }
  return node;
}

/** Merges two schemas for generation: keywords of `b` win, except properties and required, which unite. */
function merge(a: Schema, b: Schema): Schema {
  const out: Record<string, unknown> = { ...a, ...b };
  if (isSchemaObject(a['properties']) && isSchemaObject(b['properties'])) {
    out['properties'] = { ...a['properties'], ...b['properties'] };
  }
  if (Array.isArray(a['required']) && Array.isArray(b['required'])) {
    out['required'] = [...new Set([...(a['required'] as unknown[]), ...(b['required'] as unknown[])])];
  }
  return out;
}

function inferTypes(schema: Schema): readonly TypeName[] {
  const t = schema['type'];
  if (typeof t === 'string') return (TYPES as readonly string[]).includes(t) ? [t as TypeName] : [];
  if (Array.isArray(t)) return t.filter((x): x is TypeName => (TYPES as readonly unknown[]).includes(x));
  const has = (...keys: string[]): boolean => keys.some((k) => k in schema);
  if (has('properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties'))
    return ['object'];
  if (has('items', 'prefixItems', 'minItems', 'maxItems', 'contains')) return ['array'];
  if (has('minLength', 'maxLength', 'pattern', 'format', 'contentEncoding')) return ['string'];
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return ['number'];
  return [];
}

/** The cheapest branch of a union for the smallest value: `null` first, then one with no `$ref`. */
function cheapest(branches: readonly JsonSchema[]): JsonSchema {
  const isNull = (s: JsonSchema): boolean =>
    isSchemaObject(s) && (s['type'] === 'null' || s['const'] === null);
  return (
    branches.find(isNull) ??
    branches.find(
      (s) => isSchemaObject(s) && !('$ref' in s) && s['type'] !== 'object' && s['type'] !== 'array',
    ) ??
    branches.find((s) => !(isSchemaObject(s) && '$ref' in s)) ??
    (branches[0] as JsonSchema)
  );
}

/** Generates values of one root schema. */
function generator(root: JsonSchema, init: SampleInit) {
  const maxDepth = init.maxDepth ?? DEFAULT_SAMPLE_DEPTH;

  const value = (
    schema: JsonSchema,
    random: SeededRandom,
    depth: number,
    at: string,
    hops = 0,
  ): JsonValue => {
    if (hops > HARD_DEPTH_LIMIT || depth > HARD_DEPTH_LIMIT)
      throw unsatisfiable('the schema nests without end (no finite value)', at);
    if (schema === true) return any(random, depth >= maxDepth);
    if (schema === false) throw unsatisfiable('the schema is false (no value matches)', at);
    const minimal = depth >= maxDepth;
    if ('const' in schema) return schema['const'] as JsonValue;
    if (typeof schema['$ref'] === 'string') {
      const { $ref, ...rest } = schema;
      const target = resolveRef(root, $ref, at);
      if (typeof target === 'boolean') return value(target, random, depth, at, hops + 1);
      return value(merge(target, rest), random, depth, at, hops + 1);
    }
    if (Array.isArray(schema['allOf']) && schema['allOf'].length > 0) {
      const { allOf, ...rest } = schema;
      let merged: Schema = rest;
      for (const part of allOf as JsonSchema[]) {
        if (part === false) throw unsatisfiable('allOf holds false', at);
        if (part === true) continue;
        const resolved = typeof part['$ref'] === 'string' ? resolveRef(root, part['$ref'], at) : part;
        if (resolved === false) throw unsatisfiable('allOf holds a $ref to false', at);
        if (resolved !== true) merged = merge(merged, resolved);
      }
      return value(merged, random, depth, at, hops + 1);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches) && branches.length > 0) {
        const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== key));
        const list = branches as JsonSchema[];
        const branch = minimal ? cheapest(list) : random.pick(list);
        if (typeof branch === 'boolean') return value(branch, random, depth, at, hops + 1);
        return value(merge(rest, branch), random, depth, at, hops + 1);
      }
    }
    const types = inferTypes(schema);
    if (Array.isArray(schema['enum'])) {
      const options = (schema['enum'] as JsonValue[]).filter(
        (v) => types.length === 0 || types.some((t) => isOfType(v, t)),
      );
      if (options.length === 0) throw unsatisfiable('no enum value has the declared type', at);
      return random.pick(options);
    }
    if (types.length === 0) return any(random, minimal);
    const type: TypeName =
      minimal && types.includes('null')
        ? 'null'
        : types.length > 1 && types.includes('null') && random.chance(0.8)
          ? random.pick(types.filter((t) => t !== 'null'))
          : random.pick(types);
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return random.chance(0.5);
      case 'integer':
        return integer(schema, random, at);
      case 'number':
        return number(schema, random, at);
      case 'string':
        return sampleString(schema, random);
      case 'array':
        return array(schema, random, depth, at);
      case 'object':
        return object(schema, random, depth, at);
    }
  };

  const array = (schema: Schema, random: SeededRandom, depth: number, at: string): JsonValue[] => {
    const minimal = depth >= maxDepth;
    const prefix = Array.isArray(schema['prefixItems']) ? (schema['prefixItems'] as JsonSchema[]) : [];
    const items = schema['items'] === undefined ? true : (schema['items'] as JsonSchema);
    const lo = num(schema, 'minItems') ?? 0;
    const openHi = items === false ? prefix.length : Number.MAX_SAFE_INTEGER;
    const hi = Math.min(num(schema, 'maxItems') ?? openHi, openHi);
    if (hi < lo) throw unsatisfiable(`minItems ${lo} exceeds the items allowed (${hi})`, at);
    const count = minimal ? lo : random.int(Math.max(lo, Math.min(hi, 1)), Math.min(hi, lo + 3));
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const itemSchema = i < prefix.length ? (prefix[i] as JsonSchema) : items;
      let item = value(itemSchema, random, depth + 1, `${at}/${i}`);
      if (schema['uniqueItems'] === true) {
        for (let tries = 0; seen.has(key(item)) && tries < 16; tries++) {
          item = value(itemSchema, random, Math.min(depth + 1, maxDepth - 1), `${at}/${i}`);
        }
        if (seen.has(key(item))) {
          if (out.length >= lo) break;
          throw unsatisfiable(`cannot find ${lo} distinct items`, at);
        }
        seen.add(key(item));
      }
      out.push(item);
    }
    return out;
  };

  const object = (schema: Schema, random: SeededRandom, depth: number, at: string): JsonObject => {
    const minimal = depth >= maxDepth;
    const properties = isSchemaObject(schema['properties'])
      ? (schema['properties'] as Record<string, JsonSchema>)
      : {};
    const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
    const additional = schema['additionalProperties'];
    const extraSchema: JsonSchema | undefined =
      additional === undefined
        ? Object.keys(properties).length === 0 && !('properties' in schema)
          ? true
          : undefined
        : additional === false
          ? undefined
          : (additional as JsonSchema);
    const maxProps = num(schema, 'maxProperties') ?? Number.MAX_SAFE_INTEGER;
    const minProps = num(schema, 'minProperties') ?? 0;
    const out: Record<string, JsonValue> = {};
    const child = (name: string): string => `${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    for (const name of required) {
      const s = properties[name] ?? extraSchema ?? true;
      out[name] = value(s, random, depth + 1, child(name));
    }
    for (const [name, s] of Object.entries(properties)) {
      if (required.has(name) || minimal || Object.keys(out).length >= maxProps) continue;
      if (random.chance(0.6)) out[name] = value(s, random, depth + 1, child(name));
    }
    if (extraSchema !== undefined && extraSchema !== false) {
      const isMap = Object.keys(properties).length === 0;
      const wanted = Math.max(
        minProps - Object.keys(out).length,
        minimal ? 0 : random.int(isMap ? 1 : 0, isMap ? 3 : 1),
      );
      for (let i = 0, n = 1; i < wanted && Object.keys(out).length < maxProps; n++) {
        const name = `${random.pick(MOCK_WORDS)}_${String(n)}`;
        if (name in out || name in properties) continue;
        out[name] = value(extraSchema, random, depth + 1, child(name));
        i++;
      }
    }
    for (const [name, s] of Object.entries(properties)) {
      if (Object.keys(out).length >= minProps) break;
      if (!(name in out)) out[name] = value(s, random, depth + 1, child(name));
    }
    return out;
  };

  return (schema: JsonSchema, random: SeededRandom): JsonValue => value(schema, random, 0, '');
}

function key(value: JsonValue): string {
  try {
    return canonicalizeJcs(value);
  } catch {
    return JSON.stringify(value);
  }
}

function isOfType(value: JsonValue, type: TypeName): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isSchemaObject(value);
  }
}

function any(random: SeededRandom, minimal: boolean): JsonValue {
  if (minimal) return null;
  switch (random.int(0, 3)) {
    case 0:
      return sampleText(random, { min: 3, max: 16 }, false);
    case 1:
      return random.int(0, 1000);
    case 2:
      return random.chance(0.5);
    default:
      return null;
  }
}

function bounds(schema: Schema, integer: boolean, at: string): { lo: number; hi: number } {
  const step = integer ? 1 : 0;
  const minimum = num(schema, 'minimum');
  const exMin = num(schema, 'exclusiveMinimum');
  const maximum = num(schema, 'maximum');
  const exMax = num(schema, 'exclusiveMaximum');
  let lo = Math.max(minimum ?? -Infinity, exMin === undefined ? -Infinity : exMin + step);
  let hi = Math.min(maximum ?? Infinity, exMax === undefined ? Infinity : exMax - step);
  if (lo === -Infinity && hi === Infinity) [lo, hi] = [0, 1000];
  else if (lo === -Infinity) lo = hi - 1000;
  else if (hi === Infinity) hi = lo + 1000;
  if (integer) [lo, hi] = [Math.ceil(lo), Math.floor(hi)];
  lo = Math.max(lo, -Number.MAX_SAFE_INTEGER);
  hi = Math.min(hi, Number.MAX_SAFE_INTEGER);
  if (hi < lo) throw unsatisfiable(`no ${integer ? 'integer' : 'number'} lies between the bounds`, at);
  return { lo, hi };
}

function integer(schema: Schema, random: SeededRandom, at: string): number {
  const { lo, hi } = bounds(schema, true, at);
  const m = num(schema, 'multipleOf');
  if (m !== undefined && m > 0) {
    const [k0, k1] = [Math.ceil(lo / m), Math.floor(hi / m)];
    if (k1 < k0) throw unsatisfiable(`no multiple of ${m} lies between the bounds`, at);
    return random.int(k0, k1) * m;
  }
  return random.int(lo, hi);
}

function number(schema: Schema, random: SeededRandom, at: string): number {
  const { lo, hi } = bounds(schema, false, at);
  const m = num(schema, 'multipleOf');
  if (m !== undefined && m > 0) {
    const [k0, k1] = [Math.ceil(lo / m), Math.floor(hi / m)];
    if (k1 < k0) throw unsatisfiable(`no multiple of ${m} lies between the bounds`, at);
    return random.int(k0, k1) * m;
  }
  const inside = (x: number): boolean =>
    x >= lo && x <= hi && x !== num(schema, 'exclusiveMinimum') && x !== num(schema, 'exclusiveMaximum');
  const raw = lo + random.next() * (hi - lo);
  const rounded = Math.round(raw * 100) / 100;
  if (inside(rounded)) return rounded;
  if (inside(raw)) return raw;
  return (lo + hi) / 2;
}

/**
 * One value generated from `schema` with `random` (best effort: see the module comment).
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.pointer` when the schema admits no value
 *   the generator can write (`false`, an unresolvable or remote `$ref`, contradictory bounds,
 *   an unsupported pattern, endless nesting).
 */
export function sampleSchema(schema: JsonSchema, random: SeededRandom, init: SampleInit = {}): JsonValue {
  return generator(schema, init)(schema, random);
}

/**
 * A value that matches `schema`, drawn deterministically from `seed`: the same seed always
 * gives the same value. Each draw is checked with `validator`; up to {@link SAMPLE_ATTEMPTS}
 * draws are made.
 *
 * @throws PlexusError `INVALID_PARAMS` as {@link sampleSchema}, or when no draw matched (the
 *   message names the problems of the last draw).
 * @example
 * sampleMatching({ type: 'string', format: 'uuid' }, 'seed', schemaValidator());
 */
export function sampleMatching(
  schema: JsonSchema,
  seed: string,
  validator: SchemaValidator,
  init: SampleInit = {},
): JsonValue {
  let last = '';
  for (let attempt = 0; attempt < SAMPLE_ATTEMPTS; attempt++) {
    const candidate = sampleSchema(schema, seededRandom(`${seed}#${String(attempt)}`), init);
    const problems = validator.validate(schema, candidate);
    if (problems.length === 0) return candidate;
    last = summarizeProblems(problems);
  }
  throw new PlexusError(
    'INVALID_PARAMS',
    `the mock could not generate a value matching the schema in ${String(SAMPLE_ATTEMPTS)} attempts: ${last}`,
  );
}
