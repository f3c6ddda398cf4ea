/**
 * The callee side of `/plexus/rpc/1.1.0` (frames in `rpc-mux-frames.ts`; MESH-39…MESH-41): many
 * calls on one long-lived stream, each admitted and run by the node's call runner
 * (`rpc-call-runner.ts`) exactly like a `/plexus/rpc/1.0.0` call — every call frame is checked
 * on its own (signature, domain, nonce, signer = the connection's peer, trust), so a forged or
 * replayed call is refused by its id and the stream's other calls go on.
 *
 * - **Bounds.** At most `maxCallsPerStream` calls in flight on a stream and `maxCallsPerPeer`
 *   across all the streams of one remote peer; a call over either bound is refused
 *   `RATE_LIMITED` (retryable) at once — nothing is queued.
 * - **Cancellation.** A `cancel` frame aborts its call (the job is cancelled; nothing more is
 *   sent for that id). The stream closing or being reset cancels every call still on it; the
 *   caller closing its write side lets them finish, then the stream is closed.
 * - **Idle streams.** A stream with no call in flight for `idleTimeoutMs` is closed by this
 *   side (MESH-49): the caller's pool drops it and opens another for its next call; a call
 *   frame that crosses the close fails to deliver (`PEER_UNAVAILABLE`, retryable).
 * - **Bad frames.** A frame that cannot be read (over the limit, not UTF-8 / JSON) or has no
 *   valid `id` refuses the stream: a `refused` frame without `id`, then the stream is closed and
 *   its calls cancelled. A frame of another type is refused by its id.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { RpcCallRunner, RpcConnectionInfo } from './rpc-call-runner.js';
import { encodeFrame, frameReader } from './rpc-frames.js';
import {
  frameIdOf,
  missingCallId,
  muxCallFrameOf,
  type MuxCallFrame,
  type MuxFrame,
} from './rpc-mux-frames.js';
import { chunkBytes, type RpcServer, type RpcStream } from './rpc-server.js';

/** The default bound of calls in flight on one stream. */
export const DEFAULT_MAX_CALLS_PER_STREAM = 128;

/** The default bound of calls in flight from one peer, across its streams. */
export const DEFAULT_MAX_CALLS_PER_PEER = 256;

/** The default idle timeout of a stream, ms (MESH-49). */
export const DEFAULT_RPC_IDLE_TIMEOUT_MS = 120_000;

/** Options of {@link rpcMuxServer}. */
export interface RpcMuxServerInit {
  /** The largest frame, bytes. */
  readonly maxFrameBytes: number;
  /** Calls in flight on one stream. @default 128 */
  readonly maxCallsPerStream?: number;
  /** Calls in flight from one peer, across its streams. @default 256 */
  readonly maxCallsPerPeer?: number;
  /**
   * A stream with no call in flight for this long is closed, ms; 0 never closes one (MESH-49).
   * @default 120000
   */
  readonly idleTimeoutMs?: number;
  /** Where internal failures are logged. @default silentLogger */
  readonly logger?: Logger;
}

