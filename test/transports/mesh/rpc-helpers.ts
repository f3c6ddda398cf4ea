/**
 * Helpers of the `/plexus/rpc/1.0.0` tests: real nodes (createNode with the mesh face on
 * 127.0.0.1, ports 0) and a harness libp2p peer with its own key, which calls a node as a
 * mesh peer would (or as an attacker would, with raw frames).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import { generateKeyPair, identityFromPublicKey, type Ed25519KeyPair } from '../../../src/security/index.js';
import type { MeshStatus } from '../../../src/transports/mesh/mesh-node.js';
import { createMeshPeer, dialAddress, type MeshLibp2p } from '../../../src/transports/mesh/mesh-peer.js';
import { RPC_PROTOCOL } from '../../../src/transports/mesh/rpc-frames.js';
import { RPC_MUX_PROTOCOL } from '../../../src/transports/mesh/rpc-mux-frames.js';
import {
  meshRpcClient,
  type MeshRpcClient,
  type RpcClientStream,
} from '../../../src/transports/mesh/rpc-transport.js';

/** Cleanups run after each test, last first. */
export const cleanups: (() => Promise<void> | void)[] = [];

/** Runs and empties {@link cleanups}. */
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** Starts a dev node with the mesh on (and its default faces). */
export async function meshNode(mesh: NonNullable<NodeInit['mesh']> = {}, init: NodeInit = {}): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-rpc-'));
  const options: NodeInit = {
    dataDir,
    port: 0,
    dev: true,
    primitives: false,
    demo: false,
    ...init,
    mesh: { enabled: true, heartbeatMs: 300, ...mesh },
  };
  const node = createNode({ ...options, faces: defaultFaces(options) });
  await node.start();
  let stopped = false;
  cleanups.push(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  cleanups.push(async () => {
    if (!stopped) await node.stop({ drainMs: 0 });
    stopped = true;
  });
  return node;
}

/** `GET /v1/mesh` of a node. */
export async function meshStatus(node: Node): Promise<MeshStatus> {
  return (await (await fetch(`${node.url}/v1/mesh`)).json()) as MeshStatus;
}

/** A loopback address of a node's mesh peer, with `/p2p/<peerId>`. */
export async function meshAddress(node: Node): Promise<string> {
  const s = await meshStatus(node);
  const address = s.addresses.find((a) => a.startsWith('/ip4/127.0.0.1/tcp/'));
  if (address === undefined) throw new Error('no loopback mesh address');
  return address;
}

/** A libp2p peer of the test's own, with its own key. */
export interface Harness {
  readonly key: Ed25519KeyPair;
  readonly peerId: string;
  readonly peer: MeshLibp2p;
  /** A client of the rpc protocol signing with the harness key (fast retries). */
  readonly client: MeshRpcClient;
  /** Opens a raw `/plexus/rpc/1.0.0` stream to `peerId` (one call per stream). */
  open(peerId: string): Promise<RpcClientStream>;
  /** Opens a raw `/plexus/rpc/1.1.0` stream to `peerId` (many calls per stream). */
  openMux(peerId: string): Promise<RpcClientStream>;
}

/** Starts a harness peer dialled to `address`. */
export async function harness(address: string, key: Ed25519KeyPair = generateKeyPair()): Promise<Harness> {
  const peer = await createMeshPeer({
    seed: key.secretKey,
    listen: ['/ip4/127.0.0.1/tcp/0'],
    announce: [],
    maxMessageBytes: 64 * 1024,
  });
  cleanups.push(() => peer.stop());
  await dialAddress(peer, address, AbortSignal.timeout(10_000));
  const { peerIdFromString } = await import('@libp2p/peer-id');
  const dial = async (peerId: string, protocol: string, signal?: AbortSignal): Promise<RpcClientStream> =>
    peer.dialProtocol(peerIdFromString(peerId), protocol, {
      ...(signal === undefined ? {} : { signal }),
    });
  const open = (peerId: string): Promise<RpcClientStream> => dial(peerId, RPC_PROTOCOL);
  const openMux = (peerId: string): Promise<RpcClientStream> => dial(peerId, RPC_MUX_PROTOCOL);
  const client = meshRpcClient({
    key,
    dial: () => dial,
    maxFrameBytes: 1024 * 1024,
    retry: { delaysMs: [1, 1] },
  });
  cleanups.push(() => {
    client.close();
  });
  return { key, peerId: identityFromPublicKey(key.publicKey).peerId, peer, client, open, openMux };
}
