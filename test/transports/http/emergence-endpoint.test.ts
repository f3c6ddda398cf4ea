import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import type { AgentCard } from '../../../src/core/records/agent-card.js';
import {
  emergenceEndpointProblem,
  emergenceRemoteInvoker,
  type EmergenceRemoteInvokerInit,
} from '../../../src/transports/http/index.js';
import { agentServer, done, errorReply, type AgentServer } from '../../support/emergence-agent-server.js';

const servers: AgentServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const never = new AbortController().signal;

function card(url: string | undefined): AgentCard {
  return {
    id: 'far_agent',
    name: 'far_agent',
    version: '0',
    tier: 'L3',
    capabilities: [{ verb: 'emergence.translate', input: true, output: true }],
    protocols: ['emergence'],
    ...(url === undefined ? {} : { endpoints: [{ protocol: 'emergence', url }] }),
    origin: 'remote',
  };
}

function request(data: Envelope['data'] = { text: 'hello' }): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'agent_b',
    to: 'far_agent',
    verb: 'emergence.translate',
    data,
  };
}

/** An invoker whose waits are recorded, not slept. */
function invoker(extra: Partial<EmergenceRemoteInvokerInit> = {}) {
  const waits: number[] = [];
  const remote = emergenceRemoteInvoker({
    nodeId: 'did:key:z6MkNode',
    random: () => 0.5,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...extra,
  });
  return { remote, waits };
}

async function server(...replies: Parameters<typeof agentServer>[0]): Promise<AgentServer> {
  const s = await agentServer(replies);
  servers.push(s);
  return s;
}

describe('emergenceRemoteInvoker', () => {
  it('POSTs an Emergence HELP with the request id and relays the DONE result', async () => {
    const s = await server((m) => done(m, { french: 'bonjour' }));
    const req = request();
    const answer = await invoker().remote.invoke(card(s.url), req, never);
    expect(answer).toMatchObject({
      id: req.id,
      kind: 'response',
      data: { french: 'bonjour' },
      to: 'agent_b',
    });
    expect(s.received).toEqual([
      {
        id: req.id,
        from: 'agent_b',
        to: 'far_agent',
        verb: 'HELP',
        data: { text: 'hello' },
        _x_verb: 'emergence.translate',
      },
    ]);
  });

  it('retries 503 and 502 with the same id, then relays the answer (D4)', async () => {
    const s = await server({ status: 503, body: '' }, { status: 502, body: 'bad gateway' }, (m) =>
      done(m, 'ok'),
    );
    const { remote, waits } = invoker();
    const answer = await remote.invoke(card(s.url), request(), never);
    expect(answer.data).toBe('ok');
    expect(s.received).toHaveLength(3);
    expect(new Set(s.received.map((m) => m['id'])).size).toBe(1);
    expect(waits).toEqual([500, 1000]);
  });

  it('waits 0.5, 1 and 2 s (±20 % jitter) and gives up after 3 retries', async () => {
    const s = await server({ status: 504, body: '' });
    const low = invoker({ random: () => 0 });
    await expect(low.remote.invoke(card(s.url), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
      details: { attempts: 4, status: 504 },
    });
    expect(low.waits).toEqual([400, 800, 1600]);
    expect(s.received).toHaveLength(4);
    const high = invoker({ random: () => 0.999999 });
    await expect(high.remote.invoke(card(s.url), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
    expect(high.waits).toEqual([600, 1200, 2400]);
  });

  it('retries a 429 ERROR, and relays that ERROR when the retries run out', async () => {
    const s = await server((m) => errorReply(m, 429, 'quota exceeded'));
    const { remote, waits } = invoker();
    const answer = await remote.invoke(card(s.url), request(), never);
    expect(waits).toHaveLength(3);
    expect(answer).toMatchObject({
      kind: 'error',
      data: { code: 'RATE_LIMITED', message: 'quota exceeded' },
    });
  });

  it('does not retry a 400 ERROR: relays it at once', async () => {
    const s = await server((m) => errorReply(m, 400, 'no such language'));
    const { remote, waits } = invoker();
    const answer = await remote.invoke(card(s.url), request(), never);
    expect(waits).toEqual([]);
    expect(s.received).toHaveLength(1);
    expect(answer).toMatchObject({
      kind: 'error',
      data: { code: 'INVALID_REQUEST', message: 'no such language' },
    });
  });

  it('does not retry a 500 or an answer that is not the reply to its HELP', async () => {
    const s = await server({ status: 500, body: 'oops' });
    const { remote, waits } = invoker();
    await expect(remote.invoke(card(s.url), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
    const t = await server((m) => done({ ...m, id: randomUUID() }, 'not yours'));
    await expect(remote.invoke(card(t.url), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
    expect(waits).toEqual([]);
  });

  it('retries an attempt that times out', async () => {
    const s = await server((m) => done(m, 'late but fine'));
    let attempts = 0;
    // The first attempt never gets an answer: it hangs until the attempt timeout aborts it. The
    // second is not cut (its signal is dropped), so a loaded machine cannot time it out too.
    const fetchOnce: typeof fetch = (input, init) => {
      attempts++;
      if (attempts > 1) return fetch(input, { ...init, signal: null });
      return new Promise((_, reject) => {
        init?.signal?.addEventListener('abort', () => {
          reject(new Error('aborted'));
        });
      });
    };
    const { remote, waits } = invoker({ fetch: fetchOnce, attemptTimeoutMs: 20 });
    const answer = await remote.invoke(card(s.url), request(), never);
    expect(answer.data).toBe('late but fine');
    expect(attempts).toBe(2);
    expect(waits).toEqual([500]);
  });

  it('does not retry a refused connection', async () => {
    const s = await server({ status: 200, body: '' });
    const url = s.url;
    await s.close();
    servers.splice(0);
    const { remote, waits } = invoker();
    await expect(remote.invoke(card(url), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
    expect(waits).toEqual([]);
  });

  it('hands cards without an endpoint to next, and says it cannot reach them without one', async () => {
    const { remote } = invoker();
    expect(remote.reaches?.(card(undefined))).toBe(false);
    await expect(remote.invoke(card(undefined), request(), never)).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
    const seen: string[] = [];
    const chained = emergenceRemoteInvoker({
      nodeId: 'n',
      next: {
        invoke: (c) => {
          seen.push(c.id);
          return Promise.resolve({ id: 'x', kind: 'response', from: c.id, to: 'y', verb: 'v', data: 1 });
        },
      },
    });
    expect(chained.reaches?.(card(undefined))).toBe(true);
    expect((await chained.invoke(card(undefined), request(), never)).data).toBe(1);
    expect(seen).toEqual(['far_agent']);
  });
});

describe('emergenceEndpointProblem', () => {
  it('accepts https anywhere and http on loopback only', () => {
    for (const ok of [
      'https://agents.example.com/a',
      'http://127.0.0.1:9/x',
      'http://localhost:8080',
      'http://[::1]:1/',
    ]) {
      expect(emergenceEndpointProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      'http://example.com/a',
      'http://10.0.0.1/',
      'ftp://127.0.0.1/',
      'not a url',
      42,
      'https://u:p@x.org/',
    ]) {
      expect(emergenceEndpointProblem(bad), String(bad)).toBeTypeOf('string');
    }
  });
});
