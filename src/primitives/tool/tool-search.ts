/**
 * Tool discovery (seed 003 §4.3 `tool.discover`): a text match of the query against each
 * tool's name and description, the capability / reputation / latency / geography filters,
 * and the ranking by reputation. Pure functions over the registry state.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import {
  avgLatencyOf,
  reputationOf,
  type ReputationOptions,
  type ToolRecord,
  type ToolRegistryState,
} from './tool-projection.js';

/** What `tool.discover` filters on. */
export interface ToolQuery {
  readonly query: string;
  readonly capabilities?: readonly string[];
  readonly minReputation?: number;
  readonly maxLatency?: number;
  readonly geo?: string;
}

/** The lower-case words of a text (letters and digits of any script). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * True when every word of `query` starts a word of the tool's name or description
 * (`web search` matches `web-search`; `summ` matches `summarize`). An empty query matches
 * every tool.
 */
export function matchesText(tool: Pick<ToolRecord, 'name' | 'description'>, query: string): boolean {
  const wanted = words(query);
  if (wanted.length === 0) return true;
  const have = [...words(tool.name), ...words(tool.description)];
  return wanted.every((w) => have.some((h) => h.startsWith(w)));
}

/**
 * True when the tool is in region `geo`: the same region (`us-east`), or a sub-region of it
 * (`us` covers `us-east`). Compared without case. A tool whose region is unknown is in none.
 */
export function matchesGeo(toolGeo: string | undefined, geo: string): boolean {
  if (toolGeo === undefined) return false;
  const a = toolGeo.toLowerCase();
  const b = geo.toLowerCase();
  return a === b || a.startsWith(`${b}-`);
}

/** A tool as `discover` and `listRegistered` answer it (the seed's fields plus `verb`, `agent`, `geo`). */
export function toolInfo(tool: ToolRecord, options: ReputationOptions = {}): JsonObject {
  const info: JsonObject = {
    id: tool.toolId,
    name: tool.name,
    peerId: tool.peerId,
    description: tool.description,
    capabilities: [...tool.capabilities],
    reputation: reputationOf(tool, options),
    avgLatency: avgLatencyOf(tool),
    schema: { input: tool.schema.input, output: tool.schema.output },
    verb: tool.verb,
  };
  if (tool.agent !== undefined) info['agent'] = tool.agent;
  if (tool.geo !== undefined) info['geo'] = tool.geo;
  if (tool.latencyMs !== undefined) info['latency'] = tool.latencyMs;
  return info;
}

/**
 * The latency a tool is filtered and ranked by: its average recorded duration once called,
 * before that the round trip measured to its mesh peer (MESH-43); `undefined` when neither.
 */
export function latencyOf(tool: ToolRecord): number | undefined {
  return tool.invocations > 0 ? avgLatencyOf(tool) : tool.latencyMs;
}

/**
 * Orders tools by reputation (highest first), then latency (lowest first; {@link latencyOf},
 * unknown counts as 0), then name, then id — a total, deterministic order.
 */
export function rankTools(tools: readonly ToolRecord[], options: ReputationOptions = {}): ToolRecord[] {
  const keyed = tools.map((t) => ({ t, rep: reputationOf(t, options), lat: latencyOf(t) ?? 0 }));
  keyed.sort(
    (a, b) =>
      b.rep - a.rep ||
      a.lat - b.lat ||
      (a.t.name < b.t.name ? -1 : a.t.name > b.t.name ? 1 : 0) ||
      (a.t.toolId < b.t.toolId ? -1 : 1),
  );
  return keyed.map((k) => k.t);
}

/**
 * The tools matching `q`, ranked: the query words in the name or description, every
 * requested capability offered, reputation ≥ `minReputation`, latency ≤ `maxLatency`
 * ({@link latencyOf}: a tool with neither calls nor a measured round trip passes), and in
 * region `geo`.
 */
export function discoverTools(
  state: ToolRegistryState,
  q: ToolQuery,
  options: ReputationOptions = {},
): JsonValue[] {
  const caps = q.capabilities ?? [];
  const found = [...state.tools.values()].filter(
    (t) =>
      matchesText(t, q.query) &&
      caps.every((c) => t.capabilities.includes(c)) &&
      (q.minReputation === undefined || reputationOf(t, options) >= q.minReputation) &&
      (q.maxLatency === undefined || (latencyOf(t) ?? 0) <= q.maxLatency) &&
      (q.geo === undefined || matchesGeo(t.geo, q.geo)),
  );
  return rankTools(found, options).map((t) => toolInfo(t, options));
}
