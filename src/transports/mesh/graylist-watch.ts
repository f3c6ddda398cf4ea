/**
 * Counts what gossipsub ignores from graylisted peers (MESH-26), for `GET /v1/mesh`: a peer
 * whose score is below the graylist threshold has every RPC it sends dropped unread
 * (`acceptFrom` false), so its messages reach neither the validator nor the node. Gossipsub 17
 * counts these only in its optional metrics; this wraps its two public methods `acceptFrom`
 * and `handleReceivedRpc` on the instance to count them per peer.
 */

/** What the watch needs of gossipsub 17. */
interface WatchedGossipsub {
  acceptFrom(id: string): boolean;
  handleReceivedRpc(
    from: { toString(): string },
    rpc: { readonly messages?: readonly unknown[] },
  ): Promise<void>;
}

/** What gossipsub ignored, by sender. */
export interface GraylistWatch {
  /** Gossip messages dropped unread since start (their senders were graylisted). */
  readonly ignoredMessages: number;
  /** RPCs (messages or control) dropped unread from `peerId` since start. */
  ignoredFrom(peerId: string): number;
}

/**
 * Watches `pubsub`. Returns `undefined` when the two methods are not where gossipsub 17 has
 * them (an upgrade changed it; the caller logs it and the counts stay absent).
 */
export function watchGraylist(pubsub: unknown): GraylistWatch | undefined {
  const target = pubsub as Partial<WatchedGossipsub>;
  if (typeof target.acceptFrom !== 'function' || typeof target.handleReceivedRpc !== 'function') {
    return undefined;
  }
  const acceptFrom = target.acceptFrom.bind(pubsub);
  const handleReceivedRpc = target.handleReceivedRpc.bind(pubsub);
  const ignored = new Map<string, number>();
  let ignoredMessages = 0;
  /** `acceptFrom` refusals so far: the one an RPC's handling makes (synchronously, first) shows. */
  let refusals = 0;
  target.acceptFrom = (id) => {
    const ok = acceptFrom(id);
    if (!ok) refusals += 1;
    return ok;
  };
  target.handleReceivedRpc = (from, rpc) => {
    const before = refusals;
    const handled = handleReceivedRpc(from, rpc);
    if (refusals > before) {
      const id = from.toString();
      ignored.set(id, (ignored.get(id) ?? 0) + 1);
      ignoredMessages += rpc.messages?.length ?? 0;
    }
    return handled;
  };
  return {
    get ignoredMessages() {
      return ignoredMessages;
    },
    ignoredFrom: (peerId) => ignored.get(peerId) ?? 0,
  };
}
