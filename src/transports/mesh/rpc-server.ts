/**
 * The callee side of `/plexus/rpc/1.0.0` (issue 15 item 5; frames in `rpc-frames.ts`). A call
 * is admitted exactly like an HTTP peer call (`peer-admission.ts`): the frame's D3 envelope is
 * checked for shape, for the domain `plexus/rpc/<verb>`, signature, time window and nonce
 * (the node's one verifier, shared with `POST /v1/peer/invoke`), its signer must be the peer
 * at the other end of the (Noise-authenticated) connection, and the signer is admitted as a
 * `peer` principal by the node's trust set; tenant and capability (UCAN, carried in the
 * envelope's `capability`) rules then apply in the runtime like on any face.
 *
 * Every failure before a job answers a `refused` frame and never throws; once the runtime
 * answered, its answer goes back in an `answer` frame (`beforeJob` when it refused for a
 * retryable reason before any job existed, so the caller may retry, D4). The stream closing
 * or being reset before the answer cancels the job. Streaming calls (`"stream": true`) are
 * submitted and each `job.progress` is sent as a `progress` frame.
 */
import { cleanTracestate } from '../../core/tracestate.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { silentLogger } from '../../core/logger.js';
import type { Invocation, InvocationContext } from '../../runtime/index.js';
import { assertSignedEnvelopeShape, rpcDomain } from '../../security/index.js';
import type { FaceComponents } from '../face-components.js';
import { admitPeerSigner, untrustedSigner } from '../peer/peer-admission.js';
import { tryPeerDid } from '../peer/peer-config.js';
import { PEER_FACE } from '../peer/peer-routes.js';
import { callFrameOf, encodeFrame, frameReader, type CallFrame, type RpcFrame } from './rpc-frames.js';
import { errorOfAnswer } from '../answer-error.js';
import { callerTraceparent } from '../trace-headers.js';

/** `rpc.service` of a mesh call's SERVER span (OTel RPC conventions). */
export const RPC_SERVICE = 'plexus.rpc';

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

/** Who is at the other end of the connection. */
export interface RpcConnectionInfo {
  /** The remote PeerId (authenticated by Noise). */
  readonly remotePeer: string;
  /** The remote multiaddr, for audit. */
  readonly remoteAddr: string;
}

/** Options of {@link rpcServer}. */
export interface RpcServerInit {
  /** The node's trust set (did:keys); absent = only an open (dev) node admits signers. */
  readonly trusted?: ReadonlySet<string>;
  /** The largest frame, bytes. */
  readonly maxFrameBytes: number;
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

/** Creates the server of a node. */
export function rpcServer(components: FaceComponents, init: RpcServerInit): RpcServer {
  const logger = components.logger ?? silentLogger;
  let inFlight = 0;

  async function run(
    frame: CallFrame,
    connection: RpcConnectionInfo,
    signal: AbortSignal,
    send: (frame: RpcFrame) => void,
  ): Promise<RpcFrame> {
    const signed = assertSignedEnvelopeShape(frame.signed);
    if (init.trusted !== undefined) {
      const claimed = tryPeerDid(signed.from);
      if (claimed !== undefined && !init.trusted.has(claimed)) throw untrustedSigner(signed.from);
    }
    const d = signed.d;
    if (!isJsonObject(d) || typeof d['verb'] !== 'string' || d['verb'] === '' || d['kind'] !== 'request') {
      throw new PlexusError(
        'MALFORMED_ENVELOPE',
        'signed envelope field "d" must be a core request Envelope (kind "request", with a verb)',
        { details: { field: 'd' } },
      );
    }
    const { signer } = components.verifier.verify(frame.signed, rpcDomain(d['verb']));
    if (signer.peerId !== connection.remotePeer) {
      throw new PlexusError(
        'SIGNER_MISMATCH',
        `the call is signed by ${signer.peerId}, but came from peer ${connection.remotePeer}; a mesh peer may only send calls it signed itself`,
        { details: { signer: signer.did, peer: connection.remotePeer } },
      );
    }
    const principal = await admitPeerSigner(undefined, signer.did, components, init.trusted);
    const context: InvocationContext = {
      face: PEER_FACE,
      principal,
      transport: { peer: signer.did, meshPeer: connection.remotePeer, remoteAddress: connection.remoteAddr },
      ...(frame.timeoutMs === undefined ? {} : { timeoutMs: frame.timeoutMs }),
    };
    const request = d as unknown as Envelope;
    // a SERVER span (OTel RPC conventions) under the caller's hop; the invocation is its sibling (OBS-9)
    const parent = callerTraceparent(request.traceparent);
    const tracestate = parent === undefined ? undefined : cleanTracestate(request.tracestate); // OBS-45
    const span = components.tracing?.span(
      `${RPC_SERVICE}/${request.verb}`,
      {
        'rpc.system': 'plexus',
        'rpc.service': RPC_SERVICE,
        'rpc.method': request.verb,
        'network.peer.address': connection.remoteAddr,
      },
      {
        kind: 'server',
        ...(parent === undefined ? {} : { parent }),
        ...(tracestate === undefined ? {} : { tracestate }),
      },
    );
    try {
      const answer: RpcFrame =
        frame.stream === true
          ? { t: 'answer', envelope: await streamed(request, context, signal, send) }
          : await invoked(request, context, signal);
      span?.end(
        answer.t === 'answer' && answer.envelope.kind === 'error'
          ? errorOfAnswer(answer.envelope)
          : undefined,
      );
      return answer;
    } catch (error) {
      span?.end(toPlexusError(error));
      throw error;
    }
  }

  async function invoked(
    request: Envelope,
    context: InvocationContext,
    signal: AbortSignal,
  ): Promise<RpcFrame> {
    const invocation = await components.runtime.invoke(request, context, { signal });
    return {
      t: 'answer',
      envelope: invocation.envelope,
      ...(beforeJob(invocation) ? { beforeJob: true } : {}),
    };
  }

  async function streamed(
    request: Envelope,
    context: InvocationContext,
    signal: AbortSignal,
    send: (frame: RpcFrame) => void,
  ): Promise<Envelope> {
    const { runtime } = components;
    const { job, duplicate } = await runtime.submit(request, context, { signal });
    const cancel = (): void => {
      if (!duplicate)
        runtime.jobs.cancel(job.id, { reason: 'the mesh rpc stream closed' }).catch(() => undefined);
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      let seq = 0;
      for await (const event of runtime.jobs.watch(job.id, { signal })) {
        if (event.type === 'job.progress') {
          const data = isJsonObject(event.data) ? (event.data['progress'] ?? null) : null;
          send({ t: 'progress', seq: ++seq, data });
        }
        if (event.terminal) break;
      }
      await runtime.jobs.wait(job.id, { signal });
      return await runtime.jobs.answer(job.id, { signal });
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

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

/** True when the runtime refused before any job existed, for a retryable reason. */
function beforeJob(invocation: Invocation): boolean {
  const { envelope } = invocation;
  return (
    invocation.job === undefined &&
    envelope.kind === 'error' &&
    isJsonObject(envelope.data) &&
    envelope.data['retryable'] === true
  );
}
