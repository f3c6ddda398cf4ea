/**
 * The libp2p peer of a mesh node: TCP, Noise on every connection (D14), Yamux, identify,
 * ping, gossipsub and the Kademlia DHT, its identity the node's own Ed25519 key (D2), so its PeerId is the
 * `peerId` `plexus keys show` prints. Loaded on demand (the stack is large), after the
 * `Promise.withResolvers` polyfill.
 */
import './promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { gossipsub, StrictNoSign, StrictSign, type GossipSub, type GossipsubOpts } from '@libp2p/gossipsub';
import { identify, type Identify } from '@libp2p/identify';
import { kadDHT, passthroughMapper, type KadDHT } from '@libp2p/kad-dht';
import { ping, type Ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { yamux } from '@libp2p/yamux';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { envelopeMessageId, fastMessageId } from './gossip-fast-id.js';
import { COLOCATION_WHITELIST, MESH_SCORE_THRESHOLDS } from './mesh-scoring.js';

/** The protocol id of the Plexus Kademlia DHT (not the public IPFS one). */
export const DHT_PROTOCOL = '/plexus/kad/1.0.0';

/** The prefix of the connection monitor's own ping protocol, `/plexus/ping/1.0.0` (MESH-24). */
export const MONITOR_PING_PREFIX = 'plexus';
/** How often the connection monitor pings each connection, ms (libp2p's default). */
const MONITOR_PING_INTERVAL_MS = 10_000;
/** The least and the most a heartbeat ping may take before its connection is aborted, ms. */
const MONITOR_PING_MIN_TIMEOUT_MS = 20_000;
const MONITOR_PING_MAX_TIMEOUT_MS = 30_000;
/** Heartbeats that can be open at once on a connection: one per interval within the longest timeout, + 1. */
const MONITOR_PING_STREAMS = Math.ceil(MONITOR_PING_MAX_TIMEOUT_MS / MONITOR_PING_INTERVAL_MS) + 1;

/** The services of the mesh peer. */
export interface MeshServices {
  readonly pubsub: GossipSub;
  readonly identify: Identify;
  readonly ping: Ping;
  /** Answers the connection monitor's heartbeat on `/plexus/ping/1.0.0` (MESH-24). */
  readonly monitorPing: Ping;
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
  /**
   * Who signs gossip (MESH-48). `envelope`: gossipsub signs nothing (`StrictNoSign`, no
   * `from`, no sequence number) and identifies a message by a digest of its bytes, the D3
   * envelope inside naming and proving its signer — what every mesh node runs, and peers of
   * the two kinds cannot gossip with each other. `libp2p`: gossipsub's own signature
   * (`StrictSign`, its default) with the wire fast id of MESH-38 — raw gossipsub, the baseline
   * `bench/mesh.bench.js` compares against. @default 'envelope'
   */
  readonly gossipSigning?: 'envelope' | 'libp2p';
}

/** The signature policy and message ids of gossipsub for `signing` (MESH-38, MESH-48). */
function gossipIdentity(
  signing: 'envelope' | 'libp2p',
): Pick<GossipsubOpts, 'globalSignaturePolicy'> & Partial<Pick<GossipsubOpts, 'msgIdFn' | 'fastMsgIdFn'>> {
  return signing === 'libp2p'
    ? // copies of a message already verified are dropped before their signature is checked
      // again (MESH-38): the check of every copy was a fifth of a gossiping process's CPU
      { globalSignaturePolicy: StrictSign, fastMsgIdFn: fastMessageId }
    : // one signature per message, the envelope's; copies are dropped by the digest id before
      // the validator runs (a fast id would hash the same bytes a second time)
      { globalSignaturePolicy: StrictNoSign, msgIdFn: envelopeMessageId };
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
    // The heartbeat that aborts a connection whose ping fails (MESH-24) has its own protocol: on
    // the shared `/ipfs/ping/1.0.0` (one outbound stream per connection) it collided with the
    // DHT's ping of a new contact, took the refused stream for a dead peer and aborted the
    // connection, leaving a node that had joined through one bootstrap peer with no DHT peer.
    // Its timeout tolerates a loaded machine (libp2p's 5 s floor aborted every connection of a
    // busy process at once).
    connectionMonitor: {
      protocolPrefix: MONITOR_PING_PREFIX,
      pingInterval: MONITOR_PING_INTERVAL_MS,
      pingTimeout: { minTimeout: MONITOR_PING_MIN_TIMEOUT_MS, maxTimeout: MONITOR_PING_MAX_TIMEOUT_MS },
    },
    services: {
      identify: identify(),
      ping: ping(),
      // Heartbeats overlap while one waits for its timeout: room for all of them, both ways; the
      // answering side waits as long as the asking side (its 10 s default reset slow heartbeats).
      monitorPing: ping({
        protocolPrefix: MONITOR_PING_PREFIX,
        timeout: MONITOR_PING_MAX_TIMEOUT_MS,
        maxOutboundStreams: MONITOR_PING_STREAMS,
        maxInboundStreams: 2 * MONITOR_PING_STREAMS,
      }),
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
        ...gossipIdentity(init.gossipSigning ?? 'envelope'),
      }),
    },
  });
}

/** Dials `address` (a multiaddr with `/p2p/<peerId>`, or a known peer's address). */
export async function dialAddress(peer: MeshLibp2p, address: string, signal: AbortSignal): Promise<void> {
  await peer.dial(multiaddr(address), { signal });
}
