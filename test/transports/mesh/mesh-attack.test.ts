/**
 * A malicious mesh peer (issue 15 item 2): a harness libp2p peer with its own key joins a
 * node and gossips forged, wrong-domain, replayed, tampered and oversized messages, and a card
 * signed by someone else. The node's validator rejects each one, the harness's score falls,
 * no forged card enters the registry, and an honest node's cards keep flowing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import {
  generateKeyPair,
  identityFromPublicKey,
  signEnvelope,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import type { MeshStatus } from '../../../src/transports/mesh/mesh-node.js';
import { createMeshPeer, dialAddress, type MeshLibp2p } from '../../../src/transports/mesh/mesh-peer.js';
import { capabilitiesTopic } from '../../../src/transports/mesh/mesh-topics.js';
import { agent } from '../../runtime/helpers.js';
import { until } from '../../support/until.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function meshNode(mesh: NonNullable<NodeInit['mesh']>, init: NodeInit = {}): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-attack-'));
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

const CRDT = 'hyperspace/crdt/sync/memory';
const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('a malicious mesh peer', () => {
  it('has every forged message rejected, loses score, and cannot stop honest gossip', async () => {
    const hub = await meshNode({});
    const hubStatus = await status(hub);
    const hubAddress = hubStatus.addresses[0] ?? '';
    const hubId = hubStatus.peerId;

    const harnessKey: Ed25519KeyPair = generateKeyPair();
    const harnessId = identityFromPublicKey(harnessKey.publicKey).peerId;
    const harness: MeshLibp2p = await createMeshPeer({
      seed: harnessKey.secretKey,
      listen: ['/ip4/127.0.0.1/tcp/0'],
      announce: [],
      maxMessageBytes: 1024 * 1024,
    });
    cleanups.push(() => harness.stop());
    const { pubsub } = harness.services;
    const ownTopic = capabilitiesTopic(harnessId);
    pubsub.subscribe(ownTopic);
    pubsub.subscribe(CRDT);
    await dialAddress(harness, hubAddress, AbortSignal.timeout(10_000));
    const subscribed = (topic: string) => () =>
      pubsub.getSubscribers(topic).some((p) => p.toString() === hubId);
    await until(subscribed(CRDT), { what: 'the hub on the CRDT topic' });
    await until(subscribed(ownTopic), { what: 'the hub on the harness capability topic' });

    const sign = (d: JsonValue, domain: string, key = harnessKey) =>
      signEnvelope(d, { key, domain, from: 'peerId' });
    const stranger = generateKeyPair();
    const replayed = bytes(sign({ n: 'once' }, CRDT));
    const card = { id: 'forged', name: 'forged', capabilities: [{ verb: 'forged.x' }], origin: 'local' };
    const forged: [string, Uint8Array][] = [
      // signed by another key than the gossip originator
      [CRDT, bytes(sign({ n: 1 }, CRDT, stranger))],
      // signed for another topic
      [CRDT, bytes(sign({ n: 2 }, 'hyperspace/reputation/someone'))],
      // a changed payload
      [CRDT, bytes({ ...sign({ n: 3 }, CRDT), d: { n: 4 } })],
      // the same envelope again
      [CRDT, replayed],
      [CRDT, replayed],
      // over the 64 KiB default
      [CRDT, bytes(sign({ pad: 'x'.repeat(70_000) }, CRDT))],
      // a card on the harness's own topic, signed by a stranger
      [ownTopic, bytes(sign({ kind: 'full', cards: [card], removed: [] }, ownTopic, stranger))],
    ];
    for (const [topic, data] of forged) await pubsub.publish(topic, data);

    await until(async () => (await status(hub)).rejected >= 6, { what: 'six rejections', limitMs: 15_000 });
    expect(hub.runtime.agents.registry.find('forged')).toBeUndefined();
    // gossipsub caches a score for about a heartbeat: wait for the refreshed one.
    await until(async () => ((await status(hub)).peers.find((p) => p.peerId === harnessId)?.score ?? 0) < 0, {
      what: 'the harness score to fall below 0',
      limitMs: 15_000,
    });

    // An honest node joining now still gets its new agent to the hub.
    const honest = await meshNode({ bootstrap: [hubAddress] });
    await honest.runtime.agents.add(agent('honest', { 'honest.x': () => 0 }));
    await until(() => hub.runtime.agents.registry.find('honest')?.card.origin === 'remote', {
      what: 'the honest card on the hub',
      limitMs: 15_000,
    });
  });
});
