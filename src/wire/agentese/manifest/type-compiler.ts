/**
 * Compiles a parsed type expression (docs/schema-language.md) to JSON Schema 2020-12:
 * built-in names to their schemas, declared type names to `$ref: "#/$defs/<Name>"`,
 * `enum[...]`, `vector[N]`, `list[T]` / `T[]`, `map[T]`, ranges and unions. Problems (unknown
 * names, out-of-width bounds, duplicate enum values, …) go to the context, each at the offset
 * of the offending token.
 */
import type { JsonObject } from '../../../core/json.js';
import { CID_SCHEMA } from '../../../core/records/schema-parts.js';
import { didYouMean } from './problems.js';
import type { ManifestSeverity } from './problems.js';
import type { TypeNode } from './type-syntax.js';

/** What a built-in type's range constrains. */
type RangeKind = 'integer' | 'number' | 'length' | 'none';

interface Builtin {
  readonly schema: JsonObject;
  readonly range: RangeKind;
  /** Inclusive bounds of an integer width. */
  readonly bounds?: readonly [number, number];
}

const int = (min: number, max: number): Builtin => ({
  schema: { type: 'integer', minimum: min, maximum: max },
  range: 'integer',
  bounds: [min, max],
});
const NUMBER: Builtin = { schema: { type: 'number' }, range: 'number' };
const INTEGER: Builtin = { schema: { type: 'integer' }, range: 'integer' };
const BOOLEAN: Builtin = { schema: { type: 'boolean' }, range: 'none' };
const format = (name: string): Builtin => ({ schema: { type: 'string', format: name }, range: 'none' });

/** The built-in type names and the JSON Schema each compiles to. */
export const BUILTIN_TYPES: Readonly<Record<string, Builtin>> = {
  string: { schema: { type: 'string' }, range: 'length' },
  boolean: BOOLEAN,
  bool: BOOLEAN,
  integer: INTEGER,
  int: INTEGER,
  number: NUMBER,
  float: NUMBER,
  float32: NUMBER,
  float64: NUMBER,
  null: { schema: { type: 'null' }, range: 'none' },
  any: { schema: {}, range: 'none' },
  uuid: format('uuid'),
  datetime: format('date-time'),
  date: format('date'),
  url: format('uri'),
  email: format('email'),
  cid: { schema: { ...CID_SCHEMA }, range: 'none' },
  bytes: {
    schema: { type: 'string', contentEncoding: 'base64', pattern: '^[A-Za-z0-9+/]*={0,2}$' },
    range: 'none',
  },
  int8: int(-128, 127),
  int16: int(-32768, 32767),
  int32: int(-2147483648, 2147483647),
  int64: INTEGER,
  uint8: int(0, 255),
  uint16: int(0, 65535),
  uint32: int(0, 4294967295),
  uint64: { schema: { type: 'integer', minimum: 0 }, range: 'integer', bounds: [0, Infinity] },
};

/** What the compiler needs from its caller. */
export interface TypeCompileContext {
  /** The names declared under `types:`. */
  readonly typeNames: ReadonlySet<string>;
  /** Reports a problem at `offset` (relative to the expression text). */
  problem(offset: number, message: string, severity?: ManifestSeverity): void;
  /** Records where in the expression a compiled schema came from. */
  mark(schema: JsonObject, offset: number): void;
  /** Called for every declared type referenced; `guarded` is false outside any list, map or object. */
  reference(name: string, guarded: boolean): void;
}

/** The `$ref` a declared type compiles to. */
export function typeRef(name: string): string {
  return `#/$defs/${name}`;
}

function rangeKindOf(node: TypeNode, ctx: TypeCompileContext): { kind: RangeKind | 'items'; what: string } {
  switch (node.kind) {
    case 'name': {
      const builtin = BUILTIN_TYPES[node.name];
      if (builtin !== undefined) return { kind: builtin.range, what: node.name };
      return {
        kind: 'none',
        what: ctx.typeNames.has(node.name) ? `the declared type ${node.name}` : node.name,
      };
    }
    case 'list':
      return { kind: 'items', what: 'a list' };
    case 'range':
      return { kind: 'none', what: 'a type that already has a range' };
    default:
      return { kind: 'none', what: node.kind === 'union' ? 'a union' : `${node.kind}[...]` };
  }
}

