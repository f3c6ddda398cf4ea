/**
 * Turns the YAML node of a type into JSON Schema: a scalar is a type expression (parsed and
 * compiled), a mapping is an object whose keys are fields (`name`, `name?`, or `"*"` for
 * any other key), a one-item sequence `[T]` is a list of `T`. Trailing YAML comments become
 * `description`s. Defaults are collected and checked once every declared type is known.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node, Scalar } from 'yaml';
import type { JsonObject, JsonValue } from '../../../core/json.js';
import { childPointer } from '../../../core/problem.js';
import { schemaValidator } from '../../../core/schema-validator.js';
import type { ManifestSeverity } from './problems.js';
import { compileTypeNode } from './type-compiler.js';
import { parseFieldType } from './type-parser.js';
import type { ManifestSource } from './yaml-source.js';
import { startOf } from './yaml-source.js';

/** Where a compiled schema came from. */
export interface SchemaLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Pointer into the manifest document. */
  readonly pointer: string;
}

/** State shared while compiling the types of one manifest. */
export interface SchemaBuildContext {
  readonly source: ManifestSource;
  /** The names declared under `types:`. */
  readonly typeNames: ReadonlySet<string>;
  /** Where each compiled schema object came from (for era-diff positions). */
  readonly locations: WeakMap<object, SchemaLocation>;
  /** Called for each reference to a declared type (see `TypeCompileContext.reference`). */
  onReference: (name: string, guarded: boolean) => void;
  /** Defaults waiting to be checked against their field's schema. */
  readonly defaults: { schema: JsonObject; value: JsonValue; offset: number; pointer: string }[];
}

/** The pattern a field name matches. */
export const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function mark(ctx: SchemaBuildContext, schema: JsonObject, offset: number, pointer: string): void {
  ctx.locations.set(schema, { file: ctx.source.file, ...ctx.source.position(offset), pointer });
}

function describeYaml(node: Node | undefined): string {
  if (node === undefined) return 'nothing';
  if (isScalar(node)) return node.value === null ? 'an empty value' : JSON.stringify(node.value);
  return isMap(node) ? 'a mapping' : 'a sequence';
}

/** The result of compiling a field's type. */
interface FieldSchema {
  readonly schema: JsonObject;
  /** True when the field may be omitted (`?` or a default). */
  readonly optional: boolean;
}

function compileScalar(
  node: Scalar,
  pointer: string,
  ctx: SchemaBuildContext,
  role: 'type' | 'field',
  guarded: boolean,
  textOverride?: string,
): FieldSchema {
  const { source } = ctx;
  const text = textOverride ?? node.value;
  if (typeof text !== 'string') {
    const what = describeYaml(node);
    source.reportAt(pointer, node, `expected a type (such as string, uuid or enum[a, b]), found ${what}`);
    return { schema: {}, optional: false };
  }
  const base = source.valueStart(node);
  const parsed = parseFieldType(text);
  if ('problem' in parsed) {
    source.report(pointer, base + parsed.problem.start, `in type "${text}": ${parsed.problem.message}`);
    return { schema: {}, optional: false };
  }
  const { field } = parsed;
  const report = (offset: number, message: string, severity?: ManifestSeverity): void => {
    source.report(pointer, base + offset, message, severity);
  };
  let schema = compileTypeNode(
    field.type,
    {
      typeNames: ctx.typeNames,
      problem: report,
      mark: (s, offset) => {
        mark(ctx, s, base + offset, pointer);
      },
      reference: (name, g) => {
        ctx.onReference(name, g || guarded);
      },
    },
    guarded,
  );
  if (role === 'type') {
    if (field.optionalAt !== undefined) {
      report(
        field.optionalAt,
        '"?" marks a field that may be omitted and is only allowed on a field; write "T | null" for a value that may be null',
      );
    }
    if (field.default !== undefined)
      report(field.default.start, 'a default ("= value") is only allowed on a field');
    return { schema, optional: false };
  }
  if (field.default !== undefined) {
    schema = { ...schema, default: field.default.value };
    mark(ctx, schema, base + field.type.start, pointer);
    ctx.defaults.push({ schema, value: field.default.value, offset: base + field.default.start, pointer });
  }
  return { schema, optional: field.optionalAt !== undefined || field.default !== undefined };
}

function withDescription(schema: JsonObject, comment: string | null | undefined): JsonObject {
  const text = comment?.trim();
  return text === undefined || text === '' ? schema : { ...schema, description: text };
}

