/**
 * The runtime's attribute names as span attributes (docs/observability.md "Traces"): on the
 * invocation span `verb` and `tenant` are the seed's `agentese.verb` / `agentese.tenant_id`;
 * names with a dot are kept; `traceparent` and `user` are for the log line only (OBS-23) and
 * never exported; any other bare name is the node's own, `plexus.<name>`.
 */
import type { Attributes } from '@opentelemetry/api';
import { INVOCATION_SPAN } from '../span-names.js';
import { ATTR_TENANT_ID, ATTR_VERB } from './span-attributes.js';

/** Flat runtime attributes (the runtime's `ObserverAttributes`, structurally). */
export type FlatAttributes = Readonly<Record<string, string | number | boolean>>;

/** Span attributes the runtime sets for its log lines (OBS-23), never exported. */
const LOG_ONLY: ReadonlySet<string> = new Set(['traceparent', 'user']);

/** Exported names of the runtime's attribute names, worked out once per name (a small, fixed set). */
const EXPORTED = new Map<string, string | undefined>();

/** `key` as a span attribute name, or `undefined` for one kept for the log line only. */
function exportedName(key: string): string | undefined {
  let exported = EXPORTED.get(key);
  if (exported === undefined && !EXPORTED.has(key)) {
    // for the log line only: the trace is the span's own, and user ids are personal data
    exported = LOG_ONLY.has(key) ? undefined : key.includes('.') ? key : `plexus.${key}`;
    if (EXPORTED.size < 4096) EXPORTED.set(key, exported);
  }
  return exported;
}

const NONE: Attributes = Object.freeze({});

/** The span attributes of the runtime's `attributes` on a span named `name` (a fresh object). */
export function spanAttributesOf(name: string, attributes: FlatAttributes | undefined): Attributes {
  if (attributes === undefined) return {};
  const out: Attributes = {};
  const invocation = name === INVOCATION_SPAN;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (invocation && key === 'verb') out[ATTR_VERB] = value;
    else if (invocation && key === 'tenant') out[ATTR_TENANT_ID] = value;
    else {
      const exported = exportedName(key);
      if (exported !== undefined) out[exported] = value;
    }
  }
  return out;
}

/**
 * Converts the runtime's attributes for spans that keep them unchanged (the steps of one call
 * all pass the same object): the last object converted is answered again while it is passed
 * again. The answer is shared — never write to it. The runtime's attributes are read-only
 * (the observer's contract), so the same object has the same attributes.
 */
export function sharedAttributesConverter(): (
  name: string,
  attributes: FlatAttributes | undefined,
) => Attributes {
  let lastIn: FlatAttributes | undefined;
  let lastOut: Attributes = NONE;
  return (name, attributes) => {
    if (attributes === undefined) return NONE;
    if (name === INVOCATION_SPAN) return spanAttributesOf(name, attributes);
    if (attributes !== lastIn) {
      lastOut = spanAttributesOf(name, attributes);
      lastIn = attributes;
    }
    return lastOut;
  };
}
