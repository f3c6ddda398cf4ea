import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/core/records/agent-card.js';
import { generateKeyPair, identityFromPublicKey } from '../../../src/security/index.js';
import {
  peerRemoteInvoker,
  type PeerConfig,
  type PeerRemoteInvokerInit,
} from '../../../src/transports/peer/index.js';
import { answerFor, closedPort, request, scriptedServer, type ScriptedServer } from './helpers.js';
import { until } from '../../support/until.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: Parameters<typeof scriptedServer>[0]): Promise<ScriptedServer> {
  const s = await scriptedServer(script);
  servers.push(s);
  return s;
}

const key = generateKeyPair();
const card: AgentCard = {
  id: 'echo',
  name: 'Echo',
  version: '1',
  tier: 'L3',
  capabilities: [{ verb: 'echo.echo', input: true, output: true }],
  origin: 'remote',
};

function invoker(peer: PeerConfig | undefined, extra: Partial<PeerRemoteInvokerInit> = {}) {
  return peerRemoteInvoker({
    key,
    peers: { peerFor: () => peer },
    retry: { delaysMs: [1, 1, 1] },
    ...extra,
  });
}

const never = new AbortController().signal;
const unavailable = {
  status: 503,
  body: { error: { code: 'UNAVAILABLE', message: 'busy', retryable: true } },
};

