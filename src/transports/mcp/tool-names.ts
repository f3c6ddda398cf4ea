/**
 * MCP tool names of Plexus verbs (seed 004 Req 5.6, docs/decisions/mcp.md MCP-2): a tool is
 * named `agentName.toolName` — the agent card's `name` and the verb, each with every character
 * outside `[A-Za-z0-9_-]` (the verb: `[A-Za-z0-9_.-]`) replaced by `_`. A name longer than 128
 * characters, or one that two (agent, verb) pairs share, is made unique by cutting it and
 * ending it with `-` + the first 10 hex digits of SHA-256(`agentId verb`):
 * stable across restarts and independent of registration order. A verb may name its tool
 * itself with the projection hint `mcp:tool` `{name}` (MCP-40): that name is used as it is
 * when it is a valid MCP tool name no other source claims; a name two sources claim (declared
 * or plain) is made unique the same way for each of them.
 */
import { createHash } from 'node:crypto';

/** The longest MCP tool name. */
export const MCP_TOOL_NAME_MAX = 128;

const SUFFIX_HEX = 10;

function clean(text: string, keepDots: boolean): string {
  const out = text.replace(keepDots ? /[^A-Za-z0-9_.-]/g : /[^A-Za-z0-9_-]/g, '_');
  return out === '' ? '_' : out;
}

/** The plain tool name of `verb` offered by an agent named `agentName` (may be over-long). */
export function plainToolName(agentName: string, verb: string): string {
  return `${clean(agentName, false)}.${clean(verb, true)}`;
}

/** The unique form of `plain`: cut to fit, then `-` and a hash of the agent id and verb. */
export function uniqueToolName(plain: string, agentId: string, verb: string): string {
  const hash = createHash('sha256').update(`${agentId} ${verb}`).digest('hex').slice(0, SUFFIX_HEX);
  return `${plain.slice(0, MCP_TOOL_NAME_MAX - SUFFIX_HEX - 1)}-${hash}`;
}

/** A valid MCP tool name: 1–128 characters of `[A-Za-z0-9_.-]`. */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** One (agent, verb) pair to name. */
export interface ToolSource {
  readonly agentId: string;
  readonly agentName: string;
  readonly verb: string;
  /** The name the verb declares for its tool (`mcp:tool` `{name}`), if any. */
  readonly declared?: string;
}

/** The name `source` asks for: its declared name when valid, else its plain name. */
export function wantedToolName(source: ToolSource): string {
  const { declared } = source;
  return declared !== undefined && MCP_TOOL_NAME_PATTERN.test(declared)
    ? declared
    : plainToolName(source.agentName, source.verb);
}

/**
 * The tool names of `sources`, in their order: the declared (else plain) name when it fits and
 * no other source asks for it, else the unique form of the plain name.
 */
export function toolNames(sources: readonly ToolSource[]): string[] {
  const plain = sources.map(wantedToolName);
  const counts = new Map<string, number>();
  for (const name of plain) counts.set(name, (counts.get(name) ?? 0) + 1);
  return sources.map((s, i) => {
    const name = plain[i] ?? '';
    return name.length <= MCP_TOOL_NAME_MAX && counts.get(name) === 1
      ? name
      : uniqueToolName(plainToolName(s.agentName, s.verb), s.agentId, s.verb);
  });
}
