/**
 * Trajectory gossip over the mesh (issue 15 item 6; seed 003 §5.2, §7.3, Example 2; MESH-29…31),
 * between real in-process nodes: a node that shares (`mesh.shareTrajectories`) publishes what
 * `improving.recordTrajectory` records — PII-redacted, tenant-less only — and `gossipedTo` is
 * the number of peers gossipsub sent it to; the nodes that follow the task type add it to their
 * library with the sender's PeerId, and `improving.getExemplars` there serves it. A node that
 * does not share sends nothing. A harness peer's forged, wrong-domain, malformed, mislabelled
 * and oversized trajectories are rejected by the topic validator and lower its score.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { Node } from '../../../src/node/index.js';
import { trajectoryTopic } from '../../../src/primitives/improving/index.js';
import { generateKeyPair, identityFromPublicKey, signEnvelope } from '../../../src/security/index.js';
import { request } from '../../runtime/helpers.js';
import { eventually, until } from '../../support/until.js';
import { harness, meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

const TASK = 'web-research';
const TOPIC = trajectoryTopic(TASK);

async function ok(node: Node, verb: string, data: JsonValue, tenantId?: string): Promise<JsonObject> {
  const { envelope } = await node.runtime.invoke(
    request(verb, data, 'improving', tenantId === undefined ? {} : { tenantId }),
    { face: 'internal', idempotencyKey: randomUUID() },
  );
  if (envelope.kind !== 'response') throw new Error(`${verb}: ${JSON.stringify(envelope.data)}`);
  return envelope.data as JsonObject;
}

const trajectory = (query: string, reward: number): JsonObject => ({
  taskType: TASK,
  input: { query },
  output: { summary: '…', confidence: reward },
  steps: [
    { action: 'discover', tool: 'tool.discover', duration: 45 },
    { action: 'search', tool: 'web-search', duration: 195 },
    { action: 'synthesize', tool: 'summarizer', duration: 720 },
  ],
  reward,
});

const exemplars = async (node: Node): Promise<JsonObject[]> =>
  (await ok(node, 'improving.getExemplars', { taskType: TASK, limit: 10, minReward: 0 }))[
    'exemplars'
  ] as JsonObject[];

/** Waits until `node`'s own mesh on the topic has `peers` peers (each knows the other follows it). */
async function meshOnTopic(node: Node, peers: number): Promise<void> {
  await until(
    async () => ((await meshStatus(node)).topics.find((t) => t.topic === TOPIC)?.meshPeers ?? 0) >= peers,
    { what: `${peers} peers in the ${TOPIC} mesh`, limitMs: 20_000, everyMs: 100 },
  );
}

