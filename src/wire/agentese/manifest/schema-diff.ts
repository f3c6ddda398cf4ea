/**
 * Compares two JSON Schemas compiled from the schema language and lists what changed, each
 * change judged additive or breaking for its direction (seed 002 §10.2):
 *
 * - an **input** may only widen: a caller's old request must still be accepted, so removing
 *   a field, narrowing a type or range, dropping a union member or enum value, or adding a
 *   required field is breaking; adding an optional field, a union member or an enum value is
 *   additive.
 * - an **output** may only narrow, except that clients are tolerant readers (seed §10.2):
 *   new fields and new enum values are additive; removing a field, making one optional,
 *   adding a union member (such as `| null`) or widening a type or range is breaking.
 *
 * Changing a field's type is breaking in both directions (integer → number widens).
 */
import type { JsonObject, JsonValue } from '../../../core/json.js';
import { isJsonObject } from '../../../core/json.js';

/** The direction a schema is read in. */
export type SchemaDirection = 'input' | 'output';

/** One change between two schemas. */
export interface SchemaChange {
  readonly kind: 'breaking' | 'additive';
  /** Where in the value: `input.provenance.source`, `output[]`. */
  readonly path: string;
  readonly message: string;
  /** The schema object on the new side the change is best located at. */
  readonly at: object;
}

type Effect = 'narrows' | 'widens' | 'breaks';

interface Side {
  readonly root: JsonObject;
  readonly schema: JsonObject;
  readonly ref?: string;
}

const DEFS_PREFIX = '#/$defs/';

function resolve(side: Side, seen = 0): Side {
  const ref = side.schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith(DEFS_PREFIX) || seen > 32) return side;
  const defs = side.root['$defs'];
  const name = ref.slice(DEFS_PREFIX.length);
  const target = isJsonObject(defs) ? defs[name] : undefined;
  if (!isJsonObject(target)) return side;
  return resolve({ root: side.root, schema: target, ref: name }, seen + 1);
}

function typeTag(schema: JsonObject): string {
  const t = schema['type'];
  if (typeof t === 'string') return t === 'integer' ? 'number' : t;
  if (schema['enum'] !== undefined) return 'string';
  return 'any';
}

function typeName(schema: JsonObject): string {
  const t = schema['type'];
  if (typeof t !== 'string') return 'any';
  const fmt = schema['format'];
  return typeof fmt === 'string' ? `${t} (${fmt})` : t;
}

function isAny(schema: JsonObject): boolean {
  return (
    schema['type'] === undefined &&
    schema['anyOf'] === undefined &&
    schema['enum'] === undefined &&
    schema['$ref'] === undefined
  );
}

function membersOf(side: Side): Side[] {
  const anyOf = side.schema['anyOf'];
  if (!Array.isArray(anyOf)) return [side];
  return anyOf.filter(isJsonObject).flatMap((m) => membersOf(resolve({ root: side.root, schema: m })));
}

function tagOf(side: Side): string {
  return side.ref ?? typeTag(side.schema);
}

const LOWER = ['minimum', 'minLength', 'minItems'] as const;
const UPPER = ['maximum', 'maxLength', 'maxItems'] as const;

