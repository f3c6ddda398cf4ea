/**
 * The seam to other nodes: requests for agents whose card has `origin: 'remote'` go to a
 * `RemoteInvoker`, which the transports layer implements (HTTP / WebSocket forwarding of a
 * signed envelope, with retries per D4). The runtime supervises the call like a local
 * handler: same deadline, same cancellation, same job events.
 */
import type { Envelope } from '../core/envelope.js';
import type { AgentCard } from '../core/records/agent-card.js';

/** Forwards a request to an agent on another node. */
export interface RemoteInvoker {
  /**
   * Sends `envelope` (a request, its `to` set to the card's id) to the remote agent described
   * by `card` and resolves with the remote answer: an envelope of kind `response` (its
   * `data` is the output) or `error` (its `data` is an `ErrorData`).
   *
   * Must stop and reject when `signal` aborts (the job was cancelled or timed out).
   *
   * @throws PlexusError `PEER_UNAVAILABLE` (retryable) when the peer cannot be reached, or any
   *   other PlexusError describing the failure; the job fails with it.
   */
  invoke(card: AgentCard, envelope: Envelope, signal: AbortSignal): Promise<Envelope>;
}
