import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError, type ErrorData } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createRuntime, memoryObserver, type Runtime } from '../../../src/runtime/index.js';
import {
  ROUTING_EVENTS,
  fallbackPolicies,
  localTransport,
  matchPeer,
  parseTarget,
  routingInvoker,
  type FallbackConfig,
  type RouteTransport,
  type RoutingInvoker,
} from '../../../src/runtime/routing/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import { agent, request, startRuntime, type Harness } from '../helpers.js';
import { runRouteTransportContract } from './transport-contract.js';

const FAR = 'http://far.test:3100';
const OTHER = 'http://other.test:3100';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A peer node in memory: a real runtime behind the transport contract; `up` switches it off. */
interface MemoryPeer {
  readonly url: string;
  readonly node: Harness;
  up: boolean;
  calls: number;
  /** While down: true when its failure says the request never left (`details.sent: false`, RT-060). */
  refuses?: boolean;
}

function memoryPeerTransport(peers: readonly MemoryPeer[]): RouteTransport {
  const urls = new Set(peers.map((p) => p.url));
  return {
    name: 'memory-peer',
    supports: (t) => t.scheme === 'http' && matchPeer(urls, t.url) !== undefined,
    async invoke({ target, envelope }, signal) {
      const match = target.scheme === 'http' ? matchPeer(urls, target.url) : undefined;
      const peer = peers.find((p) => p.url === match?.peer);
      if (peer === undefined || !peer.up) {
        throw new PlexusError('PEER_UNAVAILABLE', `peer ${match?.peer ?? '?'} cannot be reached`, {
          ...(peer?.refuses === true ? { details: { sent: false } } : {}),
        });
      }
      peer.calls++;
      const to = match?.agent ?? envelope.to;
      return (await peer.node.runtime.invoke({ ...envelope, to }, { face: 'peer' }, { signal })).envelope;
    },
  };
}

async function farPeer(url: string, by: string): Promise<MemoryPeer> {
  const node = await startRuntime({
    agents: [
      agent('worker', {
        'demo.work': (input) => ({ by, input }),
        'demo.fail': () => {
          throw new PlexusError('INVALID_PARAMS', 'the far side refuses this input');
        },
      }),
    ],
  });
  return { url, node, up: true, calls: 0 };
}

interface Near {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly router: RoutingInvoker;
  close(keepLog?: boolean): Promise<void>;
}

const observer = memoryObserver();

async function near(
  peers: readonly MemoryPeer[],
  config: FallbackConfig,
  log = memoryEventLog(),
): Promise<Near> {
  if (
    !(await log
      .head()
      .then(() => true)
      .catch(() => false))
  )
    await log.start();
  const holder: { runtime?: Runtime } = {};
  const runtimeOf = (): Runtime => holder.runtime as Runtime;
  const router = routingInvoker({
    transports: [memoryPeerTransport(peers), localTransport(runtimeOf)],
    peerUrls: peers.map((p) => p.url),
    policies: fallbackPolicies(config),
    log,
    runtime: runtimeOf,
    nodeId: 'near',
    queue: { retryMs: 10, maxRetryMs: 40, maxWaitMs: 20_000 },
    observer,
  });
  await router.start();
  const runtime = createRuntime({
    log,
    remote: router,
    agents: [agent('backup', { 'demo.work': (input) => ({ by: 'near-backup', input }) })],
  });
  holder.runtime = runtime;
  await runtime.start();
  return {
    log,
    runtime,
    router,
    async close(keepLog = false) {
      await runtime.stop({ drainMs: 0 });
      await router.stop();
      if (!keepLog) await log.stop();
    },
  };
}

function targeted(
  verb: string,
  data: JsonValue,
  target: string,
  extensions: Record<string, JsonValue> = {},
): Envelope {
  return request(verb, data, `capability:${verb}`, {
    traceparent: TRACEPARENT,
    extensions: { _x_agentese_target: target, ...extensions },
  });
}

