/**
 * The mesh peer's ping protocols (docs/decisions/mesh.md MESH-24), on two real in-process
 * peers: the connection monitor's heartbeat has its own protocol, `/plexus/ping/1.0.0`, whose
 * stream budget the DHT's and the status's pings on `/ipfs/ping/1.0.0` cannot use up. Before,
 * both shared `/ipfs/ping/1.0.0` (one outbound stream per connection): a heartbeat that met the
 * DHT's ping of a new contact was refused, taken for a dead peer, and the connection aborted.
 */
import type { Stream } from '@libp2p/interface';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../../src/security/index.js';
import {
  createMeshPeer,
  dialAddress,
  MONITOR_PING_PREFIX,
  type MeshLibp2p,
} from '../../../src/transports/mesh/mesh-peer.js';

const IPFS_PING = '/ipfs/ping/1.0.0';
const MONITOR_PING = `/${MONITOR_PING_PREFIX}/ping/1.0.0`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function meshPeer(): Promise<MeshLibp2p> {
  const peer = await createMeshPeer({
    seed: generateKeyPair().secretKey,
    listen: ['/ip4/127.0.0.1/tcp/0'],
    announce: [],
    maxMessageBytes: 65536,
  });
  cleanups.push(() => peer.stop());
  return peer;
}

describe('mesh peer ping protocols', () => {
  it('keeps the heartbeat apart from the ping the DHT uses, so a busy ping stream never aborts a connection', async () => {
    const a = await meshPeer();
    const b = await meshPeer();
    const address = b.getMultiaddrs()[0];
    if (address === undefined) throw new Error('no listen address');
    await dialAddress(a, address.toString(), AbortSignal.timeout(10_000));
    const connection = a.getConnections(b.peerId)[0];
    if (connection === undefined) throw new Error('no connection');
    expect(b.getProtocols()).toEqual(expect.arrayContaining([IPFS_PING, MONITOR_PING]));

    // The DHT's ping of a new contact holds the one `/ipfs/ping/1.0.0` stream of the connection.
    const held: Stream = await a.dialProtocol(b.peerId, IPFS_PING, { signal: AbortSignal.timeout(10_000) });
    cleanups.push(() => {
      held.abort(new Error('test over'));
    });
    // A second ping on that protocol is refused: the collision the heartbeat used to run into.
    await expect(
      a.services.ping.ping(b.peerId, { signal: AbortSignal.timeout(10_000) }),
    ).rejects.toMatchObject({
      name: 'TooManyOutboundProtocolStreamsError',
    });

    // The heartbeat's protocol is not affected, even with heartbeats overlapping while they wait.
    const rtts = await Promise.all(
      [1, 2, 3].map(() => a.services.monitorPing.ping(b.peerId, { signal: AbortSignal.timeout(10_000) })),
    );
    expect(rtts.every((rtt) => typeof rtt === 'number' && rtt >= 0)).toBe(true);
    expect(connection.status).toBe('open');
    expect(a.getConnections(b.peerId)).toContain(connection);
  });
});
