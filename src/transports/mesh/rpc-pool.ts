/**
 * The caller's long-lived `/plexus/rpc/1.1.0` streams, a small pool per peer (MESH-40): opened
 * lazily when a call needs one, dropped when they end (the next call opens another). A call
 * goes to the least busy open stream; another stream is opened only when every open one carries
 * `spreadAt` calls or more, up to `streamsPerPeer`. When every stream of the peer carries
 * `callsPerStream` calls, the call is refused `RATE_LIMITED` (retryable) at once — there is no
 * queue. Concurrent calls wait for the one stream being opened instead of each opening theirs.
 */
import { PlexusError } from '../../core/errors.js';
import { rpcSession, type RpcSession } from './rpc-session.js';
import type { RpcClientStream } from './rpc-transport.js';

/** The default number of streams per peer. */
export const DEFAULT_STREAMS_PER_PEER = 2;

/** The default bound of calls in flight on one of this node's streams. */
export const DEFAULT_CALLS_PER_STREAM = 128;

/** Options of {@link rpcPool}. */
export interface RpcPoolInit {
  /** Opens a stream of the protocol to a peer. */
  readonly open: (peerId: string, signal: AbortSignal) => Promise<RpcClientStream>;
  /** The largest frame sent or accepted, bytes. */
  readonly maxFrameBytes: number;
  /** Streams per peer. @default 2 */
  readonly streamsPerPeer?: number;
  /** Calls in flight per stream. @default 128 */
  readonly callsPerStream?: number;
  /** Calls on each open stream before another is opened. @default half of callsPerStream */
  readonly spreadAt?: number;
  /** Longest wait to open a stream, ms. @default 10000 */
  readonly openTimeoutMs?: number;
}

/** The pools of every peer. */
export interface RpcPool {
  /**
   * A session with room for one more call.
   * @throws PlexusError `RATE_LIMITED` (retryable) when every stream is full; whatever opening
   *   a stream threw; `CANCELLED` when `signal` aborts while waiting for it.
   */
  session(peerId: string, signal: AbortSignal): Promise<RpcSession>;
  /** Streams open now to `peerId` (for tests and status). */
  streams(peerId: string): number;
  /** Closes every stream. */
  close(): void;
}

interface PeerStreams {
  sessions: RpcSession[];
  opening: Promise<RpcSession> | undefined;
}

/** Creates the pools. */
export function rpcPool(init: RpcPoolInit): RpcPool {
  const streamsPerPeer = init.streamsPerPeer ?? DEFAULT_STREAMS_PER_PEER;
  const callsPerStream = init.callsPerStream ?? DEFAULT_CALLS_PER_STREAM;
  const spreadAt = init.spreadAt ?? Math.max(1, Math.floor(callsPerStream / 2));
  const openTimeoutMs = init.openTimeoutMs ?? 10_000;
  const peers = new Map<string, PeerStreams>();

  const entryOf = (peerId: string): PeerStreams => {
    let entry = peers.get(peerId);
    if (entry === undefined) {
      entry = { sessions: [], opening: undefined };
      peers.set(peerId, entry);
    }
    entry.sessions = entry.sessions.filter((s) => !s.closed);
    return entry;
  };

  const openOne = (peerId: string, entry: PeerStreams): Promise<RpcSession> => {
    const opening = init.open(peerId, AbortSignal.timeout(openTimeoutMs)).then((stream) => {
      const session = rpcSession(stream, { maxFrameBytes: init.maxFrameBytes, peerId });
      entry.sessions.push(session);
      return session;
    });
    entry.opening = opening;
    const clear = (): void => {
      if (entry.opening === opening) entry.opening = undefined;
    };
    opening.then(clear, clear);
    return opening;
  };

  return {
    async session(peerId, signal) {
      // bounded: each turn either returns, throws, or waits for one opening to settle
      for (let turn = 0; turn <= streamsPerPeer + 1; turn += 1) {
        const entry = entryOf(peerId);
        let best: RpcSession | undefined;
        for (const s of entry.sessions) {
          if (s.inFlight < callsPerStream && (best === undefined || s.inFlight < best.inFlight)) best = s;
        }
        const room = entry.sessions.length < streamsPerPeer;
        if (best !== undefined && (best.inFlight < spreadAt || !room)) return best;
        if (entry.opening !== undefined) {
          if (best !== undefined) return best;
          await untilSettled(entry.opening, signal);
          continue;
        }
        if (room) {
          const opening = openOne(peerId, entry);
          if (best !== undefined) {
            opening.catch(() => undefined); // opened for later calls; this one goes on `best`
            return best;
          }
          return await abortable(opening, signal);
        }
        break;
      }
      throw new PlexusError(
        'RATE_LIMITED',
        `mesh peer ${peerId} already has ${String(streamsPerPeer * callsPerStream)} calls in flight from this node`,
        { retryable: true, details: { peer: peerId, reason: 'overloaded' } },
      );
    },
    streams(peerId) {
      return peers.get(peerId)?.sessions.filter((s) => !s.closed).length ?? 0;
    },
    close() {
      const cause = new PlexusError('CANCELLED', 'the mesh rpc client stopped');
      for (const entry of peers.values()) for (const s of entry.sessions) s.close(cause);
      peers.clear();
    },
  };
}

/** `promise`, or `CANCELLED` as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new PlexusError('CANCELLED', 'the mesh call was cancelled'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(new PlexusError('CANCELLED', 'the mesh call was cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Waits until `promise` settles either way (or `signal` aborts: `CANCELLED`). */
async function untilSettled(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  await abortable(
    promise.then(
      () => undefined,
      () => undefined,
    ),
    signal,
  );
}
