/**
 * One mesh call, from its call frame to its answer — shared by `/plexus/rpc/1.0.0`
 * (`rpc-server.ts`, a stream per call) and `/plexus/rpc/1.1.0` (`rpc-mux-server.ts`, many
 * calls per stream). A call is admitted exactly like an HTTP peer call (`peer-admission.ts`):
 * the frame's D3 envelope is checked for shape, for the domain `plexus/rpc/<verb>`, signature,
 * time window and nonce (the node's one verifier, shared with `POST /v1/peer/invoke`), its
 * signer must be the peer at the other end of the (Noise-authenticated) connection, and the
 * signer is admitted as a `peer` principal by the node's trust set; tenant and capability
 * (UCAN, carried in the envelope's `capability`) rules then apply in the runtime like on any
 * face. Streaming calls (`"stream": true`) are submitted and each `job.progress` is sent as a
 * `progress` frame; aborting the signal cancels the job.
 */
import { cleanTracestate } from '../../core/tracestate.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { Invocation, InvocationContext } from '../../runtime/index.js';
import { assertSignedEnvelopeShape, rpcDomain } from '../../security/index.js';
import type { FaceComponents } from '../face-components.js';
import { admitPeerSigner, untrustedSigner } from '../peer/peer-admission.js';
import { tryPeerDid } from '../peer/peer-config.js';
import { PEER_FACE } from '../peer/peer-routes.js';
import type { AnswerFrame, CallFrame, ProgressFrame } from './rpc-frames.js';
import { errorOfAnswer } from '../answer-error.js';
import { callerTraceparent } from '../trace-headers.js';

/** `rpc.service` of a mesh call's SERVER span (OTel RPC conventions). */
export const RPC_SERVICE = 'plexus.rpc';

/** Who is at the other end of the connection. */
export interface RpcConnectionInfo {
  /** The remote PeerId (authenticated by Noise). */
  readonly remotePeer: string;
  /** The remote multiaddr, for audit. */
  readonly remoteAddr: string;
}

/**
 * Runs one call and resolves with its answer frame; `send` gets the progress frames.
 * @throws PlexusError why the call was refused before any job (shape, signature, trust, …).
 */
export type RpcCallRunner = (
  frame: CallFrame,
  connection: RpcConnectionInfo,
  signal: AbortSignal,
  send: (frame: ProgressFrame) => void,
) => Promise<AnswerFrame>;

/** Creates the call runner of a node; `trusted` absent = only an open (dev) node admits signers. */
export function rpcCallRunner(
  components: FaceComponents,
  trusted: ReadonlySet<string> | undefined,
): RpcCallRunner {
  return async function run(frame, connection, signal, send) {
    const signed = assertSignedEnvelopeShape(frame.signed);
    if (trusted !== undefined) {
      const claimed = tryPeerDid(signed.from);
      if (claimed !== undefined && !trusted.has(claimed)) throw untrustedSigner(signed.from);
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
    const principal = await admitPeerSigner(undefined, signer.did, components, trusted);
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
      const answer: AnswerFrame =
        frame.stream === true
          ? { t: 'answer', envelope: await streamed(request, context, signal, send) }
          : await invoked(request, context, signal);
      span?.end(answer.envelope.kind === 'error' ? errorOfAnswer(answer.envelope) : undefined);
      return answer;
    } catch (error) {
      span?.end(toPlexusError(error));
      throw error;
    }
  };

  async function invoked(
    request: Envelope,
    context: InvocationContext,
    signal: AbortSignal,
  ): Promise<AnswerFrame> {
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
    send: (frame: ProgressFrame) => void,
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
