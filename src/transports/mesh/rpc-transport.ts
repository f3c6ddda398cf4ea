/**
 * The caller side of the mesh rpc protocols (issue 15 item 5) and the router's `mesh-rpc`
 * transport: `p2p://did:key:…[/agent]` targets, and every remote card a mesh peer announced
 * (the router turns its owner into such a target), go to the owning peer over libp2p.
 *
 * Each attempt signs the request with the node key for `plexus/rpc/<verb>` (afresh — a new
 * nonce — over the same envelope, so the far side's idempotency key stays the same) and sends
 * it in a `call` frame on one of the peer's long-lived `/plexus/rpc/1.1.0` streams
 * (`rpc-pool.ts`, MESH-39/40): the frames of its id are read until the `answer` or `refused`
 * frame; `progress` frames go to `onProgress`. Aborting the signal (or the attempt's deadline)
 * sends a `cancel` frame, which cancels the far job; a stream that dies fails its calls as
 * failures to deliver. A peer that does not speak 1.1.0 (an older node) is called on
 * `/plexus/rpc/1.0.0`, one stream per call, reset to cancel (MESH-41).
 *
 * Retries (D4, the schedule of the HTTP peer client) only for failures to deliver: the peer
 * cannot be dialled, the stream broke before an answer, the attempt timed out, or the far side
 * refused for a retryable reason (`refused` with `retryable`, or `answer` with `beforeJob`).
 * When the retries are spent the call rejects `PEER_UNAVAILABLE` (retryable: the router's
 * fallback policies act on it).
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError, type ErrorData } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { RouteTransport } from '../../runtime/routing/index.js';
import { identityFromName, rpcDomain, signEnvelope, type Ed25519KeyPair } from '../../security/index.js';
import { answerEnvelopeOf, withDetails } from '../peer/peer-wire.js';
import {
  checkAttemptTimeout,
  retryAttempts,
  retryRunner,
  type AttemptOutcome,
  type RetryOptions,
} from '../peer/retry.js';
import { RPC_PROTOCOL, encodeFrame, frameReader, type CallFrame } from './rpc-frames.js';
import { RPC_MUX_PROTOCOL } from './rpc-mux-frames.js';
import { rpcPool } from './rpc-pool.js';
import { chunkBytes, type RpcChunk } from './rpc-server.js';
import type { RpcSession } from './rpc-session.js';

/** How long a peer found not to speak `/plexus/rpc/1.1.0` is called on 1.0.0 before asking again, ms. */
export const LEGACY_RECHECK_MS = 300_000;

/** What the client needs of an outbound libp2p stream. */
export interface RpcClientStream extends AsyncIterable<RpcChunk> {
  send(data: Uint8Array): boolean;
  abort(err: Error): void;
  close(): Promise<void>;
}

/** Opens a stream of `protocol` to a peer (the mesh peer's `dialProtocol`). */
export type RpcDialer = (peerId: string, protocol: string, signal: AbortSignal) => Promise<RpcClientStream>;

/** Options of {@link meshRpcClient}. */
export interface MeshRpcClientInit extends RetryOptions {
  /** The node key: every call is signed with it. */
  readonly key: Ed25519KeyPair;
  /** Opens streams; `undefined` while the mesh is not running (calls then fail PEER_UNAVAILABLE). */
  readonly dial: () => RpcDialer | undefined;
  /** The largest answer frame accepted, bytes. */
  readonly maxFrameBytes: number;
  /** Longest wait for one attempt, ms (also sent as the far job's timeout). @default the signal alone */
  readonly attemptTimeoutMs?: number;
  /** The clock for signatures, Unix ms. @default Date.now */
  readonly now?: () => number;
  /** Long-lived streams per peer. @default 2 */
  readonly streamsPerPeer?: number;
  /** Calls in flight on one stream; beyond every stream's bound a call is `RATE_LIMITED`. @default 128 */
  readonly callsPerStream?: number;
}

/** Options of one call. */
export interface MeshCallOptions {
  readonly signal: AbortSignal;
  /** Ask for progress frames (a streaming verb) and receive each. */
  readonly onProgress?: (data: JsonValue, seq: number) => void;
}

/** Calls agents on mesh peers. */
export interface MeshRpcClient {
  /**
   * Sends `envelope` (a request, `to` set) to the peer `peerId` and resolves with its answer.
   * @throws PlexusError `PEER_UNAVAILABLE` (retryable) when it cannot be delivered after the
   *   retries, `CANCELLED` when the signal aborts, or the far side's non-retryable refusal
   *   (`SIGNATURE_*`, `FORBIDDEN`, `INPUT_TOO_LARGE`, …, with `details.peer`).
   */
  call(peerId: string, envelope: Envelope, options: MeshCallOptions): Promise<Envelope>;
  /** Long-lived streams open now to `peerId`. */
  streams(peerId: string): number;
  /** Closes every long-lived stream (their calls fail, retryable). */
  close(): void;
}

function cancelled(): PlexusError {
  return new PlexusError('CANCELLED', 'the mesh call was cancelled');
}