function show(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function num(v: JsonValue | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** Lists every change from `before` to `after` (each a standalone schema with its `$defs`). */
export function diffSchemas(
  before: JsonObject,
  after: JsonObject,
  direction: SchemaDirection,
  path: string = direction,
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const visiting = new Set<string>();

  const add = (effect: Effect, at: string, message: string, node: object, tolerant = false): void => {
    const breaking =
      effect === 'breaks' ||
      (direction === 'input' && effect === 'narrows') ||
      (direction === 'output' && effect === 'widens' && !tolerant);
    changes.push({ kind: breaking ? 'breaking' : 'additive', path: at, message, at: node });
  };

  const bounds = (o: JsonObject, n: JsonObject, at: string): void => {
    for (const key of [...LOWER, ...UPPER]) {
      const a = num(o[key]);
      const b = num(n[key]);
      if (a === b) continue;
      const lower = (LOWER as readonly string[]).includes(key);
      const tighter = a === undefined ? true : b === undefined ? false : lower ? b > a : b < a;
      const shown = (v: number | undefined): string => (v === undefined ? 'none' : String(v));
      add(tighter ? 'narrows' : 'widens', at, `${key} changed from ${shown(a)} to ${shown(b)}`, n);
    }
  };

  const strings = (o: JsonObject, n: JsonObject, at: string): void => {
    const oe = Array.isArray(o['enum']) ? o['enum'].map(String) : undefined;
    const ne = Array.isArray(n['enum']) ? n['enum'].map(String) : undefined;
    if (oe !== undefined && ne !== undefined) {
      for (const v of oe) if (!ne.includes(v)) add('narrows', at, `enum value "${v}" was removed`, n);
      for (const v of ne) if (!oe.includes(v)) add('widens', at, `enum value "${v}" was added`, n, true);
    } else if (oe === undefined && ne !== undefined) {
      add('narrows', at, `now limited to enum[${ne.join(', ')}]`, n);
    } else if (oe !== undefined && ne === undefined) {
      add('widens', at, `no longer limited to enum[${oe.join(', ')}]`, n);
    }
    for (const key of ['format', 'pattern'] as const) {
      const a = o[key];
      const b = n[key];
      if (a === b) continue;
      if (a === undefined) add('narrows', at, `now requires ${key} ${show(b)}`, n);
      else if (b === undefined) add('widens', at, `no longer requires ${key} ${show(a)}`, n);
      else add('breaks', at, `${key} changed from ${show(a)} to ${show(b)}`, n);
    }
  };

  const objects = (o: Side, n: Side, at: string): void => {
    const op = isJsonObject(o.schema['properties']) ? o.schema['properties'] : {};
    const np = isJsonObject(n.schema['properties']) ? n.schema['properties'] : {};
    const oreq = new Set(Array.isArray(o.schema['required']) ? o.schema['required'].map(String) : []);
    const nreq = new Set(Array.isArray(n.schema['required']) ? n.schema['required'].map(String) : []);
    for (const [name, os] of Object.entries(op)) {
      const ns = np[name];
      const fieldPath = `${at}.${name}`;
      if (!isJsonObject(ns)) {
        add('breaks', fieldPath, `field "${name}" was removed`, n.schema);
        continue;
      }
      if (oreq.has(name) && !nreq.has(name))
        add('widens', fieldPath, `field "${name}" is no longer required`, ns);
      if (!oreq.has(name) && nreq.has(name)) add('narrows', fieldPath, `field "${name}" is now required`, ns);
      if (isJsonObject(os)) compare({ root: o.root, schema: os }, { root: n.root, schema: ns }, fieldPath);
    }
    for (const [name, ns] of Object.entries(np)) {
      if (Object.hasOwn(op, name) || !isJsonObject(ns)) continue;
      const required = nreq.has(name);
      add(
        required ? 'narrows' : 'widens',
        `${at}.${name}`,
        `new ${required ? 'required' : 'optional'} field "${name}"`,
        ns,
        true,
      );
    }
    const oa = o.schema['additionalProperties'];
    const na = n.schema['additionalProperties'];
    if (isJsonObject(oa) && isJsonObject(na)) {
      compare({ root: o.root, schema: oa }, { root: n.root, schema: na }, `${at}.*`);
    } else if ((oa === false) !== (na === false)) {
      add(
        na === false ? 'narrows' : 'widens',
        `${at}.*`,
        na === false ? 'no longer accepts other keys' : 'now accepts other keys',
        n.schema,
      );
    }
  };

  const single = (o: Side, n: Side, at: string): void => {
    const ot = o.schema['type'];
    const nt = n.schema['type'];
    if (ot !== nt) {
      if (ot === 'integer' && nt === 'number')
        add('widens', at, 'type changed from integer to number', n.schema);
      else if (ot === 'number' && nt === 'integer')
        add('narrows', at, 'type changed from number to integer', n.schema);
      else {
        add('breaks', at, `type changed from ${typeName(o.schema)} to ${typeName(n.schema)}`, n.schema);
        return;
      }
    }
    bounds(o.schema, n.schema, at);
    if (nt === 'string' || (nt === undefined && n.schema['enum'] !== undefined))
      strings(o.schema, n.schema, at);
    if (nt === 'array' && isJsonObject(o.schema['items']) && isJsonObject(n.schema['items'])) {
      compare(
        { root: o.root, schema: o.schema['items'] },
        { root: n.root, schema: n.schema['items'] },
        `${at}[]`,
      );
    }
    if (nt === 'object') objects(o, n, at);
  };

  function compare(oRaw: Side, nRaw: Side, at: string): void {
    const o = resolve(oRaw);
    const n = resolve(nRaw);
    if (o.ref !== undefined && n.ref !== undefined) {
      const key = `${o.ref}\u0000${n.ref}`;
      if (visiting.has(key)) return;
      visiting.add(key);
    }
    if (isAny(o.schema) && isAny(n.schema)) return;
    if (isAny(n.schema)) {
      add('widens', at, 'now accepts any value', n.schema);
      return;
    }
    if (isAny(o.schema)) {
      add('narrows', at, `now restricted to ${typeName(n.schema)}`, n.schema);
      return;
    }
    const om = membersOf(o);
    const nm = membersOf(n);
    if (om.length === 1 && nm.length === 1) {
      single(om[0] as Side, nm[0] as Side, at);
      return;
    }
    const ntags = new Map(nm.map((m) => [tagOf(m), m]));
    const otags = new Map(om.map((m) => [tagOf(m), m]));
    for (const [tag, m] of otags) {
      const match = ntags.get(tag);
      if (match === undefined) add('narrows', at, `the union no longer accepts ${tag}`, n.schema);
      else compare(m, match, at);
    }
    for (const tag of ntags.keys()) {
      if (!otags.has(tag)) add('widens', at, `the union now also accepts ${tag}`, n.schema);
    }
  }

  compare({ root: before, schema: before }, { root: after, schema: after }, path);
  return changes;
}