function applyRange(
  node: Extract<TypeNode, { kind: 'range' }>,
  base: JsonObject,
  ctx: TypeCompileContext,
): JsonObject {
  const { kind, what } = rangeKindOf(node.base, ctx);
  const { min, max } = node;
  const at = node.base.end;
  if (kind === 'none') {
    ctx.problem(
      at,
      `a range applies to numbers, integers, string (length) and lists (item count), not ${what}`,
    );
    return base;
  }
  if (min !== undefined && max !== undefined && min > max) {
    ctx.problem(at, `the range [${min}..${max}] is empty: the lower bound is above the upper bound`);
  }
  const out: Record<string, unknown> = { ...base };
  if (kind === 'number') {
    if (min !== undefined) out['minimum'] = min;
    if (max !== undefined) out['maximum'] = max;
    return out as JsonObject;
  }
  for (const bound of [min, max]) {
    if (bound !== undefined && !Number.isSafeInteger(bound)) {
      ctx.problem(at, `the bounds of ${what} must be integers, got ${bound}`);
      return base;
    }
  }
  if (kind === 'integer') {
    const width = node.base.kind === 'name' ? BUILTIN_TYPES[node.base.name]?.bounds : undefined;
    if (width !== undefined) {
      for (const bound of [min, max]) {
        if (bound !== undefined && (bound < width[0] || bound > width[1])) {
          const hi = width[1] === Infinity ? '' : String(width[1]);
          ctx.problem(at, `${bound} is outside ${what} (${width[0]}..${hi}); widen the type or the bound`);
        }
      }
    }
    if (min !== undefined) out['minimum'] = min;
    if (max !== undefined) out['maximum'] = max;
    return out as JsonObject;
  }
  if ((min ?? 0) < 0) ctx.problem(at, `a ${kind === 'length' ? 'length' : 'item count'} cannot be negative`);
  const [lo, hi] = kind === 'length' ? ['minLength', 'maxLength'] : ['minItems', 'maxItems'];
  if (min !== undefined) out[lo] = min;
  if (max !== undefined) out[hi] = max;
  return out as JsonObject;
}

function compileName(node: Extract<TypeNode, { kind: 'name' }>, ctx: TypeCompileContext, guarded: boolean) {
  const builtin = BUILTIN_TYPES[node.name];
  if (builtin !== undefined) return { ...builtin.schema };
  if (ctx.typeNames.has(node.name)) {
    ctx.reference(node.name, guarded);
    return { $ref: typeRef(node.name) };
  }
  const all = [...Object.keys(BUILTIN_TYPES), ...ctx.typeNames];
  const hint = didYouMean(node.name, all);
  const declared = /^[A-Z]/.test(node.name)
    ? `declare it under "types:"`
    : `built-in types are ${Object.keys(BUILTIN_TYPES).join(', ')}`;
  ctx.problem(node.start, `unknown type "${node.name}"${hint || `; ${declared}`}`);
  return {};
}

/**
 * Compiles `node` to a JSON Schema object. `guarded` says whether the node sits inside a
 * list, map or object (so a reference to a type being defined is a legal recursion).
 */
export function compileTypeNode(node: TypeNode, ctx: TypeCompileContext, guarded = false): JsonObject {
  let schema: JsonObject;
  switch (node.kind) {
    case 'name':
      schema = compileName(node, ctx, guarded);
      break;
    case 'enum': {
      const seen = new Set<string>();
      for (const v of node.values) {
        if (seen.has(v.value)) ctx.problem(v.start, `enum value "${v.value}" is listed twice`);
        seen.add(v.value);
      }
      schema = { type: 'string', enum: [...seen] };
      break;
    }
    case 'vector':
      schema = { type: 'array', items: { type: 'number' }, minItems: node.size, maxItems: node.size };
      break;
    case 'list':
      schema = { type: 'array', items: compileTypeNode(node.item, ctx, true) };
      break;
    case 'map':
      schema = { type: 'object', additionalProperties: compileTypeNode(node.value, ctx, true) };
      break;
    case 'range':
      schema = applyRange(node, compileTypeNode(node.base, ctx, guarded), ctx);
      break;
    case 'union': {
      const members = node.members.map((m) => compileTypeNode(m, ctx, guarded));
      const seen = new Set<string>();
      node.members.forEach((m, i) => {
        const key = JSON.stringify(members[i]);
        if (seen.has(key)) ctx.problem(m.start, 'this union member repeats an earlier one', 'warning');
        seen.add(key);
        if (m.kind === 'name' && m.name === 'any') {
          ctx.problem(m.start, 'a union with "any" accepts every value; drop the other members', 'warning');
        }
      });
      schema = { anyOf: members };
      break;
    }
  }
  ctx.mark(schema, node.start);
  return schema;
}
