/**
 * The seam between the improving primitive and the mesh (MESH-29…31): which task types the
 * primitive follows, when it publishes (only while an attached link shares, only tenant-less
 * trajectories), that `gossipedTo` is what the link's publisher answered, and that received
 * trajectories reach the primitive. The mesh end is a recording link here; the real mesh is in
 * test/transports/mesh/mesh-trajectories.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  improvingPrimitive,
  trajectoryGossip,
  type TrajectoryGossip,
} from '../../../src/primitives/improving/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import { startPrimitive, type PrimitiveHarness } from '../learning/harness.js';

let h: PrimitiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const traj = (taskType: string, query: string, reward = 0.9): JsonObject => ({
  taskType,
  input: { query },
  output: { summary: 'done' },
  steps: [{ action: 'search', tool: 'web-search', duration: 300 }],
  reward,
});

async function start(gossip: TrajectoryGossip, log?: EventLog): Promise<PrimitiveHarness> {
  h = await startPrimitive((c) => improvingPrimitive(c, { peerId: '12D3KooWSelf', gossip }), {
    ...(log === undefined ? {} : { log }),
  });
  return h;
}

/** A link that records what it was asked and answers `reached` for each publish. */
function recordingLink(reached: number) {
  const followed: string[] = [];
  const sent: { topic: string; message: JsonObject }[] = [];
  return {
    followed,
    sent,
    link: {
      follow: (taskType: string) => {
        followed.push(taskType);
      },
      publisher: {
        publish: (topic: string, message: JsonObject) => {
          sent.push({ topic, message });
          return Promise.resolve(reached);
        },
      },
    },
  };
}

describe('the trajectory gossip seam', () => {
  it('publishes nothing while no link shares, and writes no gossip event', async () => {
    const gossip = trajectoryGossip();
    const p = await start(gossip);
    expect((await p.ok('improving.recordTrajectory', traj('web-research', 'a')))['gossipedTo']).toBe(0);
    // A link that follows but does not share (mesh.shareTrajectories off).
    const follows: string[] = [];
    gossip.attach({ follow: (t) => follows.push(t) });
    expect(gossip.sharing()).toBe(false);
    expect((await p.ok('improving.recordTrajectory', traj('web-research', 'b')))['gossipedTo']).toBe(0);
    expect(await p.log.read({ type: 'improving.trajectory_gossiped' })).toEqual([]);
    expect(follows).toEqual(['web-research']);
  });

  it('follows the task types calls name, publishes tenant-less trajectories and answers the reach', async () => {
    const gossip = trajectoryGossip();
    const p = await start(gossip);
    await p.ok('improving.getExemplars', { taskType: 'code-review' });
    await p.ok('improving.assessDifficulty', { taskType: 'translation', input: { text: 'hola' } });
    await p.ok('improving.getLibraryStats', {}); // names no task type: follows nothing
    const mesh = recordingLink(3);
    const detach = gossip.attach(mesh.link);
    expect(mesh.followed).toEqual(['code-review', 'translation']); // told on attach

    const shared = await p.ok('improving.recordTrajectory', traj('web-research', 'mail ada@example.org'));
    expect(shared['gossipedTo']).toBe(3);
    expect(mesh.followed).toEqual(['code-review', 'translation', 'web-research']);
    expect(mesh.sent).toHaveLength(1);
    expect(mesh.sent[0]?.topic).toBe('hyperspace/trajectories/web-research');
    expect(mesh.sent[0]?.message).toMatchObject({ peerId: '12D3KooWSelf', taskType: 'web-research' });
    expect(JSON.stringify(mesh.sent[0]?.message)).not.toContain('ada@example.org');

    // A tenant's trajectory stays local (MESH-31); a `share: false` one too (IMP-5).
    const tenant = await p.ok('improving.recordTrajectory', traj('web-research', 'acme'), {
      tenantId: 'acme',
    });
    expect(tenant['gossipedTo']).toBe(0);
    const kept = await p.ok('improving.recordTrajectory', {
      ...traj('web-research', 'private'),
      metadata: { share: false },
    });
    expect(kept['gossipedTo']).toBe(0);
    expect(mesh.sent).toHaveLength(1);

    // Detached (the mesh stopped): nothing more goes out.
    detach();
    expect(gossip.sharing()).toBe(false);
    expect((await p.ok('improving.recordTrajectory', traj('web-research', 'later')))['gossipedTo']).toBe(0);
    expect(mesh.sent).toHaveLength(1);
  });

  it('follows the task types of its library at start and hands received trajectories to the primitive', async () => {
    const log = memoryEventLog();
    const first = trajectoryGossip();
    const p = await start(first, log);
    await p.ok('improving.recordTrajectory', traj('summaries', 'kept'));
    await p.close({ keepLog: true });
    h = undefined;

    const gossip = trajectoryGossip();
    await expect(gossip.receive(traj('summaries', 'early'), { peerId: 'x' })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    const again = await start(gossip, log);
    expect(gossip.followed()).toEqual(['summaries']);
    const got = await gossip.receive(
      { ...traj('summaries', 'from a peer'), trajectoryId: 'traj-0badc0de' },
      {
        peerId: '12D3KooWPeer',
      },
    );
    expect(got).toEqual({ trajectoryId: 'traj-0badc0de', state: 'SUCCESS', duplicate: false });
    await expect(
      gossip.receive({ ...traj('summaries', 'greedy'), reward: 3 }, { peerId: '12D3KooWPeer' }),
    ).rejects.toMatchObject({ code: 'TRAJECTORY_REJECTED' });
    const stats = await again.ok('improving.getLibraryStats', { taskType: 'summaries' });
    expect(stats['topContributors']).toEqual([
      { peerId: '12D3KooWPeer', count: 1, avgReward: 0.9 },
      { peerId: '12D3KooWSelf', count: 1, avgReward: 0.9 },
    ]);
  });
});
