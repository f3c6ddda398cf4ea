import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { PEER_EXTENSION } from '../../../src/transports/peer/index.js';
import {
  generateApiKey,
  generateKeyPair,
  identityFromPublicKey,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import { agent, flakyFront, request, scriptedServer, startNode, type TestNode } from './helpers.js';
import { until } from '../../support/until.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function node(init: Parameters<typeof startNode>[0]): Promise<TestNode> {
  const n = await startNode(init);
  cleanups.push(() => n.close());
  return n;
}

/** Node 1 hosts `echo` (echo.echo, echo.fail, echo.slow); node 2 hosts `upper`; each trusts the other. */
async function pair(): Promise<{
  one: TestNode;
  two: TestNode;
  /** Node 2's key, which node 1 trusts. */
  trustedKey: Ed25519KeyPair;
  slowStarted: () => boolean;
  slowAborted: () => boolean;
}> {
  let started = false;
  let aborted = false;
  const k1 = generateKeyPair();
  const k2 = generateKeyPair();
  const did = (key: Ed25519KeyPair): string => identityFromPublicKey(key.publicKey).did;
  const one = await node({
    key: k1,
    routes: { trustedPeers: [did(k2)] },
    agents: [
      agent('echo', {
        'echo.echo': (input) => input,
        'echo.fail': () => {
          throw new PlexusError('PRECONDITION_FAILED', 'the guard did not hold', {
            details: { guard: 'g1' },
          });
        },
        'echo.slow': (_input, context) =>
          new Promise<JsonValue>((_resolve, reject) => {
            started = true;
            context.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new PlexusError('CANCELLED', 'stopped'));
            });
          }),
      }),
    ],
  });
  const two = await node({
    key: k2,
    routes: { trustedPeers: [did(k1)] },
    agents: [
      agent('upper', { 'text.upper': (input) => (typeof input === 'string' ? input.toUpperCase() : null) }),
    ],
  });
  await one.connect([{ url: two.url, did: two.did }]);
  await two.connect([{ url: one.url, did: one.did }]);
  return { one, two, trustedKey: k2, slowStarted: () => started, slowAborted: () => aborted };
}

