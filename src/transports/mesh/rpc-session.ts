/**
 * The caller's end of one `/plexus/rpc/1.1.0` stream (frames in `rpc-mux-frames.ts`; MESH-39):
 * it numbers the calls it sends, reads the stream in the background and hands each received
 * frame to the call its `id` names. A frame for an id no longer waited for (a cancelled call)
 * is dropped. When the stream ends, breaks, sends a frame that cannot be read or refuses
 * itself, every call still on it is told (`closed`) and the session is over; the pool opens
 * another.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { encodeFrame, frameReader, type CallFrame } from './rpc-frames.js';
import { frameIdOf, type CancelFrame, type MuxCallFrame } from './rpc-mux-frames.js';
import { chunkBytes } from './rpc-server.js';
import type { RpcClientStream } from './rpc-transport.js';

/** Where the frames of one call go. */
export interface CallListener {
  /** A frame for the call; return true when it ends the call (answer, refusal). */
  frame(value: JsonObject): boolean;
  /** The stream ended before the call did. */
  closed(cause: PlexusError): void;
}

/** One call sent on a session. */
export interface SessionCall {
  /** Stops waiting and sends a `cancel` frame (nothing when the call is over). */
  readonly cancel: () => void;
}

/** One multiplexed stream to a peer. */
export interface RpcSession {
  /** Calls waiting for their answer. */
  readonly inFlight: number;
  /** True once the stream is over: no more calls. */
  readonly closed: boolean;
  /**
   * Sends `frame` with a new id.
   * @throws PlexusError `INPUT_TOO_LARGE` (not retryable) when the frame is over the limit;
   *   `PEER_UNAVAILABLE` when the session is closed or the stream refuses the bytes.
   */
  call(frame: CallFrame, listener: CallListener): SessionCall;
  /** Ends the session: closes the stream (resets it when calls are on it, telling each). */
  close(cause: PlexusError): void;
}

/** Options of {@link rpcSession}. */
export interface RpcSessionInit {
  /** The largest frame sent or accepted, bytes. */
  readonly maxFrameBytes: number;
  /** The peer, for messages. */
  readonly peerId: string;
}

/** Starts a session on an open stream of `/plexus/rpc/1.1.0`. */
export function rpcSession(stream: RpcClientStream, init: RpcSessionInit): RpcSession {
  const calls = new Map<number, CallListener>();
  let nextId = 0;
  let closed = false;

  const end = (cause: PlexusError): void => {
    if (closed) return;
    closed = true;
    const listeners = [...calls.values()];
    calls.clear();
    stream.abort(cause);
    for (const listener of listeners) listener.closed(cause);
  };

  const receive = (value: unknown): void => {
    if (closed) return;
    const id = frameIdOf(value);
    if (id === undefined || !isJsonObject(value)) {
      const error = isJsonObject(value) && value['t'] === 'refused' ? value['error'] : undefined;
      const why =
        isJsonObject(error) && typeof error['message'] === 'string'
          ? `refused the stream: ${error['message']}`
          : 'sent a frame without a call id';
      end(
        new PlexusError('PEER_UNAVAILABLE', `mesh peer ${init.peerId} ${why}`, {
          details: { peer: init.peerId },
        }),
      );
      return;
    }
    const listener = calls.get(id);
    if (listener === undefined) return; // a cancelled call's late frames
    if (listener.frame(value)) calls.delete(id);
  };

  void (async () => {
    const reader = frameReader(init.maxFrameBytes);
    try {
      for await (const chunk of stream) {
        for (const value of reader.push(chunkBytes(chunk))) receive(value);
      }
      end(new PlexusError('PEER_UNAVAILABLE', `mesh peer ${init.peerId} closed the rpc stream`));
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      end(
        new PlexusError('PEER_UNAVAILABLE', `the rpc stream to mesh peer ${init.peerId} broke: ${why}`, {
          cause,
          details: { peer: init.peerId },
        }),
      );
    }
  })();

  return {
    get inFlight() {
      return calls.size;
    },
    get closed() {
      return closed;
    },
    call(frame, listener) {
      if (closed) {
        throw new PlexusError('PEER_UNAVAILABLE', `the rpc stream to mesh peer ${init.peerId} is closed`);
      }
      nextId += 1;
      const id = nextId;
      const call: MuxCallFrame = { ...frame, id };
      const bytes = encodeFrame(call);
      if (bytes.byteLength - 4 > init.maxFrameBytes) {
        throw new PlexusError(
          'INPUT_TOO_LARGE',
          `the call is ${String(bytes.byteLength - 4)} bytes, over the ${String(init.maxFrameBytes)}-byte frame limit of mesh rpc`,
          { retryable: false, details: { limit: init.maxFrameBytes, length: bytes.byteLength - 4 } },
        );
      }
      calls.set(id, listener);
      try {
        stream.send(bytes);
      } catch (cause) {
        calls.delete(id);
        end(
          new PlexusError('PEER_UNAVAILABLE', `the rpc stream to mesh peer ${init.peerId} is closed`, {
            cause,
          }),
        );
        throw new PlexusError('PEER_UNAVAILABLE', `the rpc stream to mesh peer ${init.peerId} is closed`, {
          cause,
        });
      }
      return {
        cancel: () => {
          if (!calls.delete(id) || closed) return;
          try {
            const cancel: CancelFrame = { t: 'cancel', id };
            stream.send(encodeFrame(cancel));
          } catch {
            // the stream is gone: the far side cancels everything on it
          }
        },
      };
    },
    close(cause) {
      if (calls.size === 0 && !closed) {
        // nothing to cancel: end the stream gracefully, the far side sees no reset
        closed = true;
        stream.close().catch(() => {
          stream.abort(cause);
        });
        return;
      }
      end(cause);
    },
  };
}
