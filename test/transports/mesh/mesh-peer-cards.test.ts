/**
 * Peer cards on real in-process nodes (issue 15 items 3, 6; MESH-43…46): a node's card carries
 * its peerId, task types, registered tools, reputation and region, and the receiving node adds
 * the latency it measured; `tool.register`ed tools cross the mesh and run on their owner; forged
 * or out-of-range claims are rejected at the gossip boundary.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import { MESH_PEER_EXTENSION } from '../../../src/transports/mesh/capability-gossip.js';
import { meshFace, type MeshFace } from '../../../src/transports/mesh/mesh-face.js';
import type { MeshOptions } from '../../../src/transports/mesh/mesh-node.js';
import { peerToolId } from '../../../src/primitives/tool/index.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateKeyPair, identityFromPublicKey, signEnvelope } from '../../../src/security/index.js';
import { createMeshPeer, dialAddress, type MeshLibp2p } from '../../../src/transports/mesh/mesh-peer.js';
import { capabilitiesTopic } from '../../../src/transports/mesh/mesh-topics.js';
import { card, request } from '../../runtime/helpers.js';
import { eventually, until } from '../../support/until.js';
import { cleanups, meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

const VERB = 'corpus.search';
/** An agent serving {@link VERB}; its card names no region (the node's `mesh.geo` stands). */
const corpus = (by: string) =>
  defineAgent({
    card: card('corpus', [
      { verb: VERB, description: 'Corpus search', input: { type: 'object' }, output: true },
    ]),
    create: () => ({ [VERB]: (input: JsonValue) => ({ by, query: (input as JsonObject)['query'] ?? null }) }),
  });

async function ok(node: Node, verb: string, data: JsonValue): Promise<JsonObject> {
  const { envelope } = await node.runtime.invoke(request(verb, data, 'tool'), {
    face: 'internal',
    idempotencyKey: randomUUID(),
  });
  if (envelope.kind !== 'response') throw new Error(`${verb}: ${JSON.stringify(envelope.data)}`);
  return envelope.data as JsonObject;
}
const toolsOf = (answer: JsonObject) => answer['tools'] as JsonObject[];