/** A started runtime over `log` whose policy `later` is `[queue-for-sync]` towards `peer`. */
async function queueingRuntime(
  log: EventLog,
  peer: MemoryPeer,
  queue: { retryMs: number; maxRetryMs: number; maxAttempts: number },
): Promise<Runtime> {
  const holder: { runtime?: Runtime } = {};
  const router = routingInvoker({
    transports: [memoryPeerTransport([peer])],
    peerUrls: [FAR],
    policies: fallbackPolicies({ policies: { later: ['queue-for-sync'] } }),
    log,
    runtime: () => holder.runtime as Runtime,
    queue,
  });
  const runtime = createRuntime({ log, remote: router });
  holder.runtime = runtime;
  await runtime.start();
  return runtime;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setup(config: FallbackConfig = {}, urls: readonly string[] = [FAR]) {
  const peers = await Promise.all(urls.map((u, i) => farPeer(u, `far-${i}`)));
  for (const p of peers) open.push(p.node);
  const n = await near(peers, config);
  open.push(n);
  return { peers, n };
}

// The in-memory peer of these tests passes the same contract as the real transports.
runRouteTransportContract('memory-peer (test fake)', async () => {
  const peer = await farPeer(FAR, 'far-0');
  return {
    transport: memoryPeerTransport([peer]),
    reachable: parseTarget(`${FAR}/worker`),
    foreign: parseTarget('local://worker'),
    ok: () => request('demo.work', 5),
    expected: { by: 'far-0', input: 5 },
    failing: () => request('demo.fail', null),
    makeUnreachable: () => {
      peer.up = false;
      return Promise.resolve();
    },
    close: () => peer.node.close(),
  };
});

describe('routing invoker: targets', () => {
  it('forwards to an http target as a child span of the forwarding job', async () => {
    const { peers, n } = await setup();
    const { envelope, job } = await n.runtime.invoke(targeted('demo.work', { x: 1 }, `${FAR}/worker`), {
      face: 't',
    });
    expect(envelope).toMatchObject({ kind: 'response', data: { by: 'far-0', input: { x: 1 } } });
    const [submitted] = await peers[0]!.node.log.read({ type: 'job.submitted' });
    const trace = submitted?.trace ?? '';
    expect(trace).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(trace).not.toBe(TRACEPARENT);
    const far = (submitted?.data as unknown as { request: Envelope }).request;
    expect(far.extensions?.['_x_agentese_parent_span_id']).toBe('00f067aa0ba902b7');
    expect(far.extensions?.['_x_agentese_target']).toBeUndefined();
    expect(far.to).toBe('worker');
    const [nearSubmitted] = await n.log.read({ type: 'job.submitted' });
    expect(nearSubmitted?.trace).toBe(TRACEPARENT);
    expect(job?.state).toBe('COMPLETED');
  });

  it('forwards to a peer without an agent by capability', async () => {
    const { n } = await setup();
    const { envelope } = await n.runtime.invoke(targeted('demo.work', 2, FAR), { face: 't' });
    expect(envelope).toMatchObject({ kind: 'response', data: { by: 'far-0', input: 2 } });
  });

  it('runs a local:// target here', async () => {
    const { n } = await setup();
    const { envelope } = await n.runtime.invoke(targeted('demo.work', 3, 'local://backup'), { face: 't' });
    expect(envelope).toMatchObject({ kind: 'response', data: { by: 'near-backup', input: 3 } });
  });

  it.each([
    ['an unknown local agent', 'local://nobody', 'NOT_FOUND', /no agent with id "nobody" is hosted/],
    ['a peer that is not configured', 'http://127.0.0.1:9/worker', 'FORBIDDEN', /configured peers/],
    [
      'a p2p target',
      'p2p://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'UNAVAILABLE',
      /libp2p/,
    ],
    ['an mcp target', 'mcp://tool/browser', 'UNAVAILABLE', /MCP/],
    ['an unknown scheme', 'town://citizen/alpha', 'INVALID_PARAMS', /supported: local:\/\//],
  ])('refuses %s with a clear error', async (_why, target, code, message) => {
    const { n } = await setup();
    const { envelope } = await n.runtime.invoke(targeted('demo.work', 1, target), { face: 't' });
    expect(envelope.kind).toBe('error');
    const data = envelope.data as unknown as ErrorData;
    expect(data.code).toBe(code);
    expect(data.message).toMatch(message);
  });

  it('refuses an unknown fallback policy at the door', async () => {
    const { n } = await setup();
    const { envelope } = await n.runtime.invoke(
      targeted('demo.work', 1, FAR, { _x_agentese_fallback_policy: 'nope' }),
      { face: 't' },
    );
    expect(envelope.data).toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('routing invoker: fallback policies', () => {
  it('default policy: gives up explaining what was tried, keeping the transport error code', async () => {
    const { peers, n } = await setup();
    peers[0]!.up = false;
    const { envelope } = await n.runtime.invoke(targeted('demo.work', 1, `${FAR}/worker`), { face: 't' });
    const data = envelope.data as unknown as ErrorData;
    expect(data.code).toBe('PEER_UNAVAILABLE');
    expect(data.message).toMatch(
      /fallback policy "default" tried: http:\/\/far\.test:3100\/worker: PEER_UNAVAILABLE; error/,
    );
    expect(data.details).toMatchObject({ policy: 'default' });
  });

  it('keeps "never sent" through the default policy, and drops it once a fallback target may have received the request (RT-060)', async () => {
    const { peers, n } = await setup({ policies: { ha: [OTHER, 'error'] } }, [FAR, OTHER]);
    peers[0]!.up = false;
    peers[0]!.refuses = true;
    const plain = await n.runtime.invoke(targeted('demo.work', 1, `${FAR}/worker`), { face: 't' });
    expect((plain.envelope.data as unknown as ErrorData).details).toMatchObject({
      policy: 'default',
      sent: false,
    });
    peers[1]!.up = false; // fails without saying it was not sent
    const ha = await n.runtime.invoke(
      targeted('demo.work', 2, `${FAR}/worker`, { _x_agentese_fallback_policy: 'ha' }),
      { face: 't' },
    );
    const details = (ha.envelope.data as unknown as ErrorData).details ?? {};
    expect(details).toMatchObject({ policy: 'ha' });
    expect(details).not.toHaveProperty('sent');
    peers[1]!.refuses = true; // now both refused: still never sent
    const both = await n.runtime.invoke(
      targeted('demo.work', 3, `${FAR}/worker`, { _x_agentese_fallback_policy: 'ha' }),
      { face: 't' },
    );
    expect((both.envelope.data as unknown as ErrorData).details).toMatchObject({ sent: false });
  });

  it('does not fall back when the far side answered with an error', async () => {
    const { peers, n } = await setup({ policies: { p: [OTHER, 'local-cache'] } }, [FAR, OTHER]);
    const { envelope } = await n.runtime.invoke(
      targeted('demo.fail', 1, `${FAR}/worker`, { _x_agentese_fallback_policy: 'p' }),
      { face: 't' },
    );
    expect(envelope.data).toMatchObject({
      code: 'INVALID_PARAMS',
      message: 'the far side refuses this input',
    });
    expect(peers[1]!.calls).toBe(0);
  });

  it('tries a target group in order, then a local agent', async () => {
    const { peers, n } = await setup(
      { policies: { ha: ['secondary', 'error'] }, groups: { secondary: [OTHER, 'local://backup'] } },
      [FAR, OTHER],
    );
    peers[0]!.up = false;
    const counted = observer.counter('routing.fallbacks');
    const ha = { _x_agentese_fallback_policy: 'ha' };
    const viaOther = await n.runtime.invoke(targeted('demo.work', 'a', `${FAR}/worker`, ha), { face: 't' });
    expect(viaOther.envelope.data).toEqual({ by: 'far-1', input: 'a' });
    expect(observer.counter('routing.fallbacks')).toBe(counted + 1);
    peers[1]!.up = false;
    const viaLocal = await n.runtime.invoke(targeted('demo.work', 'b', `${FAR}/worker`, ha), { face: 't' });
    expect(viaLocal.envelope.data).toEqual({ by: 'near-backup', input: 'b' });
  });

  it('local-cache: serves the last answer for the same verb and input, marked stale, and survives a restart', async () => {
    const peer = await farPeer(FAR, 'far-0');
    open.push(peer.node);
    const config = {
      policies: { 'offline-first': ['local-cache', 'error'] },
      verbs: { 'demo.work': 'offline-first' },
    };
    const log = memoryEventLog();
    const first = await near([peer], config, log);
    const fresh = await first.runtime.invoke(targeted('demo.work', { q: 1 }, `${FAR}/worker`), { face: 't' });
    expect(fresh.envelope.data).toEqual({ by: 'far-0', input: { q: 1 } });
    const [cached] = await log.read({ type: ROUTING_EVENTS.answerCached });
    expect(cached?.trace).toBe(TRACEPARENT);
    await first.close(true);

    peer.up = false;
    const second = await near([peer], config, log); // rebuilt from the log
    open.push(second);
    // a new idempotency key: the same payload would otherwise be answered by the first job
    const stale = await second.runtime.invoke(targeted('demo.work', { q: 1 }, `${FAR}/worker`), {
      face: 't',
      idempotencyKey: 'again',
    });
    expect(stale.envelope.kind).toBe('response');
    expect(stale.envelope.data).toMatchObject({
      stale: true,
      fallback: 'local-cache',
      agent: 'worker',
      output: { by: 'far-0', input: { q: 1 } },
    });
    const miss = await second.runtime.invoke(targeted('demo.work', { q: 2 }, `${FAR}/worker`), { face: 't' });
    expect((miss.envelope.data as unknown as ErrorData).message).toMatch(/local-cache: no answer cached/);
    const otherTenant = await second.runtime.invoke(
      { ...targeted('demo.work', { q: 1 }, `${FAR}/worker`), tenantId: 'acme' },
      { face: 't' },
    );
    expect(otherTenant.envelope.kind).toBe('error');
  });

  it('queue-for-sync: answers with a job that delivers once the peer is back', async () => {
    const { peers, n } = await setup({ policies: { later: ['queue-for-sync'] } });
    peers[0]!.up = false;
    const { envelope } = await n.runtime.invoke(
      targeted('demo.work', { q: 'sync' }, `${FAR}/worker`, { _x_agentese_fallback_policy: 'later' }),
      { face: 't' },
    );
    const receipt = envelope.data as { queued: boolean; job: string; state: string };
    expect(receipt).toMatchObject({ queued: true, fallback: 'queue-for-sync', state: 'SUBMITTED' });
    const pending = await n.runtime.jobs.get(receipt.job);
    expect(['SUBMITTED', 'WORKING']).toContain(pending.state);
    const [queued] = await n.log.read({ type: ROUTING_EVENTS.syncQueued });
    expect(queued?.data).toMatchObject({ job: receipt.job, target: `${FAR}/worker` });
    peers[0]!.up = true;
    const done = await n.runtime.jobs.wait(receipt.job);
    expect(done.state).toBe('COMPLETED');
    expect(done.outputs).toEqual({ by: 'far-0', input: { q: 'sync' } });
    const [delivered] = await n.log.read({ type: ROUTING_EVENTS.syncDelivered });
    expect(delivered?.data).toMatchObject({ job: receipt.job });
  });

  it('queue-for-sync: the delivery loop stops by itself after maxAttempts', async () => {
    const peer = await farPeer(FAR, 'far-0');
    open.push(peer.node);
    peer.up = false;
    const log = memoryEventLog();
    await log.start();
    const runtime = await queueingRuntime(log, peer, { retryMs: 5, maxRetryMs: 5, maxAttempts: 3 });
    open.push({
      close: async () => {
        await runtime.stop({ drainMs: 0 });
        await log.stop();
      },
    });
    const { envelope } = await runtime.invoke(
      targeted('demo.work', 1, `${FAR}/worker`, { _x_agentese_fallback_policy: 'later' }),
      { face: 't' },
    );
    const job = await runtime.jobs.wait((envelope.data as { job: string }).job);
    expect(job.state).toBe('FAILED');
    expect(job.error?.message).toMatch(/not delivered after 3 attempt/);
    const [abandoned] = await log.read({ type: ROUTING_EVENTS.syncAbandoned });
    expect(abandoned?.data).toMatchObject({ attempts: 3, code: 'PEER_UNAVAILABLE' });
  });

  it('queue-for-sync: a queued delivery outlives a graceful stop and is delivered after the next start', async () => {
    const peer = await farPeer(FAR, 'far-0');
    open.push(peer.node);
    peer.up = false;
    const log = memoryEventLog();
    await log.start();
    open.push({ close: () => log.stop() });
    const startOn = () => queueingRuntime(log, peer, { retryMs: 5, maxRetryMs: 20, maxAttempts: 10_000 });
    const first = await startOn();
    const { envelope } = await first.invoke(
      targeted('demo.work', { q: 'later' }, `${FAR}/worker`, { _x_agentese_fallback_policy: 'later' }),
      { face: 't' },
    );
    const jobId = (envelope.data as { job: string }).job;
    expect((await first.jobs.get(jobId)).state).not.toBe('COMPLETED');
    await first.stop({ drainMs: 0 });
    // Stopped, not cancelled: the log holds no end for the delivery job.
    const ends = await log.read({ causation: jobId, type: ['job.completed', 'job.failed', 'job.canceled'] });
    expect(ends).toEqual([]);
    peer.up = true;
    const second = await startOn();
    open.push({ close: () => second.stop({ drainMs: 0 }) });
    const done = await second.jobs.wait(jobId);
    expect(done.state).toBe('COMPLETED');
    expect(done.outputs).toEqual({ by: 'far-0', input: { q: 'later' } });
  });
});