/** Creates the client. @throws PlexusError `INVALID_PARAMS` for a bad retry schedule or timeout. */
export function meshRpcClient(init: MeshRpcClientInit): MeshRpcClient {
  const runOf = retryRunner(init, cancelled);
  const attemptTimeoutMs =
    init.attemptTimeoutMs === undefined ? undefined : checkAttemptTimeout(init.attemptTimeoutMs);
  const now = init.now ?? Date.now;
  const legacy = new Map<string, number>();
  const pool = rpcPool({
    maxFrameBytes: init.maxFrameBytes,
    ...(init.streamsPerPeer === undefined ? {} : { streamsPerPeer: init.streamsPerPeer }),
    ...(init.callsPerStream === undefined ? {} : { callsPerStream: init.callsPerStream }),
    open: (peerId, signal) => {
      const dial = init.dial();
      if (dial === undefined) {
        return Promise.reject(
          new PlexusError('PEER_UNAVAILABLE', 'the mesh of this node is not running', {
            details: { peer: peerId },
          }),
        );
      }
      return dial(peerId, RPC_MUX_PROTOCOL, signal);
    },
  });
  const isLegacy = (peerId: string): boolean => {
    const since = legacy.get(peerId);
    if (since === undefined) return false;
    if (now() - since < LEGACY_RECHECK_MS) return true;
    legacy.delete(peerId);
    return false;
  };

  async function attempt(
    peerId: string,
    envelope: Envelope,
    options: MeshCallOptions,
  ): Promise<AttemptOutcome> {
    const where = { peer: peerId };
    /** `unsent`: the call's stream could not be opened, so nothing of it reached the peer. */
    const unavailable = (why: string, cause?: unknown, unsent = false): AttemptOutcome => ({
      kind: 'retry',
      error: new PlexusError('PEER_UNAVAILABLE', `mesh peer ${peerId} ${why}`, {
        ...(cause === undefined ? {} : { cause }),
        details: where,
      }),
      unsent,
    });
    const dial = init.dial();
    if (dial === undefined)
      return unavailable('cannot be reached: the mesh of this node is not running', undefined, true);
    let frame: CallFrame;
    try {
      const signed = signEnvelope(envelope as unknown as JsonValue, {
        key: init.key,
        domain: rpcDomain(envelope.verb),
        now,
      });
      frame = {
        t: 'call',
        signed: signed as unknown as JsonValue,
        ...(attemptTimeoutMs === undefined ? {} : { timeoutMs: attemptTimeoutMs }),
        ...(options.onProgress === undefined ? {} : { stream: true }),
      };
    } catch (error) {
      return { kind: 'fail', error: toPlexusError(error) };
    }
    const controller = new AbortController();
    const cut = { timedOut: false };
    const onAbort = (): void => {
      controller.abort();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const timer =
      attemptTimeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            cut.timedOut = true;
            controller.abort();
          }, attemptTimeoutMs);
    let stream: RpcClientStream | undefined;
    const hangUp = (): void => {
      stream?.abort(new Error('the mesh call was cancelled'));
    };
    controller.signal.addEventListener('abort', hangUp, { once: true });
    const stopped = (cause?: unknown): AttemptOutcome => {
      if (options.signal.aborted) return { kind: 'fail', error: cancelled() };
      if (cut.timedOut) {
        return {
          kind: 'retry',
          error: new PlexusError(
            'TIMEOUT',
            `mesh peer ${peerId} did not answer within ${String(attemptTimeoutMs)} ms`,
            {
              details: where,
            },
          ),
        };
      }
      return unavailable(
        `closed the call before answering${cause === undefined ? '' : `: ${describe(cause)}`}`,
        cause,
      );
    };
    try {
      if (!isLegacy(peerId)) {
        let session: RpcSession | undefined;
        try {
          session = await pool.session(peerId, controller.signal);
        } catch (cause) {
          if (isUnsupportedProtocol(cause)) {
            legacy.set(peerId, now()); // an older node: one stream per call (MESH-41)
          } else if (controller.signal.aborted) {
            return stopped(cause);
          } else if (cause instanceof PlexusError && cause.code === 'RATE_LIMITED') {
            return { kind: 'retry', error: cause };
          } else {
            return unavailable(`cannot be reached: ${describe(cause)}`, cause, true);
          }
        }
        if (session !== undefined)
          return await onSession(session, peerId, frame, options, controller.signal, stopped);
      }
      try {
        stream = await dial(peerId, RPC_PROTOCOL, controller.signal);
      } catch (cause) {
        if (controller.signal.aborted) return stopped(cause);
        return unavailable(`cannot be reached: ${describe(cause)}`, cause, true);
      }
      if (controller.signal.aborted) {
        hangUp();
        return stopped();
      }
      try {
        stream.send(encodeFrame(frame));
      } catch (cause) {
        return stopped(cause);
      }
      const reader = frameReader(init.maxFrameBytes);
      try {
        for await (const chunk of stream) {
          for (const value of reader.push(chunkBytes(chunk))) {
            const outcome = outcomeOf(value, peerId, options);
            if (outcome !== undefined) {
              void stream.close().catch(() => undefined);
              return outcome;
            }
          }
        }
      } catch (cause) {
        if (cause instanceof PlexusError && !isAborted(controller.signal)) {
          hangUp();
          return {
            kind: 'fail',
            error: withDetails(cause, where, `mesh peer ${peerId} answered badly: ${cause.message}`),
          };
        }
        return stopped(cause);
      }
      return stopped();
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      controller.signal.removeEventListener('abort', hangUp);
    }
  }

  return {
    call(peerId, envelope, options) {
      return retryAttempts(
        () => attempt(peerId, envelope, options),
        options.signal,
        runOf({ peer: peerId, request: envelope.id }, 'mesh call failed; retrying'),
      );
    },
    streams: (peerId) => pool.streams(peerId),
    close() {
      pool.close();
    },
  };
}

