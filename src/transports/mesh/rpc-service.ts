/**
 * The mesh rpc protocols on a node's mesh peer (issue 15 item 5; docs/mesh.md "Direct calls";
 * docs/decisions/mesh.md MESH-7…MESH-13, MESH-39…MESH-42): the callee side handles
 * `/plexus/rpc/1.1.0` (many calls per stream) and `/plexus/rpc/1.0.0` (one call per stream,
 * for older nodes) on the libp2p peer once it runs, both through one call runner; the caller
 * side is added to the node router's transports when the mesh face is made, so `p2p://`
 * targets and agents announced by mesh peers route over it.
 */
import { PlexusError } from '../../core/errors.js';
import { keyPairFromSeed } from '../../security/index.js';
import type { FaceComponents } from '../face-components.js';
import { trustSet } from '../peer/peer-config.js';
import type { MeshLibp2p } from './mesh-peer.js';
import { DEFAULT_MAX_FRAME_BYTES, RPC_PROTOCOL } from './rpc-frames.js';
import { rpcCallRunner } from './rpc-call-runner.js';
import { RPC_MUX_PROTOCOL } from './rpc-mux-frames.js';
import { rpcMuxServer } from './rpc-mux-server.js';
import { rpcServer } from './rpc-server.js';
import { meshRpcClient, meshRpcTransport, type MeshRpcClient, type RpcDialer } from './rpc-transport.js';
import type { RetryOptions } from '../peer/retry.js';

/** How many `/plexus/rpc/1.0.0` streams a connection may have open at once, each way. */
export const RPC_MAX_STREAMS = 256;

/** How many `/plexus/rpc/1.1.0` streams a connection may have open at once, each way. */
export const RPC_MUX_MAX_STREAMS = 8;

/** Options of {@link meshRpc}. */
export interface MeshRpcInit extends RetryOptions {
  /** Signers admitted (did:key or PeerId); absent = only an open (dev) node admits signers. */
  readonly trustedPeers?: readonly string[];
  /** The largest frame, bytes. @default 1048576 */
  readonly maxFrameBytes?: number;
  /** Longest wait for one outgoing attempt, ms. @default the caller's deadline alone */
  readonly attemptTimeoutMs?: number;
  /** Calls a peer may have in flight on one `/plexus/rpc/1.1.0` stream. @default 128 */
  readonly maxCallsPerStream?: number;
  /** Calls a peer may have in flight on this node, across its streams. @default 256 */
  readonly maxCallsPerPeer?: number;
  /**
   * A `/plexus/rpc/1.1.0` stream with no call in flight for this long is closed by this node,
   * ms; 0 never closes one (MESH-49; `mesh.rpcIdleTimeoutMs`). @default 120000
   */
  readonly idleStreamTimeoutMs?: number;
}

/** The rpc protocol of one node. */
export interface MeshRpc {
  /** Calls agents of other peers (the transport's client). */
  readonly client: MeshRpcClient;
  /** Serves the protocol on `peer` (after the mesh peer started). */
  start(peer: MeshLibp2p): Promise<void>;
  /** Stops serving and calling; removes the transport from the router. */
  stop(): Promise<void>;
}

/**
 * Creates the protocol and adds its transport to the node router (`components.routeTransports`).
 * @throws PlexusError `INVALID_PARAMS` without the node key, or for a bad trusted peer.
 */
export function meshRpc(components: FaceComponents, init: MeshRpcInit = {}): MeshRpc {
  const secret = components.nodeSecret?.();
  if (secret === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'the mesh rpc protocol needs the node key (FaceComponents.nodeSecret)',
    );
  }
  const maxFrameBytes = init.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const trusted = init.trustedPeers === undefined ? undefined : trustSet(init.trustedPeers);
  const run = rpcCallRunner(components, trusted);
  const logger = components.logger === undefined ? {} : { logger: components.logger };
  const server = rpcServer(run, { maxFrameBytes, ...logger });
  const muxServer = rpcMuxServer(run, {
    maxFrameBytes,
    ...logger,
    ...(init.maxCallsPerStream === undefined ? {} : { maxCallsPerStream: init.maxCallsPerStream }),
    ...(init.maxCallsPerPeer === undefined ? {} : { maxCallsPerPeer: init.maxCallsPerPeer }),
    ...(init.idleStreamTimeoutMs === undefined ? {} : { idleTimeoutMs: init.idleStreamTimeoutMs }),
  });
  let peer: MeshLibp2p | undefined;
  let dialer: RpcDialer | undefined;
  const client = meshRpcClient({
    key: keyPairFromSeed(secret),
    dial: () => dialer,
    maxFrameBytes,
    ...(init.attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs: init.attemptTimeoutMs }),
    ...(init.retry === undefined ? {} : { retry: init.retry }),
    ...(init.sleep === undefined ? {} : { sleep: init.sleep }),
    ...(components.logger === undefined ? {} : { logger: components.logger }),
  });
  const remove = components.routeTransports?.add(meshRpcTransport(client));
  return {
    client,
    async start(running) {
      await running.handle(
        RPC_MUX_PROTOCOL,
        (stream, connection) =>
          muxServer.serve(stream, {
            remotePeer: connection.remotePeer.toString(),
            remoteAddr: connection.remoteAddr.toString(),
          }),
        { maxInboundStreams: RPC_MUX_MAX_STREAMS, maxOutboundStreams: RPC_MUX_MAX_STREAMS },
      );
      await running.handle(
        RPC_PROTOCOL,
        (stream, connection) =>
          server.serve(stream, {
            remotePeer: connection.remotePeer.toString(),
            remoteAddr: connection.remoteAddr.toString(),
          }),
        { maxInboundStreams: RPC_MAX_STREAMS, maxOutboundStreams: RPC_MAX_STREAMS },
      );
      const { peerIdFromString } = await import('@libp2p/peer-id');
      peer = running;
      dialer = async (peerId, protocol, signal) => {
        const mux = protocol === RPC_MUX_PROTOCOL;
        // a long-lived stream waits for the far side's "yes" once, so an older node's "no" comes
        // at the dial (MESH-41); a stream per call asks to send its frame with the protocol
        // (MESH-36), which multistream-select 7 ignores: it is negotiated in full (MESH-51)
        return running.dialProtocol(peerIdFromString(peerId), protocol, {
          signal,
          maxOutboundStreams: mux ? RPC_MUX_MAX_STREAMS : RPC_MAX_STREAMS,
          negotiateFully: mux,
        });
      };
    },
    async stop() {
      const running = peer;
      peer = undefined;
      dialer = undefined;
      remove?.();
      client.close();
      await running?.unhandle(RPC_MUX_PROTOCOL).catch(() => undefined);
      await running?.unhandle(RPC_PROTOCOL).catch(() => undefined);
    },
  };
}