describe('peerRemoteInvoker', () => {
  it('signs the envelope for plexus/rpc/<verb> with the node key and returns the answer', async () => {
    const req = request('echo.echo', { a: 1 }, 'echo');
    const s = await server(() => ({ status: 200, body: answerFor(req, { a: 1 }) }));
    const answer = await invoker({ url: s.url }).invoke(card, req, never);
    expect(answer).toEqual(answerFor(req, { a: 1 }));
    expect(s.received).toHaveLength(1);
    const got = s.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/v1/peer/invoke');
    const sent = JSON.parse(got.body);
    expect(sent).toMatchObject({
      _v: 2,
      from: identityFromPublicKey(key.publicKey).did,
      dom: 'plexus/rpc/echo.echo',
    });
    expect(sent.d).toEqual(req);
  });

  it('retries 503 twice, then succeeds, re-signing each attempt with a new nonce and the same envelope', async () => {
    const req = request('echo.echo', 'x', 'echo');
    const s = await server([unavailable, unavailable, { status: 200, body: answerFor(req, 'x') }]);
    const answer = await invoker({ url: s.url }).invoke(card, req, never);
    expect(answer.data).toBe('x');
    expect(s.received).toHaveLength(3);
    const sent = s.received.map((r) => JSON.parse(r.body) as { nonce: string; d: unknown });
    expect(new Set(sent.map((e) => e.nonce)).size).toBe(3);
    for (const e of sent) expect(e.d).toEqual(req);
  });

  it.each([429, 502, 504])('retries HTTP %i', async (status) => {
    const req = request('echo.echo', 1, 'echo');
    const s = await server([
      { status, body: '' },
      { status: 200, body: answerFor(req, 1) },
    ]);
    expect((await invoker({ url: s.url }).invoke(card, req, never)).data).toBe(1);
    expect(s.received).toHaveLength(2);
  });

  it('does not retry a 400 and throws the peer error code at once', async () => {
    const s = await server([
      { status: 400, body: { error: { code: 'MALFORMED_ENVELOPE', message: 'bad', retryable: false } } },
    ]);
    const call = invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never);
    await expect(call).rejects.toMatchObject({
      code: 'MALFORMED_ENVELOPE',
      details: { peer: `${s.url}/v1/peer/invoke`, status: 400 },
    });
    expect(s.received).toHaveLength(1);
  });

  it('does not retry a refusal of the signature (401 SIGNATURE_REPLAYED)', async () => {
    const s = await server([
      { status: 401, body: { error: { code: 'SIGNATURE_REPLAYED', message: 'seen', retryable: false } } },
    ]);
    await expect(
      invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never),
    ).rejects.toMatchObject({
      code: 'SIGNATURE_REPLAYED',
    });
    expect(s.received).toHaveLength(1);
  });

  it('reads the Plexus code of a refusal in the ESRP error form (403 FORBIDDEN)', async () => {
    const s = await server([
      {
        status: 403,
        body: {
          status: 'failed',
          error: {
            code: 'INVALID_INPUT_SEMANTIC',
            message: 'not trusted',
            retryable: false,
            details: { plexus_code: 'FORBIDDEN', signer: 'did:key:z6Mk' },
          },
        },
      },
    ]);
    await expect(
      invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { signer: 'did:key:z6Mk', status: 403 } });
    expect(s.received).toHaveLength(1);
  });

  it('maps a non-retryable status without a Plexus body from the status', async () => {
    const s = await server([{ status: 404, body: 'no such route' }]);
    await expect(
      invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(s.received).toHaveLength(1);
  });

  it('returns a retryable error envelope answered with 200 unchanged, without retrying', async () => {
    const req = request('echo.echo', 1, 'echo');
    const failed = {
      ...answerFor(req, { code: 'TIMEOUT', message: 'too slow', retryable: true }),
      kind: 'error' as const,
    };
    const s = await server([{ status: 200, body: failed }]);
    expect(await invoker({ url: s.url }).invoke(card, req, never)).toEqual(failed);
    expect(s.received).toHaveLength(1);
  });

  it('gives up after three retries (four attempts) with the last error', async () => {
    const s = await server([unavailable]);
    const call = invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never);
    await expect(call).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      details: { attempts: 4 },
    });
    expect(s.received).toHaveLength(4);
  });

  it('returns the answer envelope of the last retryable refusal when it carries one', async () => {
    const req = request('echo.echo', 1, 'echo');
    const refusal = {
      ...answerFor(req, { code: 'UNAVAILABLE', message: 'stopping', retryable: true }),
      kind: 'error' as const,
    };
    const s = await server([{ status: 503, body: refusal }]);
    expect(await invoker({ url: s.url }).invoke(card, req, never)).toEqual(refusal);
    expect(s.received).toHaveLength(4);
  });

  it('waits 0.5, 1 and 2 s (with jitter) between attempts by default', async () => {
    const s = await server([unavailable]);
    const waits: number[] = [];
    const remote = peerRemoteInvoker({
      key,
      peers: { peerFor: () => ({ url: s.url }) },
      random: () => 0.5,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    await expect(remote.invoke(card, request('echo.echo', 1, 'echo'), never)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(waits).toEqual([500, 1000, 2000]);
    const low: number[] = [];
    const jittery = peerRemoteInvoker({
      key,
      peers: { peerFor: () => ({ url: s.url }) },
      random: () => 0,
      retry: { jitter: 0.2 },
      sleep: (ms) => {
        low.push(ms);
        return Promise.resolve();
      },
    });
    await expect(jittery.invoke(card, request('echo.echo', 1, 'echo'), never)).rejects.toBeDefined();
    expect(low).toEqual([400, 800, 1600]);
  });

  it('retries network failures and reports PEER_UNAVAILABLE, saying the request was never sent', async () => {
    const port = await closedPort();
    const call = invoker({ url: `http://127.0.0.1:${String(port)}` }).invoke(
      card,
      request('echo.echo', 1, 'echo'),
      never,
    );
    await expect(call).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
      retryable: true,
      // every connection refused: the request never left this node (RT-060 may fail it over)
      details: { attempts: 4, sent: false },
    });
  });

  it('retries attempts cut by attemptTimeoutMs and reports TIMEOUT; tells the peer the bound', async () => {
    const s = await server(['hang']);
    const call = invoker({ url: s.url }, { attemptTimeoutMs: 30 }).invoke(
      card,
      request('echo.echo', 1, 'echo'),
      never,
    );
    await expect(call).rejects.toMatchObject({ code: 'TIMEOUT', details: { attempts: 4 } });
    expect(s.received).toHaveLength(4);
    expect(s.received[0]!.headers['plexus-timeout-ms']).toBe('30');
  });

  it('stops at once when cancelled during the wait before a retry', async () => {
    const s = await server([unavailable]);
    const controller = new AbortController();
    const remote = invoker({ url: s.url }, { retry: { delaysMs: [3_600_000] } });
    const call = remote.invoke(card, request('echo.echo', 1, 'echo'), controller.signal);
    await until(() => s.received.length > 0, { what: 'the first request' });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(s.received).toHaveLength(1);
  });

  it('aborts the request in flight when cancelled', async () => {
    const s = await server(['hang']);
    const controller = new AbortController();
    const call = invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), controller.signal);
    await until(() => s.received.length > 0, { what: 'the first request' });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(s.received).toHaveLength(1);
  });

  it('refuses at once when already cancelled', async () => {
    const s = await server([unavailable]);
    await expect(
      invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), AbortSignal.abort()),
    ).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    expect(s.received).toHaveLength(0);
  });

  it('fails PEER_UNAVAILABLE when no peer announces the card', async () => {
    await expect(
      invoker(undefined).invoke(card, request('echo.echo', 1, 'echo'), never),
    ).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
      details: { agent: 'echo' },
    });
  });

  it('does not retry a 200 whose body is not an answer envelope', async () => {
    const s = await server([{ status: 200, body: { hello: 'world' } }]);
    await expect(
      invoker({ url: s.url }).invoke(card, request('echo.echo', 1, 'echo'), never),
    ).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
      retryable: false,
    });
    expect(s.received).toHaveLength(1);
  });

  it('sends the peer token as a bearer credential', async () => {
    const req = request('echo.echo', 1, 'echo');
    const s = await server([{ status: 200, body: answerFor(req, 1) }]);
    await invoker({ url: `${s.url}/`, token: 'plx_secret' }).invoke(card, req, never);
    expect(s.received[0]!.headers.authorization).toBe('Bearer plx_secret');
    expect(s.received[0]!.url).toBe('/v1/peer/invoke');
  });

  it('validates its options', () => {
    expect(() => invoker(undefined, { retry: { delaysMs: [-1] } })).toThrow(/retry delays/);
    expect(() => invoker(undefined, { retry: { jitter: 2 } })).toThrow(/jitter/);
    expect(() => invoker(undefined, { attemptTimeoutMs: 0 })).toThrow(/attemptTimeoutMs/);
  });
});