describe('peer cards', () => {
  it('carry reputation, region, task types and registered tools; latency is measured; registered tools run on their owner', async () => {
    const far = await meshNode({ geo: 'eu-west' }, { agents: [corpus('far')], primitives: ['tool'] });
    const near = await meshNode(
      { bootstrap: [await meshAddress(far)], geo: 'us-east' },
      { primitives: ['tool'] },
    );
    const farPeer = (await meshStatus(far)).peerId;
    const { toolId: farToolId } = (await ok(far, 'tool.register', {
      name: 'corpus-search',
      description: 'Searches the corpus',
      schema: { input: { type: 'object' }, output: true },
      capabilities: ['search'],
      verb: VERB,
    })) as { toolId: string };

    const peerCard = await eventually(
      'far’s peer card with its registered tool and a measured latency',
      () => {
        const c = near.runtime.agents.peers.card(farPeer);
        return Promise.resolve(
          c !== undefined && c.tools.length === 1 && c.latencyMs !== undefined ? c : undefined,
        );
      },
      { limitMs: 20_000 },
    );
    // far's claim: its own calls so far (tool.register among them) blended with the 0.5 prior
    const claimed = Math.round(far.runtime.agents.outcomes.localReputation() * 100) / 100;
    expect(peerCard).toMatchObject({ peerId: farPeer, reputation: claimed, geo: 'eu-west' });
    expect(peerCard.taskTypes).toContain(VERB);
    expect(peerCard.latencyMs).toBeGreaterThanOrEqual(0);
    expect(peerCard.tools[0]).toMatchObject({ toolId: farToolId, name: 'corpus-search' });
    // near holds no card of its own in the port
    expect(near.runtime.agents.peers.card((await meshStatus(near)).peerId)).toBeUndefined();

    // tool.discover: the registered tool and the verb, in far's region, with the measured latency
    const id = peerToolId(farPeer, farToolId);
    const inEu = toolsOf(await ok(near, 'tool.discover', { query: '', geo: 'eu' }));
    expect(inEu.map((t) => [t['name'], t['peerId'], t['geo']]).sort()).toEqual(
      [
        ['corpus-search', farPeer, 'eu-west'],
        [VERB, farPeer, 'eu-west'],
      ].sort(),
    );
    const registered = inEu.find((t) => t['id'] === id);
    expect(registered).toMatchObject({ capabilities: ['search'], reputation: claimed });
    expect(claimed).toBeLessThan(0.6);
    expect(typeof registered?.['latency']).toBe('number');
    expect(toolsOf(await ok(near, 'tool.discover', { query: '', geo: 'us' }))).toEqual([]);
    expect(toolsOf(await ok(near, 'tool.discover', { query: '', minReputation: 0.6 }))).toEqual([]);
    expect(
      toolsOf(await ok(near, 'tool.discover', { query: 'corpus', maxLatency: 1_000_000 })).map(
        (t) => t['id'],
      ),
    ).toContain(id);

    // tool.invoke of the registered tool runs far's tool.invoke; the answer names far
    const invoked = await ok(near, 'tool.invoke', { toolId: id, params: { query: 'ssb' } });
    expect(invoked).toMatchObject({ result: { by: 'far', query: 'ssb' }, peerId: farPeer });
    expect(await ok(far, 'tool.getAnalytics', { toolId: farToolId })).toMatchObject({
      invocations: 1,
      successRate: 1,
    });
    expect(await ok(near, 'tool.getAnalytics', { toolId: id })).toMatchObject({
      invocations: 1,
      successRate: 1,
    });
  }, 90_000); // real nodes on a shared machine: starting them is most of it

  it('rejects forged and out-of-range claims at the gossip boundary', async () => {
    const hub = await meshNode({});
    const hubAddress = await meshAddress(hub);
    const hubId = (await meshStatus(hub)).peerId;
    const key = generateKeyPair();
    const harnessId = identityFromPublicKey(key.publicKey).peerId;
    const harness = await createMeshPeer({
      seed: key.secretKey,
      listen: ['/ip4/127.0.0.1/tcp/0'],
      announce: [],
      maxMessageBytes: 64 * 1024,
    });
    cleanups.push(() => harness.stop());
    const { pubsub } = harness.services;
    const topic = capabilitiesTopic(harnessId);
    pubsub.subscribe(topic);
    await dialAddress(harness, hubAddress, AbortSignal.timeout(10_000));
    await until(() => pubsub.getSubscribers(topic).some((p) => p.toString() === hubId), {
      what: 'the hub following the harness topic',
      limitMs: 15_000,
    });
    const claimant = {
      id: 'claimant',
      name: 'Claimant',
      version: '1.0.0',
      tier: 'L3',
      origin: 'local',
      capabilities: [{ verb: 'claimant.x', input: { type: 'object' }, output: { type: 'object' } }],
    };
    const message = (extra: JsonObject, cards: JsonObject[] = [claimant]): Uint8Array =>
      new TextEncoder().encode(
        JSON.stringify(
          signEnvelope(
            { kind: 'full', cards, removed: [], ...extra },
            { key, domain: topic, from: 'peerId' },
          ),
        ),
      );
    const forged = [
      message({ peer: { reputation: 7, taskTypes: [], tools: [] } }),
      message({ peer: { reputation: 0.5, latencyMs: 0 } }),
      message({ peer: { geo: 'anywhere at all' } }),
      message({}, [{ ...claimant, extensions: { _x_plexus_geo: 42 } }]),
    ];
    const before = await meshStatus(hub);
    for (const data of forged) await pubsub.publish(topic, data);
    const judged = await eventually(
      'every forged claim rejected (or ignored once graylisted)',
      async () => {
        const s = await meshStatus(hub);
        return s.rejected + s.ignored - before.rejected - before.ignored >= forged.length ? s : undefined;
      },
      { limitMs: 15_000 },
    );
    expect(judged.rejected - before.rejected).toBeGreaterThanOrEqual(3);
    expect(judged.accepted).toBe(before.accepted);
    expect(hub.runtime.agents.registry.find('claimant')).toBeUndefined();
    expect(hub.runtime.agents.peers.card(harnessId)?.reputation).toBeUndefined();
  }, 60_000);
});

/** A dev node whose mesh face the test holds (to cut its connections). */
async function cuttableNode(
  mesh: MeshOptions,
  agents: NonNullable<NodeInit['agents']>,
): Promise<{ node: Node; peerId: string; cutOff: Set<string>; libp2p: () => MeshLibp2p }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-partition-'));
  cleanups.push(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  const options: NodeInit = { dataDir, port: 0, dev: true, primitives: false, demo: false, agents };
  const factory = meshFace({ heartbeatMs: 300, ...mesh });
  let face: MeshFace | undefined;
  const node = createNode({ ...options, faces: [...defaultFaces(options), (c) => (face = factory(c))] });
  await node.start();
  cleanups.push(() => node.stop({ drainMs: 0 }));
  const libp2p = (): MeshLibp2p => {
    const peer = face?.mesh.libp2p;
    if (peer === undefined) throw new Error('the mesh is not running');
    return peer;
  };
  // The peers this node may not connect to while cut: libp2p reads its connection gater at each
  // dial and each inbound or outbound upgrade, so the test swaps in a gater of its own.
  const cutOff = new Set<string>();
  const gater = (libp2p() as unknown as { components: { connectionGater: Record<string, unknown> } })
    .components.connectionGater;
  const deny = (peer: { toString(): string }): Promise<boolean> =>
    Promise.resolve(cutOff.has(peer.toString()));
  gater['denyDialPeer'] = deny;
  gater['denyInboundEncryptedConnection'] = deny;
  gater['denyOutboundEncryptedConnection'] = deny;
  return { node, peerId: libp2p().peerId.toString(), cutOff, libp2p };
}