function compileObject(node: Node, pointer: string, ctx: SchemaBuildContext): JsonObject {
  const { source } = ctx;
  if (!isMap(node)) return {};
  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  let additional: JsonObject | false = false;
  for (const entry of source.entries(node)) {
    const at = childPointer(pointer, entry.key);
    if (entry.key === '*') {
      additional = compileYamlType(entry.value, at, ctx, 'type', true).schema;
      continue;
    }
    const optionalKey = entry.key.endsWith('?');
    const name = optionalKey ? entry.key.slice(0, -1) : entry.key;
    if (!FIELD_NAME_PATTERN.test(name)) {
      source.report(
        at,
        entry.offset,
        `field name "${entry.key}" must start with a letter or "_" and hold only letters, digits, "_" or "-" (a trailing "?" marks it optional)`,
      );
      continue;
    }
    if (Object.hasOwn(properties, name)) {
      source.report(at, entry.offset, `field "${name}" is declared twice (once with "?")`);
      continue;
    }
    const field = compileYamlType(entry.value, at, ctx, 'field', true);
    if (optionalKey && field.optional && isScalar(entry.value)) {
      source.report(at, entry.offset, `field "${name}" is marked optional twice; keep one "?"`, 'warning');
    }
    const comment = isScalar(entry.value) ? entry.value.comment : undefined;
    properties[name] = withDescription(field.schema, comment);
    if (properties[name] !== field.schema) mark(ctx, properties[name], startOf(entry.value), at);
    if (!optionalKey && !field.optional) required.push(name);
  }
  const schema: JsonObject = {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required }),
    additionalProperties: additional,
  };
  mark(ctx, schema, startOf(node), pointer);
  return schema;
}

/**
 * Compiles the YAML node of a type. `role` is `field` inside an object (where `?` and
 * `= default` are allowed) and `type` elsewhere. Problems go to `ctx.source`.
 */
export function compileYamlType(
  node: Node | undefined,
  pointer: string,
  ctx: SchemaBuildContext,
  role: 'type' | 'field',
  guarded = false,
): FieldSchema {
  const { source } = ctx;
  if (isScalar(node) && node.value === null && node.source === 'null') {
    // YAML reads a bare `null` as no value; in a type position it names the null type.
    return compileScalar(node, pointer, ctx, role, guarded, 'null');
  }
  if (node === undefined || (isScalar(node) && node.value === null)) {
    const offset = node === undefined ? source.offsetOfPointer(pointer, 'key') : startOf(node);
    source.report(pointer, offset, 'no type given; write a type such as string, or a mapping of fields');
    return { schema: {}, optional: false };
  }
  if (isScalar(node)) return compileScalar(node, pointer, ctx, role, guarded);
  if (isMap(node)) return { schema: compileObject(node, pointer, ctx), optional: false };
  if (isSeq(node)) {
    if (node.items.length !== 1) {
      source.reportAt(
        pointer,
        node,
        `a list type is written with exactly one item type, as [string] or list[string]; this one has ${node.items.length}`,
      );
      return { schema: {}, optional: false };
    }
    const item = compileYamlType(source.resolve(node.items[0]), childPointer(pointer, 0), ctx, 'type', true);
    const schema: JsonObject = { type: 'array', items: item.schema };
    mark(ctx, schema, startOf(node), pointer);
    return { schema, optional: false };
  }
  source.reportAt(pointer, node, `expected a type, found ${describeYaml(node)}`);
  return { schema: {}, optional: false };
}

/**
 * Checks every collected default against its field's schema (with `defs` as `$defs`) and
 * reports each one that does not match, at the default's position.
 */
export function checkDefaults(ctx: SchemaBuildContext, defs: Readonly<Record<string, JsonObject>>): void {
  for (const { schema, value, offset, pointer } of ctx.defaults) {
    const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== 'default'));
    let problems;
    try {
      problems = schemaValidator().validate({ ...rest, $defs: defs }, value);
    } catch {
      continue; // the schema itself is broken; that problem was reported where it was written
    }
    if (problems.length > 0) {
      const first = problems[0];
      const where = first === undefined || first.pointer === '' ? '' : ` at ${first.pointer}`;
      ctx.source.report(
        pointer,
        offset,
        `the default ${JSON.stringify(value)} does not match the field's type${where}: ${first?.message ?? 'invalid'}`,
      );
    }
  }
}
