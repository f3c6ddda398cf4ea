/**
 * Writes TypeScript types for the JSON Schemas the schema language compiles to: `$ref`s to
 * declared types by name, unions, string-literal enums, read-only arrays and objects with
 * optional (`?:`) fields, descriptions and defaults as JSDoc.
 */
import type { JsonValue } from '../../../core/json.js';
import { isJsonObject } from '../../../core/json.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as TypeScript needs it: bare when an identifier, else quoted. */
export function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A JSDoc block of `lines` at `indent`, or nothing when there are no lines. */
export function jsDoc(lines: readonly string[], indent: string): string {
  const clean = lines.flatMap((l) => l.split('\n')).map((l) => l.replace(/\*\//g, '*\\/'));
  if (clean.length === 0) return '';
  if (clean.length === 1) return `${indent}/** ${clean[0] ?? ''} */\n`;
  return `${indent}/**\n${clean.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function docOf(schema: JsonValue): string[] {
  if (!isJsonObject(schema)) return [];
  const lines: string[] = [];
  if (typeof schema['description'] === 'string') lines.push(schema['description']);
  if (schema['default'] !== undefined) lines.push(`@default ${JSON.stringify(schema['default'])}`);
  return lines;
}

function unionOf(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function objectType(schema: Readonly<Record<string, JsonValue>>, indent: string): string {
  const props = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  const extra = schema['additionalProperties'];
  const names = Object.keys(props);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const name of names) {
    const prop = props[name] as JsonValue;
    const optional = required.has(name) ? '' : '?';
    lines.push(
      `${jsDoc(docOf(prop), inner)}${inner}readonly ${propertyName(name)}${optional}: ${tsType(prop, inner)};`,
    );
  }
  if (extra !== false && extra !== undefined) {
    const value = names.length === 0 ? tsType(extra, inner) : 'unknown';
    lines.push(`${inner}readonly [key: string]: ${value};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function arrayItem(type: string): string {
  return /^[A-Za-z0-9_$.]+(<.*>)?$/.test(type) ? type : `(${type})`;
}

/** The TypeScript type of `schema`; nested object types are indented from `indent`. */
export function tsType(schema: JsonValue | undefined, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (!isJsonObject(schema)) return 'unknown';
  const ref = schema['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return ref.slice('#/$defs/'.length);
  if (Array.isArray(schema['anyOf'])) return unionOf(schema['anyOf'].map((m) => tsType(m, indent)));
  if (Array.isArray(schema['enum'])) return unionOf(schema['enum'].map((v) => JSON.stringify(v)));
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']);
  const type = schema['type'];
  if (Array.isArray(type)) return unionOf(type.map((t) => tsType({ ...schema, type: t }, indent)));
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `readonly ${arrayItem(tsType(schema['items'], indent))}[]`;
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

/** The declaration of the named type `name`: an interface for objects with fields, else an alias. */
export function typeDeclaration(name: string, schema: JsonValue): string {
  const doc = jsDoc(docOf(schema), '');
  const isObject =
    isJsonObject(schema) &&
    schema['type'] === 'object' &&
    isJsonObject(schema['properties']) &&
    Object.keys(schema['properties']).length > 0;
  if (isObject) return `${doc}export interface ${name} ${tsType(schema)}\n`;
  return `${doc}export type ${name} = ${tsType(schema)};\n`;
}
