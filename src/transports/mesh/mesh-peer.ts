/**
 * The libp2p peer of a mesh node: TCP, Noise on every connection (D14), Yamux, identify,
 * ping, gossipsub and the Kademlia DHT, its identity the node's own Ed25519 key (D2), so its PeerId is the
 * `peerId` `plexus keys show` prints. Loaded on demand (the stack is large), after the
 * `Promise.withResolvers` polyfill.
 */
import './promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { gossipsub, type GossipSub } from '@libp2p/gossipsub';
import { identify, type Identify } from '@libp2p/identify';
import { kadDHT, passthroughMapper, type KadDHT } from '@libp2p/kad-dht';
import { ping, type Ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { yamux } from '@libp2p/yamux';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { COLOCATION_WHITELIST, MESH_SCORE_THRESHOLDS } from './mesh-scoring.js';

/** The protocol id of the Plexus Kademlia DHT (not the public IPFS one). */
export const DHT_PROTOCOL = '/plexus/kad/1.0.0';

/** The services of the mesh peer. */
export interface MeshServices {
  readonly pubsub: GossipSub;
  readonly identify: Identify;
  readonly ping: Ping;
  readonly dht: KadDHT;
  [key: string]: unknown;
}

/** A started mesh peer. */
export type MeshLibp2p = Libp2p<MeshServices>;

/** Options of {@link createMeshPeer}. */
export interface MeshPeerInit {
  /** The node key's 32-byte Ed25519 secret. */
  readonly seed: Uint8Array;
  /** Listen multiaddrs. */
  readonly listen: readonly string[];
  /** Addresses announced instead of the listen addresses (none = the listen addresses). */
  readonly announce: readonly string[];
  /** The largest gossip message, bytes (gossipsub's own inbound bound is set above it). */
  readonly maxMessageBytes: number;
}

/**
 * Creates and starts the peer.
 * @throws the libp2p error when a listen address cannot be bound.
 */
export async function createMeshPeer(init: MeshPeerInit): Promise<MeshLibp2p> {
  const privateKey = await generateKeyPairFromSeed('Ed25519', init.seed);
  return createLibp2p({
    privateKey,
    addresses: {
      listen: [...init.listen],
      ...(init.announce.length === 0 ? {} : { announce: [...init.announce] }),
    },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      ping: ping(),
      // The Plexus DHT (MESH-21): its own protocol id, every node a server, and addresses kept
      // as announced (the default mapper drops private and loopback ones).
      dht: kadDHT({
        protocol: DHT_PROTOCOL,
        clientMode: false,
        peerInfoMapper: passthroughMapper,
      }),
      pubsub: gossipsub({
        allowPublishToZeroTopicPeers: true,
        emitSelf: false,
        // Invalid messages count only on topics with score parameters (MESH-4); they are set
        // per topic as the node subscribes; below the graylist threshold a peer is ignored
        // (MESH-26).
        scoreParams: { topics: {}, IPColocationFactorWhitelist: new Set(COLOCATION_WHITELIST) },
        scoreThresholds: { ...MESH_SCORE_THRESHOLDS },
        maxInboundDataLength: init.maxMessageBytes * 4 + 64 * 1024,
      }),
    },
  });
}

/** Dials `address` (a multiaddr with `/p2p/<peerId>`, or a known peer's address). */
export async function dialAddress(peer: MeshLibp2p, address: string, signal: AbortSignal): Promise<void> {
  await peer.dial(multiaddr(address), { signal });
}
