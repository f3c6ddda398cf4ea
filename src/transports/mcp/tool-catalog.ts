/**
 * The MCP tools of a node's registry (issue 13 item 3, docs/decisions/mcp.md MCP-2, MCP-3): one
 * tool per (agent, verb) the registry holds, in a stable order (agent id, then verb), with its
 * name (`tool-names.ts`), its input schema (an object schema, the verb's input wrapped in
 * `{input}` when it is not one), its output schema when the verb's output is an object, and
 * annotations from the verb spec. A verb's projection hint `mcp:tool` (MCP-40) may name its
 * tool (`name`) and declare that its output is an MCP tool result (`content: true`).
 * {@link catalogOf} keeps one catalog per registry until a card changes (MCP-45): a
 * `tools/call` looks its tool up by name instead of rebuilding every tool of the registry.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCard } from '../../core/records/agent-card.js';
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
  /** True when the verb's output is itself an MCP tool result (`mcp:tool` `{content: true}`). */
  readonly content: boolean;
}

/** The projection hint key of a verb's MCP tool (MCP-40). */
export const MCP_TOOL_HINT = 'mcp:tool';

/** What a verb's `mcp:tool` hint declares. */
export interface ToolHint {
  readonly name?: string;
  readonly content: boolean;
}

/** The `mcp:tool` hint of `spec` (fields of the wrong type are ignored). */
export function toolHintOf(
  spec: { readonly projection?: Readonly<Record<string, unknown>> } | undefined,
): ToolHint {
  const hint = spec?.projection?.[MCP_TOOL_HINT];
  if (typeof hint !== 'object' || hint === null || Array.isArray(hint)) return { content: false };
  const { name, content } = hint as { name?: unknown; content?: unknown };
  return { ...(typeof name === 'string' ? { name } : {}), content: content === true };
}

/**
 * `schema` with each boolean value of its root `properties` written as an object (`true` →
 * `{}`, `false` → `{"not": {}}`): the same meaning, in the form MCP clients accept (the SDK's
 * `Tool` schema requires an object for each root property and rejects a whole `tools/list`
 * page otherwise). Everything else is kept as written — `additionalProperties: false`, `$defs`,
 * `$schema` (JSON Schema 2020-12 keywords are preserved, SEP-1613; MCP-44).
 */
export function withoutBooleanSchemas(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const { properties } = schema as { properties?: unknown };
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return schema;
  const entries = Object.entries(properties as Record<string, unknown>);
  if (!entries.some(([, v]) => typeof v === 'boolean')) return schema;
  const objects = entries.map(([k, v]) => [k, v === true ? {} : v === false ? { not: {} } : v]);
  return { ...schema, properties: Object.fromEntries(objects) as Record<string, unknown> };
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
  const sources: ToolSource[] = [];
  const cards = [...registry.list()].sort((a, b) => compareIds(a.id, b.id));
  for (const card of cards) {
    const verbs = [...new Set(card.capabilities.map((c) => c.verb))].sort(compareIds);
    for (const verb of verbs) {
      const declared = toolHintOf(registry.verbSpec(card.id, verb)).name;
      sources.push({
        agentId: card.id,
        agentName: card.name,
        verb,
        ...(declared === undefined ? {} : { declared }),
      });
    }
  }
  const names = toolNames(sources);
  return sources.map((source, i) => {
    const card = registry.get(source.agentId);
    const capability = card.capabilities.find((c) => c.verb === source.verb);
    const spec = registry.verbSpec(source.agentId, source.verb);
    const input = toolInputSchema(spec?.input ?? capability?.input);
    const output = spec?.output ?? capability?.output;
    const { content } = toolHintOf(spec);
    const structured = !content && isObjectSchema(output);
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
    return {
      tool,
      agentId: source.agentId,
      verb: source.verb,
      wrapped: input.wrapped,
      structured,
      content,
    };
  });
}

/** The tool catalog of a registry, shared by every session of the node. */
export interface ToolCatalog {
  /** Every tool, in the stable order of {@link toolCatalog}. */
  readonly entries: readonly CatalogEntry[];
  /** The tool named `name`, if any. */
  byName(name: string): CatalogEntry | undefined;
}

interface CachedCatalog {
  /** The cards it was built from, in `registry.list()` order (compared by identity). */
  readonly cards: readonly AgentCard[];
  readonly catalog: ToolCatalog;
}

const catalogs = new WeakMap<Registry, CachedCatalog>();

function sameCards(a: readonly AgentCard[], b: readonly AgentCard[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The catalog of `registry` now (MCP-45): built once, and again only when a card was
 * registered, updated or removed since. The registry replaces a card object (and its verb
 * specs with it) on every change and never edits one in place, so the cards compared by
 * identity tell exactly when the tools may have changed; the check is synchronous, so a call
 * made right after a registration sees the new tool.
 */
export function catalogOf(registry: Registry): ToolCatalog {
  const cards = registry.list();
  const cached = catalogs.get(registry);
  if (cached !== undefined && sameCards(cached.cards, cards)) return cached.catalog;
  const entries = toolCatalog(registry);
  const named = new Map(entries.map((e) => [e.tool.name, e]));
  const catalog: ToolCatalog = { entries, byName: (name) => named.get(name) };
  catalogs.set(registry, { cards, catalog });
  return catalog;
}
