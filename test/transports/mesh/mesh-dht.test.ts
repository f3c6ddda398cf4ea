/**
 * DHT discovery (issue 15 item 4): three in-process nodes A–B–C joined through B, where C
 * follows no capability topic (`followCapabilities: false`) and so never receives A's gossip.
 * C finds A's agent by capability through the DHT — from `GET /agents?capability=` and from
 * the router — and takes it as a remote card owned by A's PeerId, with A's peer card (its
 * reputation, region, task types and tools, MESH-50). A card known through an
 * HTTP peer and through the mesh is one registry entry (item 7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/core/records/agent-card.js';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import { MESH_PEER_EXTENSION } from '../../../src/transports/mesh/capability-gossip.js';
import type { MeshStatus } from '../../../src/transports/mesh/mesh-node.js';
import { agent } from '../../runtime/helpers.js';
import { memoryLogger } from '../../support/memory-logger.js';
import { until } from '../../support/until.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function meshNode(mesh: NonNullable<NodeInit['mesh']>, init: NodeInit = {}): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-dht-'));
  cleanups.push(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  const options: NodeInit = {
    dataDir,
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
  return (await (await fetch(`${node.url}/v1/mesh`)).json()) as MeshStatus;
}

async function loopback(node: Node): Promise<string> {
  const address = (await status(node)).addresses.find((a) => a.startsWith('/ip4/127.0.0.1/tcp/'));
  if (address === undefined) throw new Error('no loopback address');
  return address;
}

async function agentsOffering(node: Node, verb: string): Promise<AgentCard[]> {
  const response = await fetch(`${node.url}/agents?capability=${encodeURIComponent(verb)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { agents: AgentCard[] }).agents;
}

describe('DHT discovery', () => {
  it('finds an agent whose gossip a node missed, by capability, through the DHT', async () => {
    const b = await meshNode({}, { agents: [agent('bravo', { 'bravo.ping': () => 'b' })] });
    const boot = await loopback(b);
    const a = await meshNode(
      { bootstrap: [boot], geo: 'eu-west' },
      {
        agents: [
          agent('alpha', { 'alpha.ping': () => 'pong' }),
          agent('alpha2', { 'alpha2.echo': (input) => input }),
        ],
      },
    );
    const c = await meshNode({ bootstrap: [boot], followCapabilities: false });
    const aPeer = (await status(a)).peerId;
    // The gossip reached B, never C: C follows no capability topic.
    await until(() => b.runtime.agents.registry.find('alpha') !== undefined, {
      what: "A's card on B by gossip",
      limitMs: 15_000,
      everyMs: 20,
    });
    expect(c.runtime.agents.registry.find('alpha')).toBeUndefined();
    expect((await status(c)).topics.map((t) => t.topic)).not.toContain(`hyperspace/capabilities/${aPeer}`);

    // GET /agents?capability= on C asks the DHT (each ask bounded by discoveryTimeoutMs), and
    // answers A's agent once A's provider record is out.
    let found: AgentCard[] = [];
    await until(
      async () => {
        found = await agentsOffering(c, 'alpha.ping');
        return found.length > 0;
      },
      { what: 'alpha.ping found through the DHT', limitMs: 20_000, everyMs: 50 },
    );
    expect(found.map((card) => card.id)).toEqual(['alpha']);
    expect(found[0]?.origin).toBe('remote');
    expect(found[0]?.extensions?.[MESH_PEER_EXTENSION]).toBe(aPeer);
    // MESH-50: A's peer card came with its card — the claims C never heard by gossip
    const aCard = c.runtime.agents.peers.card(aPeer);
    expect(aCard).toMatchObject({ peerId: aPeer, geo: 'eu-west', tools: [] });
    expect(aCard?.taskTypes).toEqual(['alpha.ping', 'alpha2.echo']);
    expect(aCard?.reputation).toBeTypeOf('number');
    // Only the card asked for was taken.
    expect(c.runtime.agents.registry.find('alpha2')).toBeUndefined();

    // The router asks the DHT too: a call by capability for alpha2.echo, unknown on C, makes
    // C find A's card (the call itself needs the libp2p call transport, not part of this test:
    // without it the answer is PEER_UNAVAILABLE, not UNKNOWN_VERB).
    const answer = await c.runtime.invoke(
      {
        id: 'req-dht-1',
        kind: 'request',
        from: 'tester',
        to: 'capability:alpha2.echo',
        verb: 'alpha2.echo',
        data: { hello: 'dht' },
      } as never,
      { face: 'internal' },
    );
    const card = c.runtime.agents.registry.find('alpha2')?.card;
    expect(card?.origin).toBe('remote');
    expect(card?.extensions?.[MESH_PEER_EXTENSION]).toBe(aPeer);
    expect(answer.envelope.kind).toBeDefined();
    if (answer.envelope.kind === 'error') {
      expect((answer.envelope.data as { code: string }).code).not.toBe('UNKNOWN_VERB');
    }

    // A verb nobody serves stays unknown (after one bounded lookup).
    expect(await agentsOffering(c, 'nobody.has.this')).toEqual([]);
  });
});

describe('HTTP peers beside the mesh', () => {
  it('keeps a card known through the HTTP peer and through the mesh as one entry', async () => {
    const b = await meshNode({}, { agents: [agent('bravo', { 'bravo.ping': () => 'b' })] });
    const bPeer = (await status(b)).peerId;
    const logger = memoryLogger();
    const a = await meshNode(
      { bootstrap: [await loopback(b)] },
      { peers: [{ url: b.url, did: b.nodeId }], peerPollMs: 50, logger },
    );
    await until(() => a.runtime.agents.registry.find('bravo') !== undefined, {
      what: "B's card on A",
      limitMs: 15_000,
      everyMs: 20,
    });
    // Both ways keep delivering it: three more capability messages from B accepted on A, while
    // the HTTP directory polls every 50 ms.
    const seen = (await status(a)).accepted;
    await until(async () => (await status(a)).accepted >= seen + 3, {
      what: 'three more capability messages',
      limitMs: 15_000,
    });
    const listed = ((await (await fetch(`${a.url}/agents`)).json()) as { agents: AgentCard[] }).agents;
    const bravo = listed.filter((card) => card.id === 'bravo');
    expect(bravo).toHaveLength(1);
    expect(bravo[0]?.origin).toBe('remote');
    // Owned by B either way: its URL (HTTP came first) or its mesh PeerId (the mesh did).
    const owner = bravo[0]?.extensions?.['_x_plexus_peer'] ?? bravo[0]?.extensions?.[MESH_PEER_EXTENSION];
    expect([b.url, `${b.url}/`, bPeer]).toContain(owner);
    // Neither path warned about a second owner of the id: it is the same node.
    expect(logger.lines.filter((l) => l.msg?.includes('already has') === true)).toEqual([]);
  });
});
