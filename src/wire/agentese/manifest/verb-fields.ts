/**
 * Readers for the plain fields of a verb era (docs/manifest.md): each takes the field's YAML
 * node and pointer, reports every problem at its position, and returns the value read (or
 * `undefined` when it could not be read).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import type { JsonObject } from '../../../core/json.js';
import { childPointer } from '../../../core/problem.js';
import { normalizeEffectsWithProblems } from '../../../core/records/effects.js';
import type { Effects } from '../../../core/records/effects.js';
import {
  CAPABILITY_SCOPE_PATTERN_SOURCE,
  PROJECTION_KEY_PATTERN_SOURCE,
} from '../../../core/records/verb-spec.js';
import type { ProjectionHints } from '../../../core/records/verb-spec.js';
import type { SandboxLimits } from './manifest-model.js';
import { didYouMean } from './problems.js';
import type { ManifestSource } from './yaml-source.js';
import { startOf } from './yaml-source.js';

/** A field of a verb era: its value node, pointer, and the offset of its key. */
export interface FieldRef {
  readonly node: Node | undefined;
  readonly pointer: string;
  readonly keyOffset: number;
}

function scalarValue(node: Node | undefined): unknown {
  return isScalar(node) ? node.value : undefined;
}

/** A one-of string field (`status`, `category`). */
export function readChoice<T extends string>(
  source: ManifestSource,
  ref: FieldRef,
  field: string,
  choices: readonly T[],
): T | undefined {
  const value = scalarValue(ref.node);
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  const shown = typeof value === 'string' ? `"${value}"` : 'this value';
  const hint = typeof value === 'string' ? didYouMean(value, choices) : '';
  source.reportAt(
    ref.pointer,
    ref.node,
    `${field} must be one of ${choices.join(', ')}, not ${shown}${hint}`,
  );
  return undefined;
}

/** A non-empty string field. */
export function readText(source: ManifestSource, ref: FieldRef, field: string): string | undefined {
  const value = scalarValue(ref.node);
  if (typeof value === 'string' && value.trim() !== '') return value;
  source.reportAt(ref.pointer, ref.node, `${field} must be non-empty text`);
  return undefined;
}

