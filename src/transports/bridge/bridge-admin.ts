/**
 * The privileged verbs that add a bridge entry at run time (seed 003 §10: the Hyperspace
 * `bridge.registerMCPServer`, `bridge.announceA2AAgent`; docs/decisions/mcp.md MCP-37, a2a.md
 * A2A-19). Each is a verb of a small agent with the Hyperspace method name as its alias, so the
 * call runs through the whole pipeline; the handler refuses every principal that is not
 * privileged: one of kind `local` (in-process) or one whose credential carries the scope
 * `bridge:admin` (or `bridge:*`, `*`). The verb also declares the scope, so with capability
 * checks on a UCAN must grant `bridge/admin`.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import {
  defineAgent,
  type AgentDefinition,
  type HandlerContext,
  type Principal,
} from '../../runtime/index.js';

/** The scope a credential needs (MCP-37). */
export const BRIDGE_ADMIN_SCOPE = 'bridge:admin';

/** True when `principal` may add bridge entries (MCP-37). */
export function isBridgeAdmin(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  if (principal.kind === 'local') return true;
  return (principal.scopes ?? []).some((s) => s === BRIDGE_ADMIN_SCOPE || s === '*' || s === 'bridge:*');
}

/** One privileged verb of a bridge agent. */
export interface BridgeAdminVerbSpec {
  /** The verb (`bridge.register_mcp_server`). */
  readonly verb: string;
  /** The Hyperspace method name (`bridge.registerMCPServer`). */
  readonly alias: string;
  readonly description: string;
  readonly input: JsonObject;
  readonly output: JsonObject;
  /** Why only privileged callers may use it, the start of the refusal's message. */
  readonly privileged: string;
  /** Runs a privileged call; `by` is the caller's principal id. */
  readonly handle: (input: JsonValue, by: string, signal: AbortSignal) => Promise<JsonValue>;
}

/** A privileged bridge agent: its first verb, and any more (`more`) it serves beside it. */
export interface BridgeAdminVerb extends BridgeAdminVerbSpec {
  /** The agent's id (`mcp-bridge`, `a2a-bridge`). */
  readonly agentId: string;
  readonly agentName: string;
  readonly agentDescription: string;
  /** Further privileged verbs of the same agent (A2A-22: `bridge.removeA2AAgent`). */
  readonly more?: readonly BridgeAdminVerbSpec[];
}

/** The agent serving `spec`'s verbs. */
export function bridgeAdminAgent(spec: BridgeAdminVerb): AgentDefinition {
  const verbs: readonly BridgeAdminVerbSpec[] = [spec, ...(spec.more ?? [])];
  return defineAgent({
    card: {
      id: spec.agentId,
      name: spec.agentName,
      version: '1.0.0',
      tier: 'L3',
      description: spec.agentDescription,
      capabilities: verbs.map((v) => ({
        verb: v.verb,
        description: v.description,
        input: v.input,
        output: v.output,
      })),
    },
    verbs: verbs.map((v) => ({
      name: v.verb,
      version: 1,
      status: 'stable' as const,
      input: v.input,
      output: v.output,
      effects: {},
      capabilities: [BRIDGE_ADMIN_SCOPE],
      category: 'mutation' as const,
      deterministic: false,
    })),
    aliases: Object.fromEntries(verbs.map((v) => [v.alias, v.verb])),
    restart: { maxRestarts: 100 },
    create: () =>
      Object.fromEntries(
        verbs.map((v) => [
          v.verb,
          (input: JsonValue, ctx: HandlerContext) => {
            if (!isBridgeAdmin(ctx.principal)) {
              throw new PlexusError(
                'FORBIDDEN',
                `${v.alias} ${v.privileged}: only a privileged caller may use it (a credential with the scope ${BRIDGE_ADMIN_SCOPE}, or an in-process caller)`,
                { details: { scope: BRIDGE_ADMIN_SCOPE } },
              );
            }
            return v.handle(input, ctx.principal?.id ?? 'unknown', ctx.signal);
          },
        ]),
      ),
  });
}