describe('trajectory gossip', () => {
  it('carries a shared trajectory to the nodes that follow its task type (seed 003 Example 2)', async () => {
    const a = await meshNode({ shareTrajectories: true }, { primitives: ['improving'] });
    const boot = await meshAddress(a);
    const b = await meshNode({ bootstrap: [boot] }, { primitives: ['improving'] });
    const c = await meshNode({ bootstrap: [boot] }, { primitives: ['improving'] });
    const aPeer = (await meshStatus(a)).peerId;
    // Each node follows the task type once a call names it (MESH-30).
    for (const node of [a, b, c]) expect(await exemplars(node)).toEqual([]);
    await meshOnTopic(a, 2);

    // c does not share: nothing goes out, no gossip is recorded.
    const fromC = await ok(c, 'improving.recordTrajectory', trajectory('kept on c', 0.95));
    expect(fromC['gossipedTo']).toBe(0);
    expect(await c.log.read({ type: 'improving.trajectory_gossiped' })).toEqual([]);
    // A tenant's trajectory stays on its node even when the node shares (MESH-31).
    const tenants = await ok(a, 'improving.recordTrajectory', trajectory('acme only', 0.9), 'acme');
    expect(tenants['gossipedTo']).toBe(0);

    // a shares: sent to both peers that follow the topic, PII redacted before it left.
    const recorded = await ok(
      a,
      'improving.recordTrajectory',
      trajectory('solid-state battery breakthroughs 2026, mail ada@example.org', 0.91),
    );
    expect(recorded).toMatchObject({ state: 'SUCCESS', gossipedTo: 2 });
    const [gossiped] = await a.log.read({ type: 'improving.trajectory_gossiped' });
    expect(gossiped?.data).toMatchObject({ topic: TOPIC, gossipedTo: 2, error: null });

    for (const node of [b, c]) {
      const got = await eventually(
        'the shared trajectory in the library',
        async () => (await exemplars(node)).find((e) => e['peerId'] === aPeer),
        { limitMs: 15_000, everyMs: 100 },
      );
      expect(got).toMatchObject({ trajectoryId: recorded['trajectoryId'], reward: 0.91, peerId: aPeer });
      expect(JSON.stringify(got['input'])).not.toContain('ada@example.org');
      expect((got['steps'] as JsonObject[]).map((s) => s['action'])).toEqual([
        'discover',
        'search',
        'synthesize',
      ]);
    }
    // b got a's trajectory, and nothing of c's nor of the tenant's.
    const onB = await exemplars(b);
    expect(onB.map((e) => e['peerId'])).toEqual([aPeer]);
    const stats = await ok(b, 'improving.getLibraryStats', { taskType: TASK });
    expect(stats).toMatchObject({ total: 1, topContributors: [{ peerId: aPeer, count: 1 }] });
    const received = await b.log.read({ type: 'improving.trajectory_received' });
    expect(received).toHaveLength(1);
  }, 90_000); // real nodes on a shared machine: starting them is most of it

  it('rejects forged, malformed and oversized trajectories, and scores their sender down', async () => {
    const b = await meshNode({}, { primitives: ['improving'] });
    expect(await exemplars(b)).toEqual([]); // b follows the topic
    const bPeer = (await meshStatus(b)).peerId;
    const h = await harness(await meshAddress(b));
    const { pubsub } = h.peer.services;
    pubsub.subscribe(TOPIC);
    await until(() => pubsub.getSubscribers(TOPIC).some((p) => p.toString() === bPeer), {
      what: 'b on the trajectory topic',
      limitMs: 15_000,
    });
    const strangerId = identityFromPublicKey(generateKeyPair().publicKey).peerId;
    const send = (d: JsonValue, domain = TOPIC, from?: string): Promise<unknown> => {
      const signed = signEnvelope(d, { key: h.key, domain, from: 'peerId' });
      // MESH-48: gossipsub carries no originator; a from that is not the key's is a forgery
      const sent = from === undefined ? signed : { ...signed, from };
      return pubsub.publish(TOPIC, new TextEncoder().encode(JSON.stringify(sent)));
    };

    // An honest trajectory from the harness is taken, named by the harness's PeerId.
    await send({ ...trajectory('honest', 0.8), peerId: h.peerId });
    await eventually(
      'the harness trajectory in b',
      async () => (await exemplars(b)).find((e) => e['peerId'] === h.peerId),
      { limitMs: 15_000, everyMs: 100 },
    );
    const before = await meshStatus(b);

    const bad: [string, JsonValue, string?][] = [
      ['from a stranger, signed by the harness', trajectory('forged', 0.9)],
      ['signed for another topic', trajectory('elsewhere', 0.9), 'hyperspace/trajectories/other'],
      ['a reward out of range', trajectory('greedy', 7)],
      ['another task type than the topic', { ...trajectory('mislabelled', 0.9), taskType: 'other' }],
      ['no steps', { ...trajectory('stepless', 0.9), steps: 'none' }],
      ['naming another peer as its author', { ...trajectory('impostor', 0.9), peerId: bPeer }],
      ['over 64 KiB', trajectory('x'.repeat(70_000), 0.9)],
    ];
    for (const [what, d, domain] of bad) {
      await send(d, domain, what.startsWith('from a stranger') ? strangerId : undefined);
    }
    const judged = await eventually(
      'every bad trajectory rejected or ignored',
      async () => {
        const s = await meshStatus(b);
        const count = s.rejected + s.ignored - before.rejected - before.ignored;
        return count >= bad.length ? s : undefined;
      },
      { limitMs: 15_000, everyMs: 100 },
    );
    expect(judged.rejected - before.rejected).toBeGreaterThanOrEqual(3);
    const scored = await eventually(
      'the harness scored down',
      async () => {
        const p = (await meshStatus(b)).peers.find((x) => x.peerId === h.peerId);
        return p !== undefined && p.score < 0 ? p : undefined;
      },
      { limitMs: 15_000, everyMs: 100 },
    );
    expect(scored.score).toBeLessThan(0);
    // Only the honest trajectory is in b's library.
    const inputs = (await exemplars(b)).map((e) => (e['input'] as JsonObject)['query']);
    expect(inputs).toEqual(['honest']);
    expect(await b.log.read({ type: 'improving.trajectory_received' })).toHaveLength(1);
  }, 90_000); // real nodes on a shared machine: starting them is most of it
});