/** Creates the many-calls-per-stream server over a node's call runner. */
export function rpcMuxServer(run: RpcCallRunner, init: RpcMuxServerInit): RpcServer {
  const logger = init.logger ?? silentLogger;
  const perStream = init.maxCallsPerStream ?? DEFAULT_MAX_CALLS_PER_STREAM;
  const perPeer = init.maxCallsPerPeer ?? DEFAULT_MAX_CALLS_PER_PEER;
  const idleMs = init.idleTimeoutMs ?? DEFAULT_RPC_IDLE_TIMEOUT_MS;
  const byPeer = new Map<string, number>();
  let inFlight = 0;

  const countPeer = (peer: string, delta: number): void => {
    const next = (byPeer.get(peer) ?? 0) + delta;
    if (next <= 0) byPeer.delete(peer);
    else byPeer.set(peer, next);
    inFlight += delta;
  };

  return {
    get inFlight() {
      return inFlight;
    },
    serve(stream: RpcStream, connection: RpcConnectionInfo) {
      const peer = connection.remotePeer;
      const reader = frameReader(init.maxFrameBytes);
      const calls = new Map<number, AbortController>();
      let closed = false;
      let draining = false;
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      /**
       * MESH-49: when the stream last had no call in flight. One timer per stream, not per
       * call: when it fires early (a call ran meanwhile) it is set again for the time left.
       */
      let idleSince = Date.now();
      let idleTimer: NodeJS.Timeout | undefined;
      const checkIdle = (): void => {
        idleTimer = undefined;
        if (closed) return;
        const left = calls.size > 0 ? idleMs : idleSince + idleMs - Date.now();
        if (left > 0) {
          idleTimer = setTimeout(checkIdle, left);
          idleTimer.unref();
          return;
        }
        shut(new PlexusError('CANCELLED', `the mesh rpc stream was idle for ${String(idleMs)} ms`));
        stream.close().catch(() => undefined);
      };

      const send = (frame: MuxFrame): void => {
        if (closed) return;
        try {
          stream.send(encodeFrame(frame));
        } catch (cause) {
          shut(new PlexusError('CANCELLED', 'the mesh rpc stream closed', { cause }));
        }
      };
      /** Forgets a call; true when it was still in flight (not cancelled or shut). */
      const release = (id: number, controller: AbortController): boolean => {
        if (calls.get(id) !== controller) return false;
        calls.delete(id);
        countPeer(peer, -1);
        if (calls.size === 0) idleSince = Date.now();
        return true;
      };
      const shut = (reason: PlexusError): void => {
        if (closed) return;
        closed = true;
        clearTimeout(idleTimer);
        for (const [id, controller] of [...calls]) {
          release(id, controller);
          controller.abort(reason);
        }
        resolve();
      };
      const maybeEnd = (): void => {
        if (!draining || calls.size > 0 || closed) return;
        shut(new PlexusError('CANCELLED', 'the mesh rpc stream ended'));
        stream.close().catch(() => undefined);
      };
      const refuseStream = (error: unknown): void => {
        send({ t: 'refused', error: toPlexusError(error).toData() });
        shut(new PlexusError('CANCELLED', 'the mesh rpc stream was refused'));
        stream.close().catch(() => undefined);
      };
      const refuse = (id: number, error: unknown): void => {
        const failure = toPlexusError(error);
        if (failure.code === 'INTERNAL') logger.error({ err: error }, 'mesh rpc call failed');
        send({ t: 'refused', id, error: failure.toData() });
      };
      const start = (frame: MuxCallFrame): void => {
        const { id } = frame;
        const controller = new AbortController();
        calls.set(id, controller);
        countPeer(peer, 1);
        run(frame, connection, controller.signal, (progress) => {
          if (calls.get(id) === controller) send({ ...progress, id });
        }).then(
          (answer) => {
            if (release(id, controller)) send({ ...answer, id });
            maybeEnd();
          },
          (error: unknown) => {
            if (release(id, controller)) refuse(id, error);
            maybeEnd();
          },
        );
      };
      const receive = (value: unknown): void => {
        if (closed) return; // the stream was refused by an earlier frame of the chunk
        const id = frameIdOf(value);
        if (id === undefined || !isJsonObject(value)) {
          refuseStream(missingCallId());
          return;
        }
        if (value['t'] === 'cancel') {
          const controller = calls.get(id);
          if (controller !== undefined && release(id, controller)) {
            controller.abort(new PlexusError('CANCELLED', 'the caller cancelled the mesh rpc call'));
          }
          maybeEnd();
          return;
        }
        if (value['t'] !== 'call') {
          refuse(
            id,
            new PlexusError('INVALID_REQUEST', 'a caller sends only "call" and "cancel" frames', {
              details: { field: 't' },
            }),
          );
          return;
        }
        if (calls.has(id)) {
          refuse(
            id,
            new PlexusError('INVALID_REQUEST', `call id ${String(id)} is already in flight on this stream`, {
              details: { field: 'id' },
            }),
          );
          return;
        }
        if (calls.size >= perStream || (byPeer.get(peer) ?? 0) >= perPeer) {
          const streamFull = calls.size >= perStream;
          refuse(
            id,
            new PlexusError(
              'RATE_LIMITED',
              streamFull
                ? `this stream already carries ${String(perStream)} calls in flight; retry, or spread calls over another stream`
                : `peer ${peer} already has ${String(perPeer)} calls in flight on this node; retry later`,
              { retryable: true, details: { reason: 'overloaded', limit: streamFull ? perStream : perPeer } },
            ),
          );
          return;
        }
        let frame: MuxCallFrame;
        try {
          frame = muxCallFrameOf(value, id);
        } catch (error) {
          refuse(id, error);
          return;
        }
        start(frame);
      };

      if (idleMs > 0) {
        idleTimer = setTimeout(checkIdle, idleMs);
        idleTimer.unref();
      }
      stream.addEventListener('close', () => {
        shut(new PlexusError('CANCELLED', 'the caller closed the mesh rpc stream'));
      });
      stream.addEventListener('remoteCloseWrite', () => {
        draining = true;
        maybeEnd();
      });
      stream.addEventListener('message', (event) => {
        if (closed) return;
        let frames: unknown[];
        try {
          frames = reader.push(chunkBytes(event.data));
        } catch (error) {
          refuseStream(error);
          return;
        }
        for (const value of frames) receive(value);
      });
      return promise;
    },
  };
}
