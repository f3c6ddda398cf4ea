/**
 * `/plexus/rpc/1.0.0` on a node's mesh peer (issue 15 item 5; docs/mesh.md "Direct calls";
 * docs/decisions/mesh.md MESH-7…MESH-13): the callee side handles the protocol on the libp2p
 * peer once it runs, and the caller side is added to the node router's transports when the
 * mesh face is made, so `p2p://` targets and agents announced by mesh peers route over it.
 */
import { PlexusError } from '../../core/errors.js';
import { keyPairFromSeed } from '../../security/index.js';
import type { FaceComponents } from '../face-components.js';
import { trustSet } from '../peer/peer-config.js';
import type { MeshLibp2p } from './mesh-peer.js';
import { DEFAULT_MAX_FRAME_BYTES, RPC_PROTOCOL } from './rpc-frames.js';
import { rpcServer } from './rpc-server.js';
import { meshRpcClient, meshRpcTransport, type MeshRpcClient, type RpcDialer } from './rpc-transport.js';
import type { RetryOptions } from '../peer/retry.js';

/** How many rpc streams a connection may have open at once, each way. */
export const RPC_MAX_STREAMS = 256;

/** Options of {@link meshRpc}. */
export interface MeshRpcInit extends RetryOptions {
  /** Signers admitted (did:key or PeerId); absent = only an open (dev) node admits signers. */
  readonly trustedPeers?: readonly string[];
  /** The largest frame, bytes. @default 1048576 */
  readonly maxFrameBytes?: number;
  /** Longest wait for one outgoing attempt, ms. @default the caller's deadline alone */
  readonly attemptTimeoutMs?: number;
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
  const server = rpcServer(components, { maxFrameBytes, ...(trusted === undefined ? {} : { trusted }) });
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
        return running.dialProtocol(peerIdFromString(peerId), protocol, {
          signal,
          maxOutboundStreams: RPC_MAX_STREAMS,
          negotiateFully: false,
        });
      };
    },
    async stop() {
      const running = peer;
      peer = undefined;
      dialer = undefined;
      remove?.();
      await running?.unhandle(RPC_PROTOCOL).catch(() => undefined);
    },
  };
}
