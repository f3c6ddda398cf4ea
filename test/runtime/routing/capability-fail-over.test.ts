/**
 * RT-060: a capability job whose chosen remote provider could not be reached — and whose
 * request never left this node (`details.sent: false`) — fails over to the next provider of
 * the capability, recording `job.retried` with the reason. A failure that may have delivered
 * the request, a call naming its agent, or no other provider: the first failure stands.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import { RUNTIME_EVENTS, type RemoteInvoker } from '../../../src/runtime/index.js';
import { SENT_DETAIL, wasNeverSent } from '../../../src/runtime/routing/index.js';
import { agent, cap, card, type Harness, request, startRuntime } from '../helpers.js';

/** Remote agents in memory: those in `down` fail as `failure` says; the others answer with their id. */
function remoteOf(
  down: Set<string>,
  failure: (id: string) => PlexusError,
): RemoteInvoker & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    invoke(target, envelope: Envelope) {
      calls.push(target.id);
      if (down.has(target.id)) return Promise.reject(failure(target.id));
      return Promise.resolve({
        ...envelope,
        kind: 'response',
        from: target.id,
        to: envelope.from,
        data: { by: target.id },
      });
    },
  };
}

const refused = (id: string): PlexusError =>
  new PlexusError('PEER_UNAVAILABLE', `peer of ${id} cannot be reached: connect ECONNREFUSED`, {
    details: { attempts: 4, [SENT_DETAIL]: false },
  });
const brokeMidCall = (id: string): PlexusError =>
  new PlexusError('PEER_UNAVAILABLE', `peer of ${id} closed the call before answering`, {
    details: { attempts: 4 },
  });

describe('capability fail-over (RT-060)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function withRemotes(remote: RemoteInvoker, ...ids: string[]): Promise<Harness> {
    h = await startRuntime({ remote });
    for (const id of ids)
      await h.runtime.agents.registry.upsert(card(id, [cap('demo.work')]), { origin: 'remote' });
    return h;
  }

  it('tells a failure that never left the node from one that may have delivered', () => {
    expect(wasNeverSent(refused('x'))).toBe(true);
    expect(wasNeverSent(brokeMidCall('x'))).toBe(false);
    expect(wasNeverSent(new PlexusError('TIMEOUT', 'slow', { details: { [SENT_DETAIL]: false } }))).toBe(
      false,
    );
  });

  it('goes to the next provider when the first could not be reached, and records why', async () => {
    const remote = remoteOf(new Set(['far-a']), refused);
    const { runtime, log } = await withRemotes(remote, 'far-a', 'far-b');
    const { envelope, job } = await runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(envelope).toMatchObject({ kind: 'response', from: 'far-b', data: { by: 'far-b' } });
    expect(remote.calls).toEqual(['far-a', 'far-b']);
    expect(job).toMatchObject({ state: 'COMPLETED', attempts: 2 });
    const retried = await log.read({ type: RUNTIME_EVENTS.jobRetried });
    expect(retried).toHaveLength(1);
    expect(retried[0]?.data).toMatchObject({
      agents: ['far-b'],
      attempt: 2,
      route: 'remote',
      reason: expect.stringMatching(/agent far-a could not be reached .*failing over to agent far-b/),
    });
  });

  it('tries each provider once and fails with the first failure when none can be reached', async () => {
    const remote = remoteOf(new Set(['far-a', 'far-b', 'far-c']), refused);
    const { runtime } = await withRemotes(remote, 'far-a', 'far-b', 'far-c');
    const { envelope, job } = await runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'PEER_UNAVAILABLE', retryable: true });
    expect(remote.calls.sort()).toEqual(['far-a', 'far-b', 'far-c']);
    expect(job).toMatchObject({ state: 'FAILED', attempts: 3 });
  });

  it('fails over to a local provider', async () => {
    const remote = remoteOf(new Set(['a-far']), refused);
    h = await startRuntime({ remote, agents: [agent('near', { 'demo.work': () => ({ by: 'near' }) })] });
    await h.runtime.agents.registry.upsert(card('a-far', [cap('demo.work')]), { origin: 'remote' });
    // loads and ranks tie: the smaller id, the remote one, is chosen first
    const { envelope } = await h.runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(remote.calls).toEqual(['a-far']);
    expect(envelope).toMatchObject({ kind: 'response', data: { by: 'near' } });
  });

  it('does not fail over when the request may have reached the provider', async () => {
    const remote = remoteOf(new Set(['far-a']), brokeMidCall);
    const { runtime } = await withRemotes(remote, 'far-a', 'far-b');
    const { envelope, job } = await runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'PEER_UNAVAILABLE' });
    expect(remote.calls).toEqual(['far-a']);
    expect(job?.state).toBe('FAILED');
  });

  it('does not fail over a call that names its agent', async () => {
    const remote = remoteOf(new Set(['far-a']), refused);
    const { runtime } = await withRemotes(remote, 'far-a', 'far-b');
    const { envelope } = await runtime.invoke(request('demo.work', 1, 'far-a'), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'PEER_UNAVAILABLE' });
    expect(remote.calls).toEqual(['far-a']);
  });
});