describe('node-to-node calls', () => {
  it('shows a peer’s agents as remote cards', async () => {
    const { one, two } = await pair();
    const echo = two.runtime.agents.registry.get('echo');
    expect(echo.origin).toBe('remote');
    expect(echo.extensions?.[PEER_EXTENSION]).toBe(one.url);
    expect(one.runtime.agents.registry.get('upper').origin).toBe('remote');
    // a node never re-exports what it learned: node 1 does not get its own echo back from node 2
    expect(one.runtime.agents.registry.get('echo').origin).toBe('local');
  });

  it('forwards a call by agent id and by capability selector, and the answer comes back', async () => {
    const { two } = await pair();
    const byId = await two.runtime.invoke(request('echo.echo', { hello: 'mesh' }, 'echo'), {
      face: 'internal',
    });
    expect(byId.envelope).toMatchObject({ kind: 'response', data: { hello: 'mesh' }, from: 'echo' });
    const byCap = await two.runtime.invoke(request('echo.echo', [1, 2, 3]), { face: 'internal' });
    expect(byCap.envelope).toMatchObject({ kind: 'response', data: [1, 2, 3] });
  });

  it('forwards in both directions', async () => {
    const { one, two } = await pair();
    const there = await two.runtime.invoke(request('echo.echo', 'ping'), { face: 'internal' });
    const back = await one.runtime.invoke(request('text.upper', 'pong'), { face: 'internal' });
    expect(there.envelope.data).toBe('ping');
    expect(back.envelope).toMatchObject({ kind: 'response', data: 'PONG', from: 'upper' });
  });

  it('runs the forwarded request on the peer as a job of the peer face, signed by the forwarding node', async () => {
    const { one, two } = await pair();
    const req = request('echo.echo', 'who', 'echo');
    await two.runtime.invoke(req, { face: 'internal' });
    const events = await one.log.read({ afterSeq: 0 });
    const submitted = events.find((e) => e.type === 'job.submitted') as unknown as {
      data: { principal: string; face: string; correlationId: string };
    };
    expect(submitted.data).toMatchObject({ principal: two.did, face: 'peer', correlationId: req.id });
  });

  it('brings an error from the peer back with the same code', async () => {
    const { two } = await pair();
    const answer = await two.runtime.invoke(request('echo.fail', null, 'echo'), { face: 'internal' });
    expect(answer.envelope.kind).toBe('error');
    expect(answer.envelope.data).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'the guard did not hold',
      retryable: false,
      details: { guard: 'g1' },
    });
  });

  it('cancels the job on the peer when the caller cancels', async () => {
    const { one, two, slowStarted, slowAborted } = await pair();
    const controller = new AbortController();
    const call = two.runtime.invoke(
      request('echo.slow', null, 'echo'),
      { face: 'internal' },
      { signal: controller.signal },
    );
    await until(slowStarted, { what: 'echo.slow to start' });
    expect(slowStarted()).toBe(true);
    controller.abort();
    const answer = await call;
    expect(answer.envelope.kind).toBe('error');
    await until(slowAborted, { what: 'echo.slow to be aborted' });
    expect(slowAborted()).toBe(true);
    const slowJob = () =>
      [...one.runtime.views.jobs.state().values()].find((e) => e.job.verb === 'echo.slow')?.job;
    await until(() => slowJob()?.state === 'CANCELED', { what: 'the echo.slow job to be cancelled' });
    expect(slowJob()?.state).toBe('CANCELED');
  });

  it('reaches the caller through retries of a flaky peer (503 twice, then 200)', async () => {
    const { one, trustedKey } = await pair();
    const front = await flakyFront(one.url, 2);
    cleanups.push(() => front.close());
    const three = await node({ key: trustedKey, agents: [] });
    await three.connect([{ url: front.url }]);
    const answer = await three.runtime.invoke(request('echo.echo', 'through', 'echo'), { face: 'internal' });
    expect(answer.envelope).toMatchObject({ kind: 'response', data: 'through' });
    expect(front.calls()).toBe(3);
  });

  it('does not retry a refusal: an untrusted forwarding node gets FORBIDDEN once', async () => {
    const { one } = await pair();
    const front = await flakyFront(one.url, 0);
    cleanups.push(() => front.close());
    const stranger = await node({ agents: [] });
    await stranger.connect([{ url: front.url }]);
    const answer = await stranger.runtime.invoke(request('echo.echo', 'x', 'echo'), { face: 'internal' });
    expect(answer.envelope.kind).toBe('error');
    expect(answer.envelope.data).toMatchObject({ code: 'FORBIDDEN' });
    expect(front.calls()).toBe(1);
  });

  it('works against a node with auth on: the token opens discovery, the signature admits the call', async () => {
    const k2 = generateKeyPair();
    const apiKey = generateApiKey();
    const one = await node({
      auth: { apiKeys: { keys: [{ hash: apiKey.hash, subject: 'node-two' }] } },
      routes: { trustedPeers: [identityFromPublicKey(k2.publicKey).did] },
      agents: [agent('echo', { 'echo.echo': (input) => input })],
    });
    const two = await node({ key: k2, agents: [] });
    const [without] = await two.connect([{ url: one.url }]).then((d) => d.status());
    expect(without?.reachable).toBe(false);
    expect(without?.failures).toBeGreaterThanOrEqual(1);
    expect(without?.lastError).toMatch(/401/);
    await two.connect([{ url: one.url, token: apiKey.key }]);
    const answer = await two.runtime.invoke(request('echo.echo', 'authed'), { face: 'internal' });
    expect(answer.envelope).toMatchObject({ kind: 'response', data: 'authed' });
  });

  it('refuses a captured forwarded request posted again (replay)', async () => {
    const { one, trustedKey } = await pair();
    // Capture what a node sends by pointing a third node at a recording front of node 1.
    const captured: string[] = [];
    const recorder = await scriptedServer((received) => {
      if (received.url.startsWith('/agents'))
        return { status: 200, body: { agents: [one.runtime.agents.registry.get('echo')] } };
      captured.push(received.body);
      return { status: 503, body: '' };
    });
    cleanups.push(() => recorder.close());
    const three = await node({ key: trustedKey, agents: [], invoker: { retry: { delaysMs: [] } } });
    await three.connect([{ url: recorder.url }]);
    await three.runtime.invoke(request('echo.echo', 'once', 'echo'), { face: 'internal' });
    expect(captured).toHaveLength(1);
    const body = captured[0]!;
    const first = await fetch(`${one.url}/v1/peer/invoke`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(first.status).toBe(200);
    const second = await fetch(`${one.url}/v1/peer/invoke`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(second.status).toBe(401);
    expect(
      ((await second.json()) as { error: { details: { plexus_code: string } } }).error.details.plexus_code,
    ).toBe('SIGNATURE_REPLAYED');
  });
});
