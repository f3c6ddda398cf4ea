import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { PlexusError } from '../../src/core/errors.js';
import {
  selectCandidate,
  type Candidate,
  type RemoteInvoker,
  type RouteState,
} from '../../src/runtime/index.js';
import { agent, cap, card, gate, type Harness, request, startRuntime } from './helpers.js';
import { until } from '../support/until.js';

function candidates(...ids: string[]): Candidate[] {
  return ids.map((id) => {
    const capability = cap('demo.echo');
    return { card: card(id, [capability]), capability };
  });
}

function state(loads: Record<string, number>, down: readonly string[] = []): RouteState {
  return {
    load: (c) => loads[c.id] ?? 0,
    unavailable: (c) => (down.includes(c.id) ? new PlexusError('UNAVAILABLE', `${c.id} is down`) : undefined),
  };
}

describe('selectCandidate', () => {
  it('picks the least loaded candidate, ties broken by id', () => {
    expect(selectCandidate(candidates('c', 'a', 'b'), state({})).card.id).toBe('a');
    expect(selectCandidate(candidates('c', 'a', 'b'), state({ a: 2, b: 1, c: 1 })).card.id).toBe('b');
    expect(selectCandidate(candidates('c', 'a', 'b'), state({ a: 1 }, ['b'])).card.id).toBe('c');
  });

  it('is deterministic whatever the order of the candidates', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(3), { minLength: 8, maxLength: 8 }),
        (ids, loadList) => {
          const loads = Object.fromEntries(ids.map((id, i) => [id, loadList[i] ?? 0]));
          const chosen = selectCandidate(candidates(...ids), state(loads)).card.id;
          const reversed = selectCandidate(candidates(...[...ids].reverse()), state(loads)).card.id;
          expect(reversed).toBe(chosen);
          const min = Math.min(...ids.map((id) => loads[id] ?? 0));
          const best = ids.filter((id) => loads[id] === min).sort()[0];
          expect(chosen).toBe(best);
        },
      ),
    );
  });

  it('fails with the first candidate’s reason when none is available', () => {
    expect(() => selectCandidate(candidates('b', 'a'), state({}, ['a', 'b']))).toThrow('a is down');
  });
});

describe('runtime routing', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  function worker(id: string, log: string[], wait?: Promise<void>) {
    return agent(id, {
      'demo.work': async (input) => {
        log.push(id);
        if (wait !== undefined) await wait;
        return { by: id, input };
      },
    });
  }

  it('routes a capability selector to the least loaded agent, ties by id', async () => {
    const seen: string[] = [];
    const hold = gate();
    h = await startRuntime({
      agents: [worker('w2', seen, hold.promise), worker('w1', seen, hold.promise), worker('w3', seen)],
    });
    const first = h.runtime.invoke(request('demo.work', 1), { face: 't' });
    await until(() => seen.length === 1);
    const second = h.runtime.invoke(request('demo.work', 2), { face: 't' });
    await until(() => seen.length === 2);
    const third = await h.runtime.invoke(request('demo.work', 3), { face: 't' });
    expect(seen).toEqual(['w1', 'w2', 'w3']);
    expect(third.envelope.from).toBe('w3');
    expect(h.runtime.jobs.load('w1')).toBe(1);
    hold.open();
    expect((await first).envelope.from).toBe('w1');
    expect((await second).envelope.from).toBe('w2');
    expect(h.runtime.jobs.load('w1')).toBe(0);
  });

  it('routes to an agent id when named', async () => {
    const seen: string[] = [];
    h = await startRuntime({ agents: [worker('w1', seen), worker('w2', seen)] });
    const { envelope } = await h.runtime.invoke(request('demo.work', 1, 'w2'), { face: 't' });
    expect(envelope.from).toBe('w2');
  });

  it('broadcasts to every agent offering the verb and collects the results sorted by id', async () => {
    const seen: string[] = [];
    const broken = agent('w0', {
      'demo.work': () => Promise.reject(new PlexusError('INVALID_SEMANTIC', 'not me')),
    });
    h = await startRuntime({ agents: [worker('w2', seen), worker('w1', seen), broken], nodeId: 'node-1' });
    const { envelope, job } = await h.runtime.invoke(request('demo.work', 7, 'broadcast'), { face: 't' });
    expect(envelope.kind).toBe('response');
    expect(envelope.from).toBe('node-1');
    expect(envelope.data).toEqual({
      results: [
        { agent: 'w0', ok: false, error: { code: 'INVALID_SEMANTIC', message: 'not me', retryable: false } },
        { agent: 'w1', ok: true, data: { by: 'w1', input: 7 } },
        { agent: 'w2', ok: true, data: { by: 'w2', input: 7 } },
      ],
    });
    expect(job?.state).toBe('COMPLETED');
    expect([...seen].sort()).toEqual(['w1', 'w2']);
  });

  it('forwards to a remote agent through the RemoteInvoker', async () => {
    const calls: { card: string; envelope: Envelope }[] = [];
    const remote: RemoteInvoker = {
      invoke(target, envelope) {
        calls.push({ card: target.id, envelope });
        return Promise.resolve({
          ...envelope,
          kind: 'response',
          from: target.id,
          to: envelope.from,
          data: { remote: true },
        });
      },
    };
    h = await startRuntime({ remote });
    await h.runtime.agents.registry.upsert(card('far', [cap('demo.work')]), { origin: 'remote' });
    const { envelope } = await h.runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(envelope).toMatchObject({ kind: 'response', from: 'far', data: { remote: true } });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.envelope.to).toBe('far');
    expect(calls[0]?.envelope.signature).toBeUndefined();
  });

  it('turns a remote error answer into the job’s error', async () => {
    const remote: RemoteInvoker = {
      invoke: (target, envelope) =>
        Promise.resolve({
          ...envelope,
          kind: 'error',
          from: target.id,
          to: envelope.from,
          data: { code: 'RATE_LIMITED', message: 'slow down', retryable: true },
        }),
    };
    h = await startRuntime({ remote });
    await h.runtime.agents.registry.upsert(card('far', [cap('demo.work')]), { origin: 'remote' });
    const { envelope, job } = await h.runtime.invoke(request('demo.work', 1, 'far'), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(job?.state).toBe('FAILED');
  });

  it('fails a remote target with PEER_UNAVAILABLE when no RemoteInvoker is configured', async () => {
    h = await startRuntime({});
    await h.runtime.agents.registry.upsert(card('far', [cap('demo.work')]), { origin: 'remote' });
    const { envelope } = await h.runtime.invoke(request('demo.work', 1, 'far'), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'PEER_UNAVAILABLE', retryable: true });
  });

  it('fails a local card without a handler with UNAVAILABLE', async () => {
    h = await startRuntime({});
    await h.runtime.agents.registry.upsert(card('ghost', [cap('demo.work')]));
    const { envelope } = await h.runtime.invoke(request('demo.work', 1), { face: 't' });
    expect(envelope.data).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
  });

  it('rejects a capability selector naming another verb than the envelope', async () => {
    const seen: string[] = [];
    h = await startRuntime({ agents: [worker('w1', seen)] });
    const { envelope } = await h.runtime.invoke(request('demo.work', 1, 'capability:demo.other'), {
      face: 't',
    });
    expect(envelope.data).toMatchObject({ code: 'INVALID_PARAMS' });
  });
});
