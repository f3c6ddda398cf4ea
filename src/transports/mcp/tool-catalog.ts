/**
 * The MCP tools of a node's registry (issue 13 item 3, docs/decisions/mcp.md MCP-2, MCP-3): one
 * tool per (agent, verb) the registry holds, in a stable order (agent id, then verb), with its
 * name (`tool-names.ts`), its input schema (an object schema, the verb's input wrapped in
 * `{input}` when it is not one), its output schema when the verb's output is an object, and
 * annotations from the verb spec.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../../core/schema-validator.js';
import type { Registry } from '../../runtime/agents/registry.js';
import { compareIds } from '../../runtime/agents/registry.js';
import { toolNames, type ToolSource } from './tool-names.js';

/** One tool and the verb behind it. */
export interface CatalogEntry {
  /** The tool as `tools/list` shows it. */
  readonly tool: Tool;
  /** The agent that offers the verb. */
  readonly agentId: string;
  /** The verb. */
  readonly verb: string;
  /** True when the verb's input is not an object schema: the tool's arguments are `{input}`. */
  readonly wrapped: boolean;
  /** True when the verb's output is an object schema: results carry `structuredContent`. */
  readonly structured: boolean;
}

/** Keywords whose value is one subschema, a list of them, or a map of them (JSON Schema 2020-12). */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

function subschema(value: unknown): unknown {
  if (value === true) return {};
  if (value === false) return { not: {} };
  return withoutBooleanSchemas(value);
}

/**
 * `schema` with every boolean subschema written as an object (`true` → `{}`, `false` →
 * `{"not": {}}`): the same meaning, in the form MCP clients accept (the SDK's `Tool` schema
 * requires objects under `properties`, and it rejects a whole `tools/list` page otherwise).
 */
export function withoutBooleanSchemas(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (ONE.includes(key)) out[key] = subschema(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = (value as unknown[]).map(subschema);
    else if (MAP.includes(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const entries = Object.entries(value as Record<string, unknown>);
      out[key] = Object.fromEntries(entries.map(([k, v]) => [k, subschema(v)]));
    } else out[key] = value;
  }
  return out;
}

function isObjectSchema(schema: JsonSchema | undefined): boolean {
  return typeof schema === 'object' && schema['type'] === 'object';
}

/** The input schema of a tool, and whether the verb's input was wrapped in `{input}`. */
export function toolInputSchema(schema: JsonSchema | undefined): {
  schema: Tool['inputSchema'];
  wrapped: boolean;
} {
  if (isObjectSchema(schema))
    return { schema: withoutBooleanSchemas(schema) as Tool['inputSchema'], wrapped: false };
  const inner = (
    typeof schema === 'boolean' ? (schema ? {} : { not: {} }) : withoutBooleanSchemas(schema ?? {})
  ) as object;
  return {
    schema: { type: 'object', properties: { input: inner }, required: ['input'] },
    wrapped: true,
  };
}

/** The tools of `registry`, in a stable order. */
export function toolCatalog(registry: Registry): CatalogEntry[] {
  const sources: (ToolSource & { description?: string | undefined })[] = [];
  const cards = [...registry.list()].sort((a, b) => compareIds(a.id, b.id));
  for (const card of cards) {
    const verbs = [...new Set(card.capabilities.map((c) => c.verb))].sort(compareIds);
    for (const verb of verbs) sources.push({ agentId: card.id, agentName: card.name, verb });
  }
  const names = toolNames(sources);
  return sources.map((source, i) => {
    const card = registry.get(source.agentId);
    const capability = card.capabilities.find((c) => c.verb === source.verb);
    const spec = registry.verbSpec(source.agentId, source.verb);
    const input = toolInputSchema(spec?.input ?? capability?.input);
    const output = spec?.output ?? capability?.output;
    const structured = isObjectSchema(output);
    const description = spec?.description ?? capability?.description ?? card.description;
    const readOnly = spec?.category === 'query';
    const tool: Tool = {
      name: names[i] ?? source.verb,
      title: `${card.name}: ${source.verb}`,
      ...(description === undefined ? {} : { description }),
      inputSchema: input.schema,
      ...(structured ? { outputSchema: withoutBooleanSchemas(output) as Tool['outputSchema'] & object } : {}),
      annotations: {
        readOnlyHint: readOnly,
        ...(spec?.deterministic === true ? { idempotentHint: true } : {}),
      },
      _meta: {
        'plexus/agent': source.agentId,
        'plexus/verb': source.verb,
        ...(spec === undefined ? {} : { 'plexus/effects': spec.effects, 'plexus/category': spec.category }),
      },
    };
    return { tool, agentId: source.agentId, verb: source.verb, wrapped: input.wrapped, structured };
  });
}