/** A boolean field. */
export function readBoolean(source: ManifestSource, ref: FieldRef, field: string): boolean | undefined {
  const value = scalarValue(ref.node);
  if (typeof value === 'boolean') return value;
  source.reportAt(ref.pointer, ref.node, `${field} must be true or false`);
  return undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` date field (a real calendar date). */
export function readDate(source: ManifestSource, ref: FieldRef, field: string): string | undefined {
  const value = scalarValue(ref.node);
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  if (m !== null && typeof value === 'string') {
    const d = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(d.getTime()) && d.toISOString().startsWith(value)) return value;
  }
  source.reportAt(ref.pointer, ref.node, `${field} must be a date written YYYY-MM-DD, e.g. "2025-06-01"`);
  return undefined;
}

/** `capabilities`: a list of `namespace:ability` scopes. */
export function readCapabilities(source: ManifestSource, ref: FieldRef): string[] {
  if (isScalar(ref.node) && ref.node.value === null) return [];
  if (!isSeq(ref.node)) {
    source.reportAt(ref.pointer, ref.node, 'capabilities must be a list of scopes, e.g. [soul:read]');
    return [];
  }
  const pattern = new RegExp(CAPABILITY_SCOPE_PATTERN_SOURCE);
  const out: string[] = [];
  ref.node.items.forEach((raw, i) => {
    const item = source.resolve(raw);
    const at = childPointer(ref.pointer, i);
    const value = scalarValue(item);
    if (typeof value !== 'string' || !pattern.test(value)) {
      const shown = typeof value === 'string' ? `"${value}"` : 'this item';
      source.reportAt(
        at,
        item,
        `${shown} is not a capability scope; write namespace:ability, e.g. soul:read`,
      );
    } else if (out.includes(value)) {
      source.reportAt(at, item, `capability "${value}" is listed twice`, 'warning');
    } else {
      out.push(value);
    }
  });
  return out;
}

/** `effects` in any accepted form, normalised to `{effect: [resources]}`. */
export function readEffects(source: ManifestSource, ref: FieldRef): Effects {
  const raw: unknown = ref.node?.toJS(source.doc);
  const { effects, problems } = normalizeEffectsWithProblems(raw, ref.pointer);
  for (const p of problems) {
    // An unknown effect name is best shown at its key; a bad resource at the value.
    const prefer = p.message.includes('is not an effect') ? 'key' : 'value';
    source.report(p.pointer, source.offsetOfPointer(p.pointer, prefer), p.message);
  }
  return effects;
}

/** `projection`: a list of `surface:mode` keys, or a mapping from them to hint objects. */
export function readProjection(source: ManifestSource, ref: FieldRef): ProjectionHints | undefined {
  const pattern = new RegExp(PROJECTION_KEY_PATTERN_SOURCE);
  const out: Record<string, JsonObject> = {};
  const add = (key: unknown, value: unknown, node: Node | undefined, at: string, offset: number): void => {
    if (typeof key !== 'string' || !pattern.test(key)) {
      const shown = typeof key === 'string' ? `"${key}"` : 'this entry';
      source.report(at, offset, `projection ${shown} must be written surface:mode, e.g. ui:form or cli:json`);
      return;
    }
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      source.reportAt(at, node, `the hints of projection "${key}" must be a mapping, e.g. {fields: [name]}`);
      return;
    }
    if (Object.hasOwn(out, key)) source.report(at, offset, `projection "${key}" is listed twice`, 'warning');
    out[key] = (value ?? {}) as JsonObject;
  };
  if (isSeq(ref.node)) {
    ref.node.items.forEach((raw, i) => {
      const item = source.resolve(raw);
      add(scalarValue(item), null, item, childPointer(ref.pointer, i), startOf(item));
    });
    return out;
  }
  if (isMap(ref.node)) {
    for (const entry of source.entries(ref.node)) {
      const at = childPointer(ref.pointer, entry.key);
      const value: unknown = entry.value?.toJS(source.doc) ?? null;
      add(entry.key, value, entry.value, at, entry.offset);
    }
    return out;
  }
  source.reportAt(
    ref.pointer,
    ref.node,
    'projection must be a list such as [ui:form, cli:json] or a mapping of surface:mode to hints',
  );
  return undefined;
}

const SANDBOX_INTEGER_KEYS = {
  timeout_ms: 'timeoutMs',
  memory_mb: 'memoryMb',
  max_input_bytes: 'maxInputBytes',
  max_output_bytes: 'maxOutputBytes',
  concurrency: 'concurrency',
} as const;

/** The keys `sandbox` accepts. */
export const SANDBOX_KEYS = [...Object.keys(SANDBOX_INTEGER_KEYS), 'network'] as const;

/** `sandbox`: positive integer limits and `network` (true, false or a list of hosts). */
export function readSandbox(source: ManifestSource, ref: FieldRef): SandboxLimits | undefined {
  if (!isMap(ref.node)) {
    source.reportAt(
      ref.pointer,
      ref.node,
      'sandbox must be a mapping, e.g. {timeout_ms: 30000, memory_mb: 256}',
    );
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const entry of source.entries(ref.node)) {
    const at = childPointer(ref.pointer, entry.key);
    const value = scalarValue(entry.value);
    if (Object.hasOwn(SANDBOX_INTEGER_KEYS, entry.key)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        source.reportAt(at, entry.value, `sandbox ${entry.key} must be a whole number of at least 1`);
      } else {
        out[SANDBOX_INTEGER_KEYS[entry.key as keyof typeof SANDBOX_INTEGER_KEYS]] = value;
      }
    } else if (entry.key === 'network') {
      const js: unknown = entry.value?.toJS(source.doc);
      if (typeof js === 'boolean') out['network'] = js;
      else if (Array.isArray(js) && js.every((h) => typeof h === 'string' && h !== '')) out['network'] = js;
      else source.reportAt(at, entry.value, 'sandbox network must be true, false or a list of host names');
    } else {
      source.report(
        at,
        entry.offset,
        `unknown sandbox limit "${entry.key}"${didYouMean(entry.key, SANDBOX_KEYS) || `; known limits are ${SANDBOX_KEYS.join(', ')}`}`,
      );
    }
  }
  return out;
}
