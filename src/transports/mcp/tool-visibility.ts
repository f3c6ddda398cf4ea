/**
 * Which tools a caller sees in `tools/list` (issue 13 item 3; docs/decisions/mcp.md MCP-17):
 * those whose verb the runtime's capability check would let the caller call, asked of the
 * capability authorizer itself (through the face's capability gate) with the envelope a
 * `tools/call` would send — same principal, tenant and capability container — and no audit
 * entry. Without capability checks on the node every tool is listed (every call is allowed
 * as far as capabilities go). A listed tool is still checked when it is called.
 */
import type { Envelope } from '../../core/envelope.js';
import type { Principal } from '../../runtime/index.js';
import type { FaceComponents } from '../face.js';
import { MCP_FACE } from './mcp-protocol.js';
import type { CatalogEntry } from './tool-catalog.js';

/** The caller a tool list is for. */
export interface ListingCaller {
  readonly principal: Principal;
  /** The capability container its credential carries, if any. */
  readonly capability?: string;
}

/**
 * The predicate "the caller may call this tool", or `undefined` when every tool is shown (the
 * node has no capability checks).
 */
export function toolVisibility(
  components: Pick<FaceComponents, 'capabilities' | 'runtime'>,
  caller: ListingCaller,
): ((entry: CatalogEntry) => boolean) | undefined {
  const gate = components.capabilities;
  if (gate?.permits === undefined) return undefined;
  const { registry } = components.runtime.agents;
  const { principal } = caller;
  return (entry) => {
    const card = registry.find(entry.agentId)?.card;
    if (card === undefined) return false;
    const capability = card.capabilities.find((c) => c.verb === entry.verb);
    if (capability === undefined) return false;
    const envelope: Envelope = {
      id: 'mcp-tools-list',
      kind: 'request',
      from: principal.id,
      to: entry.agentId,
      verb: entry.verb,
      data: null,
      ...(principal.tenantId === undefined ? {} : { tenantId: principal.tenantId }),
      ...(caller.capability === undefined ? {} : { capability: caller.capability }),
    };
    return (
      gate.permits?.({
        envelope,
        context: { face: MCP_FACE, principal },
        principal,
        resolution: { kind: 'agent', verb: entry.verb, candidates: [{ card, capability }] },
        verbSpec: (agentId) => registry.verbSpec(agentId, entry.verb),
      }) ?? true
    );
  };
}