/**
 * One attempt on a long-lived stream: sends the call and resolves with the outcome its frames
 * give, or `stopped` when the stream dies or `signal` aborts (then a `cancel` frame goes out).
 */
function onSession(
  session: RpcSession,
  peerId: string,
  frame: CallFrame,
  options: MeshCallOptions,
  signal: AbortSignal,
  stopped: (cause?: unknown) => AttemptOutcome,
): Promise<AttemptOutcome> {
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let cancel = (): void => undefined;
    const done = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => {
      cancel();
      done(stopped());
    };
    if (signal.aborted) {
      done(stopped());
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      cancel = session.call(frame, {
        frame: (value) => {
          const outcome = outcomeOf(value, peerId, options);
          if (outcome === undefined) return false;
          done(outcome);
          return true;
        },
        closed: (cause) => {
          done(stopped(cause));
        },
      }).cancel;
    } catch (cause) {
      done(
        cause instanceof PlexusError && cause.code === 'INPUT_TOO_LARGE'
          ? { kind: 'fail', error: withDetails(cause, { peer: peerId }) }
          : stopped(cause),
      );
    }
  });
}

/** True when `error` (or its cause) is libp2p's "the peer does not speak this protocol". */
function isUnsupportedProtocol(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e.name === 'UnsupportedProtocolError') return true;
  }
  return false;
}

/** What one received frame means for the attempt: `undefined` = read on (progress). */
function outcomeOf(value: unknown, peerId: string, options: MeshCallOptions): AttemptOutcome | undefined {
  const where = { peer: peerId };
  if (isJsonObject(value) && value['t'] === 'progress') {
    const seq = typeof value['seq'] === 'number' ? value['seq'] : 0;
    options.onProgress?.(value['data'] ?? null, seq);
    return undefined;
  }
  if (isJsonObject(value) && value['t'] === 'answer') {
    const answer = answerEnvelopeOf(value['envelope']);
    if (answer === undefined) return malformed(peerId);
    if (value['beforeJob'] === true && isJsonObject(answer.data)) {
      const error = PlexusError.fromData(answer.data as unknown as ErrorData);
      return {
        kind: 'retry',
        error: withDetails(error, where, `mesh peer ${peerId} refused: ${error.message}`),
        answer,
      };
    }
    return { kind: 'answer', envelope: answer };
  }
  if (isJsonObject(value) && value['t'] === 'refused' && isJsonObject(value['error'])) {
    const data = value['error'] as unknown as ErrorData;
    if (typeof data.code !== 'string' || typeof data.message !== 'string') return malformed(peerId);
    const error = withDetails(
      PlexusError.fromData(data),
      where,
      `mesh peer ${peerId} refused: ${data.message}`,
    );
    return error.retryable ? { kind: 'retry', error } : { kind: 'fail', error };
  }
  return malformed(peerId);
}

function malformed(peerId: string): AttemptOutcome {
  return {
    kind: 'fail',
    error: new PlexusError(
      'PEER_UNAVAILABLE',
      `mesh peer ${peerId} answered with a frame that is not an answer`,
      {
        retryable: false,
        details: { peer: peerId },
      },
    ),
  };
}

/** `signal.aborted`, read afresh (it changes across awaits). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/** The PeerId a did:key (or PeerId) names. */
export function peerIdOf(identity: string): string {
  return identityFromName(identity).peerId;
}

/**
 * The router's `mesh-rpc` transport over `client`: `p2p://` targets; the agent named in the
 * target, else the envelope's `to`.
 */
export function meshRpcTransport(client: MeshRpcClient): RouteTransport {
  return {
    name: 'mesh-rpc',
    supports: (target) => target.scheme === 'p2p',
    invoke({ target, envelope, onProgress }, signal) {
      if (target.scheme !== 'p2p') {
        return Promise.reject(
          new PlexusError('UNAVAILABLE', `mesh-rpc does not carry ${target.text}`, { retryable: false }),
        );
      }
      const to = target.agent ?? envelope.to;
      return client.call(
        peerIdOf(target.did),
        { ...envelope, to },
        {
          signal,
          // the far job's progress frames become the forwarding job's progress (MESH-27)
          ...(onProgress === undefined
            ? {}
            : {
                onProgress: (data) => {
                  onProgress(data);
                },
              }),
        },
      );
    },
  };
}
