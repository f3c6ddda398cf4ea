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
import { cleanTracestate } from '../../core/tracestate.js';
import {
  defineAgent,
  type AgentDefinition,
  type HandlerContext,
  type Principal,
} from '../../runtime/index.js';
import type { OutboundTrace } from '../outbound-trace.js';

/** The scope a credential needs (MCP-37). */
export const BRIDGE_ADMIN_SCOPE = 'bridge:admin';

/** True when `principal` may add bridge entries (MCP-37). */
export function isBridgeAdmin(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  if (principal.kind === 'local') return true;
  return (principal.scopes ?? []).some((s) => s === BRIDGE_ADMIN_SCOPE || s === '*' || s === 'bridge:*');
}

/** One privileged bridge verb. */
export interface BridgeAdminVerb {
  /** The agent's id (`mcp-bridge`, `a2a-bridge`). */
  readonly agentId: string;
  readonly agentName: string;
  readonly agentDescription: string;
  /** The verb (`bridge.register_mcp_server`). */
  readonly verb: string;
  /** The Hyperspace method name (`bridge.registerMCPServer`). */
  readonly alias: string;
  readonly description: string;
  readonly input: JsonObject;
  readonly output: JsonObject;
  /** Why only privileged callers may use it, the start of the refusal's message. */
  readonly privileged: string;
  /**
   * Runs a privileged call; `by` is the caller's principal id, `trace` the handler's span and
   * the request's tracestate (what a request the call makes continues, OBS-59).
   */
  readonly handle: (
    input: JsonValue,
    by: string,
    signal: AbortSignal,
    trace: OutboundTrace,
  ) => Promise<JsonValue>;
}

/** The trace a call's requests continue: its handler's span and the request's tracestate (OBS-45). */
function traceOf(ctx: HandlerContext): OutboundTrace {
  if (ctx.traceparent === undefined) return {};
  const tracestate = cleanTracestate(ctx.envelope.tracestate);
  return { traceparent: ctx.traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

/**
 * The agent serving `spec`'s verb, and the verbs of `more` beside it (the agent's id, name and
 * description are `spec`'s).
 */
export function bridgeAdminAgent(spec: BridgeAdminVerb, ...more: BridgeAdminVerb[]): AgentDefinition {
  const all = [spec, ...more];
  return defineAgent({
    card: {
      id: spec.agentId,
      name: spec.agentName,
      version: '1.0.0',
      tier: 'L3',
      description: spec.agentDescription,
      capabilities: all.map((v) => ({
        verb: v.verb,
        description: v.description,
        input: v.input,
        output: v.output,
      })),
    },
    verbs: all.map((v) => ({
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
    aliases: Object.fromEntries(all.map((v) => [v.alias, v.verb])),
    restart: { maxRestarts: 100 },
    create: () =>
      Object.fromEntries(
        all.map((v) => [
          v.verb,
          (input: JsonValue, ctx: HandlerContext) => {
            if (!isBridgeAdmin(ctx.principal)) {
              throw new PlexusError(
                'FORBIDDEN',
                `${v.alias} ${v.privileged}: only a privileged caller may use it (a credential with the scope ${BRIDGE_ADMIN_SCOPE}, or an in-process caller)`,
                { details: { scope: BRIDGE_ADMIN_SCOPE } },
              );
            }
            return v.handle(input, ctx.principal?.id ?? 'unknown', ctx.signal, traceOf(ctx));
          },
        ]),
      ),
  });
}
