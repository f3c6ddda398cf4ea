/**
 * The callee side of `/plexus/rpc/1.0.0` (issue 15 item 5; frames in `rpc-frames.ts`), one call
 * per stream, still served for older nodes (MESH-39; many calls per stream: `rpc-mux-server.ts`).
 * A call is admitted and run by the node's call runner (`rpc-call-runner.ts`).
 *
 * Every failure before a job answers a `refused` frame and never throws; once the runtime
 * answered, its answer goes back in an `answer` frame (`beforeJob` when it refused for a
 * retryable reason before any job existed, so the caller may retry, D4). The stream closing
 * or being reset before the answer cancels the job. Streaming calls (`"stream": true`) are
 * submitted and each `job.progress` is sent as a `progress` frame.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { RpcCallRunner, RpcConnectionInfo } from './rpc-call-runner.js';
import { callFrameOf, encodeFrame, frameReader, type CallFrame, type RpcFrame } from './rpc-frames.js';

export { RPC_SERVICE, type RpcConnectionInfo } from './rpc-call-runner.js';

/** What the server needs of a libp2p stream (`@libp2p/interface` `Stream`). */
export interface RpcStream {
  send(data: Uint8Array): boolean;
  close(): Promise<void>;
  abort(err: Error): void;
  addEventListener(type: 'message', listener: (event: { data: RpcChunk }) => void): void;
  addEventListener(type: 'close' | 'remoteCloseWrite', listener: () => void): void;
}

/** A received chunk: bytes, or a list of byte arrays (`Uint8ArrayList`). */
export type RpcChunk = Uint8Array | { subarray(): Uint8Array };

/** Options of {@link rpcServer}. */
export interface RpcServerInit {
  /** The largest frame, bytes. */
  readonly maxFrameBytes: number;
  /** Where internal failures are logged. @default silentLogger */
  readonly logger?: Logger;
}

/** Serves calls arriving on streams. */
export interface RpcServer {
  /** Serves one stream; resolves when the call is over. Never rejects. */
  serve(stream: RpcStream, connection: RpcConnectionInfo): Promise<void>;
  /** Calls being served now. */
  readonly inFlight: number;
}

/** The bytes of a received chunk. */
export function chunkBytes(chunk: RpcChunk): Uint8Array {
  return chunk instanceof Uint8Array ? chunk : chunk.subarray();
}

/** Creates the one-call-per-stream server over a node's call runner (`rpcCallRunner`). */
export function rpcServer(run: RpcCallRunner, init: RpcServerInit): RpcServer {
  const logger = init.logger ?? silentLogger;
  let inFlight = 0;

  return {
    get inFlight() {
      return inFlight;
    },
    serve(stream, connection) {
      inFlight += 1;
      const reader = frameReader(init.maxFrameBytes);
      const controller = new AbortController();
      let started = false;
      let finished = false;
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      const finish = (): void => {
        if (finished) return;
        finished = true;
        inFlight -= 1;
        resolve();
      };
      const send = (frame: RpcFrame): void => {
        if (finished) return;
        try {
          stream.send(encodeFrame(frame));
        } catch {
          controller.abort(new PlexusError('CANCELLED', 'the mesh rpc stream closed'));
        }
      };
      const end = (frame: RpcFrame): void => {
        send(frame);
        finish();
        stream.close().catch(() => undefined);
      };
      const refuse = (error: unknown): void => {
        const failure = toPlexusError(error);
        if (failure.code === 'INTERNAL') logger.error({ err: error }, 'mesh rpc call failed');
        end({ t: 'refused', error: failure.toData() });
      };
      const hangUp = (): void => {
        if (!finished)
          controller.abort(new PlexusError('CANCELLED', 'the caller closed the mesh rpc stream'));
        finish();
      };
      stream.addEventListener('close', hangUp);
      stream.addEventListener('remoteCloseWrite', hangUp);
      stream.addEventListener('message', (event) => {
        if (finished) return;
        let frames: unknown[];
        try {
          frames = reader.push(chunkBytes(event.data));
        } catch (error) {
          controller.abort(toPlexusError(error));
          refuse(error);
          return;
        }
        const first = frames[0];
        if (started || first === undefined) return; // one call per stream; later frames are ignored
        started = true;
        let frame: CallFrame;
        try {
          frame = callFrameOf(first);
        } catch (error) {
          refuse(error);
          return;
        }
        run(frame, connection, controller.signal, send).then(
          (answer) => {
            end(answer);
          },
          (error: unknown) => {
            if (controller.signal.aborted) finish();
            else refuse(error);
          },
        );
      });
      return promise;
    },
  };
}
