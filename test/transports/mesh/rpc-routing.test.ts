/**
 * Calls between two in-process mesh nodes (issue 15 item 5): by agent id (a card learned from
 * capability gossip routes over `/plexus/rpc/1.0.0`), by `p2p://did:key:…` and by
 * `p2p://<PeerId>/<agent>`; the callee runs the call as a `peer` principal and a node that
 * requires auth refuses an untrusted signer; an owner that is gone answers PEER_UNAVAILABLE;
 * the far handler's progress becomes progress of the near node's async job (MESH-27), which
 * its ESRP SSE stream shows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorData } from '../../../src/core/errors.js';
import type { Node } from '../../../src/node/index.js';
import { TARGET_EXTENSION } from '../../../src/runtime/routing/index.js';
import { agent, request } from '../../runtime/helpers.js';
import { until } from '../../support/until.js';
import { harness, meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

const worker = (by: string) => agent('worker', { 'demo.work': (input) => ({ by, input }) });

async function learned(node: Node, id: string): Promise<void> {
  await until(() => node.runtime.agents.registry.find(id)?.card.origin === 'remote', {
    what: `${id} learned by gossip`,
    limitMs: 15_000,
    everyMs: 20,
  });
}

const call = (node: Node, to: string, data: number, target?: string) =>
  node.runtime.invoke(
    request(
      'demo.work',
      data,
      to,
      target === undefined ? {} : { extensions: { [TARGET_EXTENSION]: target } },
    ),
    { face: 'internal' },
  );

describe('mesh rpc between two nodes', () => {
  it('calls by agent id and by p2p:// target, and answers PEER_UNAVAILABLE once the owner is gone', async () => {
    const far = await meshNode({}, { agents: [worker('far')] });
    const near = await meshNode({ bootstrap: [await meshAddress(far)] });
    await learned(near, 'worker');
    const farPeer = (await meshStatus(far)).peerId;

    const byId = await call(near, 'worker', 1);
    expect(byId.envelope).toMatchObject({ kind: 'response', data: { by: 'far', input: 1 } });
    const byDid = await call(near, 'capability:demo.work', 2, `p2p://${far.nodeId}`);
    expect(byDid.envelope).toMatchObject({ kind: 'response', data: { by: 'far', input: 2 } });
    const byPeerId = await call(near, 'someone', 3, `p2p://${farPeer}/worker`);
    expect(byPeerId.envelope).toMatchObject({ kind: 'response', data: { by: 'far', input: 3 } });

    // The far node ran them as calls of the near node (its signer, admitted as a peer principal).
    const jobs = (await far.runtime.jobs.list({})).jobs.filter((j) => j.verb === 'demo.work');
    expect(jobs).toHaveLength(3);
    const audits = (await far.log.read({ afterSeq: 0 })).filter(
      (e) => e.type === 'audit.invoked' && (e.data as { face?: string }).face === 'peer',
    );
    expect(audits).toHaveLength(3);
    for (const audit of audits) {
      expect(audit.data).toMatchObject({ principal: near.nodeId, principalKind: 'peer' });
    }

    await far.stop({ drainMs: 0 });
    const gone = await call(near, 'worker', 4);
    expect(gone.envelope.kind).toBe('error');
    expect((gone.envelope.data as unknown as ErrorData).code).toBe('PEER_UNAVAILABLE');
  });

  it('answers PEER_UNAVAILABLE for a connected peer that does not speak the rpc protocol (MESH-36)', async () => {
    // The call frame rides with the protocol name (lazy negotiation): the refusal of the
    // protocol arrives on the first read, and is a failure to deliver like a failed dial.
    const near = await meshNode();
    // a libp2p peer of the test's own, connected to the node, serving no rpc protocol
    const mute = await harness(await meshAddress(near));
    const answer = await call(near, 'capability:demo.work', 1, `p2p://${mute.peerId}/worker`);
    expect(answer.envelope.kind).toBe('error');
    const error = answer.envelope.data as unknown as ErrorData;
    expect(error.code).toBe('PEER_UNAVAILABLE');
    expect(error.message).toContain(mute.peerId);
  });

  it('is refused by a node that requires auth unless the caller is a trusted peer', async () => {
    const near = await meshNode();
    const boot = await meshAddress(near);
    const closed = await meshNode({ bootstrap: [boot] }, { dev: false, agents: [worker('closed')] });
    const refused = await call(near, 'capability:demo.work', 1, `p2p://${closed.nodeId}/worker`);
    expect(refused.envelope.kind).toBe('error');
    expect((refused.envelope.data as unknown as ErrorData).code).toBe('FORBIDDEN');
    const trusting = await meshNode(
      { bootstrap: [boot] },
      { dev: false, trustedPeers: [near.nodeId], agents: [worker('trusting')] },
    );
    const admitted = await call(near, 'capability:demo.work', 2, `p2p://${trusting.nodeId}/worker`);
    expect(admitted.envelope).toMatchObject({ kind: 'response', data: { by: 'trusting', input: 2 } });
  });

  it('re-emits the far handler’s progress as progress of the forwarding job, seen over ESRP SSE', async () => {
    const stepper = agent('stepper', {
      'demo.steps': (input, ctx) => {
        for (let i = 1; i <= 3; i++) ctx.progress({ step: i });
        return { done: input };
      },
    });
    const far = await meshNode({}, { agents: [stepper] });
    const near = await meshNode({ bootstrap: [await meshAddress(far)] });
    await learned(near, 'stepper');

    const { job } = await near.runtime.submit(request('demo.steps', 7, 'stepper'), { face: 'internal' });
    const done = await near.runtime.jobs.wait(job.id);
    expect(done.state).toBe('COMPLETED');
    const events = await near.runtime.jobs.events(job.id);
    const progress = events.filter((e) => e.type === 'job.progress').map((e) => e.data);
    expect(progress).toEqual([1, 2, 3].map((step) => ({ id: job.id, progress: { step } })));

    // What an ESRP client of the near node sees: job_progress events, then job_succeeded.
    const sse = await (await fetch(`${near.url}/v1/jobs/${job.id}/events`)).text();
    const names = [...sse.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names.filter((n) => n === 'job_progress')).toHaveLength(3);
    expect(names.at(-1)).toBe('job_succeeded');
    expect(sse).toContain('"progress":{"step":3}');

    // A sync call has no watcher: the far job is invoked and no progress is forwarded.
    const sync = await near.runtime.invoke(request('demo.steps', 8, 'stepper'), { face: 'internal' });
    expect(sync.envelope).toMatchObject({ kind: 'response', data: { done: 8 } });
    const syncJob = sync.job?.id ?? '';
    expect((await near.runtime.jobs.events(syncJob)).filter((e) => e.type === 'job.progress')).toEqual([]);
  });
});