describe('a partition of the mesh', () => {
  it('that heals converges to the same registry on every node', async () => {
    const l1 = await cuttableNode({}, [corpusAgent('left-1')]);
    const boot = await meshAddress(l1.node);
    const l2 = await cuttableNode({ bootstrap: [boot] }, [corpusAgent('left-2')]);
    const r1 = await cuttableNode({ bootstrap: [boot] }, [corpusAgent('right-1')]);
    const r2 = await cuttableNode({ bootstrap: [await meshAddress(r1.node)] }, [corpusAgent('right-2')]);
    const left = [l1, l2];
    const right = [r1, r2];
    const all = [...left, ...right];
    const ids = (n: Node): string[] =>
      n.runtime.agents.registry
        .list()
        .map((c) => c.id)
        .sort();
    const seesOnly = (wanted: string[]) => (n: Node) =>
      JSON.stringify(ids(n)) === JSON.stringify([...wanted].sort());
    const start = ['left-1', 'left-2', 'right-1', 'right-2'];
    for (const { node } of all)
      await until(() => seesOnly(start)(node), { what: 'every card everywhere', limitMs: 20_000 });

    // Cut: no connection between the sides, none allowed until healed.
    const { peerIdFromString } = await import('@libp2p/peer-id');
    for (const [mine, theirs] of [
      [left, right],
      [right, left],
    ] as const) {
      for (const n of mine) for (const o of theirs) n.cutOff.add(o.peerId);
    }
    for (const n of all) {
      for (const id of n.cutOff) await n.libp2p().hangUp(peerIdFromString(id));
    }
    for (const n of all) {
      await until(
        () =>
          n
            .libp2p()
            .getConnections()
            .every((c) => !n.cutOff.has(c.remotePeer.toString())),
        {
          what: 'the sides disconnected',
          limitMs: 15_000,
        },
      );
    }

    // While cut, each side learns (and forgets) what the other cannot.
    await l2.node.runtime.agents.add(corpusAgent('left-new'));
    await l2.node.runtime.agents.remove('left-2');
    await r2.node.runtime.agents.add(corpusAgent('right-new'));
    const leftView = ['left-1', 'left-new', 'right-1', 'right-2'];
    const rightView = ['left-1', 'left-2', 'right-1', 'right-2', 'right-new'];
    for (const n of left)
      await until(() => seesOnly(leftView)(n.node), { what: 'the left side’s change', limitMs: 15_000 });
    for (const n of right) {
      await until(() => seesOnly(rightView)(n.node), { what: 'the right side’s change', limitMs: 15_000 });
    }
    // still cut: the right side has not heard of the left side's change
    for (const n of right) expect(n.node.runtime.agents.registry.find('left-new')).toBeUndefined();

    // Heal: the nodes dial their bootstrap and known peers again (MESH-34) and exchange full sets.
    for (const n of all) n.cutOff.clear();
    const healed = ['left-1', 'left-new', 'right-1', 'right-2', 'right-new'];
    for (const n of all)
      await until(() => seesOnly(healed)(n.node), { what: 'one registry on every node', limitMs: 30_000 });
    // every remote card is owned by the peer that hosts the agent
    const host = new Map(
      all.flatMap((n) =>
        n.node.runtime.agents.registry
          .list()
          .filter((c) => c.origin !== 'remote')
          .map((c) => [c.id, n.peerId] as const),
      ),
    );
    for (const n of all) {
      for (const c of n.node.runtime.agents.registry.list()) {
        if (c.origin === 'remote') expect(c.extensions?.[MESH_PEER_EXTENSION]).toBe(host.get(c.id));
      }
    }
  }, 180_000);
});

/** An agent of its own id serving one verb of its own. */
function corpusAgent(id: string) {
  return defineAgent({
    card: card(id, [{ verb: `${id.replace('-', '_')}.x`, input: { type: 'object' }, output: true }]),
    create: () => ({ [`${id.replace('-', '_')}.x`]: () => id }),
  });
}
