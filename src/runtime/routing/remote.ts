/**
 * The seam to other nodes: requests for agents whose card has `origin: 'remote'` go to a
 * `RemoteInvoker`, which the transports layer implements (HTTP / WebSocket forwarding of a
 * signed envelope, with retries per D4) and the router wraps with fallback policies
 * (`routing/routing-invoker.ts`). The runtime supervises the call like a local handler:
 * same deadline, same cancellation, same job events.
 */
import type { Envelope } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { Principal } from '../context.js';
import type { RouteTarget } from './target.js';

/** The job a remote call belongs to. */
export interface RemoteCallContext {
  /** The id of the job on this node that forwards the request. */
  readonly jobId: string;
  /** The job's authenticated caller, when there is one. */
  readonly principal?: Principal;
  /**
   * Reports progress of the forwarding job: a transport that carries the far job's progress
   * (the mesh's `/plexus/rpc/1.0.0`) calls it for each report, so the far handler's progress
   * becomes this job's `job.progress`. Set for async jobs, whose progress someone may watch.
   */
  readonly progress?: (data: JsonValue) => void;
}

/** Where an http(s) target URL points among the node's configured peers. */
export interface PeerTargetMatch {
  /** The configured peer's base URL. */
  readonly peer: string;
  /** The agent id named after the peer's URL (`http://host:port/<agent>`), when any. */
  readonly agent?: string;
}

/** What the router needs to honour envelope targets and fallback policies at resolve time. */
export interface TargetRoutes {
  /** The configured peer an http(s) URL (normalised, no trailing `/`) names, or `undefined`. */
  peerOf(url: string): PeerTargetMatch | undefined;
  /**
   * Checks the fallback policy an envelope names.
   * @throws PlexusError `INVALID_PARAMS` for an unknown policy or step.
   */
  checkPolicy(envelope: Envelope): void;
  /**
   * True when a transport of this node carries `target` now (a `p2p://` target needs the mesh
   * face's transport). @default false: p2p targets are refused `UNAVAILABLE`
   */
  carries?(target: RouteTarget): boolean;
}

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
  invoke(
    card: AgentCard,
    envelope: Envelope,
    signal: AbortSignal,
    context?: RemoteCallContext,
  ): Promise<Envelope>;
  /** How envelope targets map onto the peers this invoker reaches. @default none: http(s) targets are refused */
  readonly routes?: TargetRoutes;
  /**
   * False when this invoker has no way to reach `card` (the router then treats the card as
   * unavailable and may pick another). @default every remote card is assumed reachable
   */
  reaches?(card: AgentCard): boolean;
}
