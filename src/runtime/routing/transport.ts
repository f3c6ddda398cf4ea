/**
 * The transport abstraction of seed 002 §6.2: a transport says which targets it can reach
 * (`supports`) and carries one request there (`invoke`). The router asks its transports in
 * order and uses the first that supports the target.
 *
 * A transport rejects with a *retryable* PlexusError when it could not deliver (peer down,
 * timed out, refused for a retryable reason) — that is what fallback policies act on — and
 * resolves with the far side's answer envelope (kind `response` or `error`) otherwise: an
 * `error` answer means the request was delivered and failed there, which is no transport
 * failure.
 */
import type { Envelope } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import { PlexusError } from '../../core/errors.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { pendingTransportError, type RouteTarget } from './target.js';

/** One request for a transport. */
export interface RouteRequest {
  /** Where to. */
  readonly target: RouteTarget;
  /**
   * The request, `to` already set to the agent on the far side (an agent id or a capability
   * selector), without the caller's signature block.
   */
  readonly envelope: Envelope;
  /** The card the router chose, when it chose one (a registry card or one made from the target). */
  readonly card?: AgentCard;
  /**
   * Where the far job's progress goes, when the forwarding job wants it (its
   * `RemoteCallContext.progress`); a transport that cannot carry progress ignores it.
   */
  readonly onProgress?: (data: JsonValue) => void;
}

/** A pluggable transport (local, HTTP peer, …). */
export interface RouteTransport {
  /** Short name for logs and explanations (`local`, `http-peer`). */
  readonly name: string;
  /** True when this transport can carry requests to `target`. */
  supports(target: RouteTarget): boolean;
  /**
   * Carries `request` and resolves with the answer envelope (kind `response` or `error`).
   * Must stop and reject with `CANCELLED` when `signal` aborts.
   *
   * @throws PlexusError a retryable error when the request could not be delivered.
   */
  invoke(request: RouteRequest, signal: AbortSignal): Promise<Envelope>;
}

/**
 * The first transport that supports `target`.
 *
 * @throws PlexusError `UNAVAILABLE` (not retryable) naming the target when none does.
 */
export function transportFor(transports: readonly RouteTransport[], target: RouteTarget): RouteTransport {
  const found = transports.find((t) => t.supports(target));
  if (found !== undefined) return found;
  if (target.scheme === 'p2p' || target.scheme === 'mcp' || target.scheme === 'a2a')
    throw pendingTransportError(target);
  const names = transports.map((t) => t.name).join(', ') || 'none';
  return unreachable(target, names);
}

function unreachable(target: RouteTarget, names: string): never {
  throw new PlexusError(
    'UNAVAILABLE',
    `no transport of this node reaches ${JSON.stringify(target.text)} (transports: ${names}); an http(s) target must be one of the node's configured peers`,
    { retryable: false, details: { target: target.text } },
  );
}
