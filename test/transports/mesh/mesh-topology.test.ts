/**
 * In-process mesh topologies (issue 15 items 1–3): nodes made with createNode on 127.0.0.1,
 * ports 0, joined through one bootstrap node; capability cards spread by gossip, expire by
 * TTL, and a restarted node keeps its PeerId.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import { readKeyFile } from '../../../src/security/index.js';
import { MESH_PEER_EXTENSION } from '../../../src/transports/mesh/capability-gossip.js';
import { readKnownPeers } from '../../../src/transports/mesh/known-peers.js';
import type { MeshStatus } from '../../../src/transports/mesh/mesh-node.js';
import { runCli } from '../../cli/run-cli.js';
import { agent } from '../../runtime/helpers.js';
import { until } from '../../support/until.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-mesh-'));
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

async function meshNode(
  mesh: NonNullable<NodeInit['mesh']>,
  init: NodeInit & { dataDir?: string } = {},
): Promise<Node> {
  const options: NodeInit = {
    dataDir: init.dataDir ?? tempDir(),
    port: 0,
    dev: true,
    primitives: false,
    ...init,
    mesh: { enabled: true, heartbeatMs: 300, ...mesh },
  };
  const node = createNode({ ...options, faces: defaultFaces(options) });
  await node.start();
  cleanups.push(() => node.stop({ drainMs: 0 }));
  return node;
}

async function status(node: Node): Promise<MeshStatus> {
  const response = await fetch(`${node.url}/v1/mesh`);
  expect(response.status).toBe(200);
  return (await response.json()) as MeshStatus;
}

const bootstrapOf = async (node: Node): Promise<string> => {
  const s = await status(node);
  const address = s.addresses.find((a) => a.startsWith('/ip4/127.0.0.1/tcp/'));
  if (address === undefined) throw new Error('no loopback address');
  return address;
};

describe('the mesh on an in-process topology', () => {
  it('joins three nodes through one bootstrap node and spreads every card to every node', async () => {
    const hub = await meshNode({}, { agents: [agent('alpha', { 'alpha.ping': () => 'pong' })] });
    const boot = await bootstrapOf(hub);
    const b = await meshNode(
      { bootstrap: [boot] },
      { agents: [agent('bravo', { 'bravo.ping': () => 'b' })] },
    );
    const c = await meshNode(
      { bootstrap: [boot] },
      { agents: [agent('charlie', { 'charlie.ping': () => 'c' })] },
    );
    const nodes = [hub, b, c];
    const peerIds = await Promise.all(nodes.map(async (n) => (await status(n)).peerId));
    const ids = ['alpha', 'bravo', 'charlie'];
    for (const [i, node] of nodes.entries()) {
      await until(() => ids.every((id) => node.runtime.agents.registry.find(id) !== undefined), {
        what: `every card on node ${i}`,
        limitMs: 15_000,
        everyMs: 20,
      });
      for (const [j, id] of ids.entries()) {
        const card = node.runtime.agents.registry.get(id);
        if (i === j) {
          expect(card.origin).toBe('local');
        } else {
          expect(card.origin).toBe('remote');
          expect(card.extensions?.[MESH_PEER_EXTENSION]).toBe(peerIds[j]);
        }
      }
    }
    // A new agent on c reaches every node.
    await c.runtime.agents.add(agent('delta', { 'delta.ping': () => 'd' }));
    for (const node of [hub, b]) {
      await until(() => node.runtime.agents.registry.find('delta')?.card.origin === 'remote', {
        what: 'the new card',
        limitMs: 15_000,
        everyMs: 20,
      });
    }
    // The status shows the peer id (= the node key's PeerId), connected peers with latency, topics.
    const s = await status(hub);
    const key = await readKeyFile(join(hub.dataDir, 'node.key'));
    expect(s.peerId).toBe(key.identity.peerId);
    expect(s.peers.map((p) => p.peerId).sort()).toEqual([peerIds[1], peerIds[2]].sort());
    for (const p of s.peers) expect(p.latencyMs === null || p.latencyMs >= 0).toBe(true);
    expect(s.topics.map((t) => t.topic)).toContain(`hyperspace/capabilities/${s.peerId}`);
    // `plexus mesh status` prints the same.
    const run = await runCli(['mesh', 'status', '--node', hub.url]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`peer id   ${s.peerId}`);
    expect(run.out).toContain(`topic     hyperspace/capabilities/${s.peerId}`);
    const json = await runCli(['mesh', 'status', '--node', hub.url, '--json']);
    expect((JSON.parse(json.out) as MeshStatus).peerId).toBe(s.peerId);
  });

  it('never lets a remote card replace a local one', async () => {
    const hub = await meshNode({}, { agents: [agent('same', { 'same.one': () => 1 })] });
    const other = await meshNode(
      { bootstrap: [await bootstrapOf(hub)] },
      { agents: [agent('same', { 'same.two': () => 2 }), agent('marker', { 'marker.x': () => 0 })] },
    );
    await until(() => hub.runtime.agents.registry.find('marker') !== undefined, { limitMs: 15_000 });
    expect(hub.runtime.agents.registry.get('same').origin).toBe('local');
    expect(other.runtime.agents.registry.get('same').origin).toBe('local');
  });

  it('removes the cards of a peer silent for the TTL, and heartbeats write no events', async () => {
    const hub = await meshNode({ ttlMs: 1500 });
    const leaving = await meshNode(
      { bootstrap: [await bootstrapOf(hub)], ttlMs: 1500 },
      { agents: [agent('leaver', { 'leaver.x': () => 0 })] },
    );
    await until(() => hub.runtime.agents.registry.find('leaver') !== undefined, { limitMs: 15_000 });
    // Three more capability messages (heartbeats: the leaver's cards do not change) arrive and
    // are accepted without a single event written.
    const before = (await hub.log.head()).seq;
    const seen = (await status(hub)).accepted;
    await until(async () => (await status(hub)).accepted >= seen + 3, {
      what: 'three heartbeats',
      limitMs: 10_000,
    });
    expect((await hub.log.head()).seq).toBe(before);
    await leaving.stop({ drainMs: 0 });
    await until(() => hub.runtime.agents.registry.find('leaver') === undefined, {
      what: 'the TTL to remove the card',
      limitMs: 15_000,
      everyMs: 20,
    });
  });

  it('keeps its PeerId and its known peers across a restart', async () => {
    const hub = await meshNode({});
    const dataDir = tempDir();
    const first = await meshNode({ bootstrap: [await bootstrapOf(hub)] }, { dataDir });
    const peerId = (await status(first)).peerId;
    await until(async () => (await status(first)).peers.length === 1, { limitMs: 15_000 });
    const hubId = (await status(hub)).peerId;
    await until(async () => (await readKnownPeers(dataDir)).some((p) => p.peerId === hubId), {
      what: 'the hub in the known peers file',
    });
    await first.stop({ drainMs: 0 });
    // Restarted without a bootstrap list: the known peers file brings it back to the hub.
    const again = await meshNode({}, { dataDir });
    expect((await status(again)).peerId).toBe(peerId);
    await until(async () => (await status(again)).peers.length === 1, {
      what: 'the restarted node to reconnect from its known peers',
      limitMs: 15_000,
    });
  });
});

describe('mesh configuration', () => {
  it('reads mesh: from plexus.yaml and refuses unknown or bad settings by name', async () => {
    const { parseNodeConfigText: parseNodeConfig } = await import('../../../src/node/index.js');
    const config = parseNodeConfig(
      'mesh:\n  enabled: true\n  heartbeatMs: 1000\n  bootstrap: [/ip4/127.0.0.1/tcp/1]\n',
    );
    expect(config.mesh).toEqual({ enabled: true, heartbeatMs: 1000, bootstrap: ['/ip4/127.0.0.1/tcp/1'] });
    expect(() => parseNodeConfig('mesh:\n  heartbeat: 1000\n')).toThrow(/heartbeat/);
    expect(() => parseNodeConfig('mesh:\n  ttlMs: -1\n')).toThrow(/ttlMs/);
  });

  it('turns the mesh on with plexus start --mesh, keeping the file’s mesh settings', async () => {
    const { startNodeInit } = await import('../../../src/cli/commands/start.js');
    const { capturedIo } = await import('../../../src/cli/io.js');
    const io = capturedIo();
    expect(startNodeInit(io, {}, { mesh: true }).mesh).toEqual({ enabled: true });
    expect(startNodeInit(io, { mesh: { ttlMs: 1000 } }, { mesh: true }).mesh).toEqual({
      enabled: true,
      ttlMs: 1000,
    });
    expect(startNodeInit(io, {}, {}).mesh).toBeUndefined();
  });

  it('answers GET /v1/mesh with 404 on a node without the mesh', async () => {
    const dataDir = tempDir();
    const node = createNode({ dataDir, port: 0, dev: true, primitives: false });
    await node.start();
    cleanups.push(() => node.stop({ drainMs: 0 }));
    expect((await fetch(`${node.url}/v1/mesh`)).status).toBe(404);
  });
});
