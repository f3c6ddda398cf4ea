import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { createSupervisor, defineAgent, type AgentSupervisor } from '../../src/runtime/index.js';
import { agent, card, cap, type Harness, request, startRuntime } from './helpers.js';
import { until } from '../support/until.js';
import { memoryLogger } from '../support/memory-logger.js';

/** An agent whose `demo.crash` throws a plain Error, counting instance creations. */
function crashy(maxRestarts = 5, periodMs = 60_000) {
  let created = 0;
  const definition = defineAgent({
    card: card('crashy', [cap('demo.crash'), cap('demo.ok'), cap('demo.refuse'), cap('demo.stray')]),
    restart: { maxRestarts, periodMs },
    create: ({ incarnation }) => {
      created++;
      return {
        'demo.crash': () => {
          throw new Error(`boom in incarnation ${incarnation}`);
        },
        'demo.ok': () => ({ incarnation }),
        'demo.refuse': () => {
          throw new PlexusError('INVALID_SEMANTIC', 'refused on purpose');
        },
        'demo.stray': () => {
          void Promise.reject(new Error('stray rejection'));
          return { incarnation };
        },
      };
    },
  });
  return { definition, created: () => created };
}

describe('supervision', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('fails a throwing handler’s own job with INTERNAL and keeps the node serving', async () => {
    const c = crashy();
    h = await startRuntime({ agents: [c.definition] });
    const crashed = await h.runtime.invoke(request('demo.crash', 1), { face: 't' });
    expect(crashed.envelope.data).toMatchObject({ code: 'INTERNAL' });
    expect((crashed.envelope.data as { message: string }).message).toContain('boom in incarnation 0');
    expect(crashed.job?.state).toBe('FAILED');
    // the stack goes to the node's log as an error, never to the caller
    const [logged] = h.logger.events('runtime.handler_crashed');
    expect(logged?.level).toBe('error');
    expect(logged?.fields['stack']).toContain('boom in incarnation 0');
    expect((crashed.envelope.data as { message: string }).message).not.toContain('\n    at ');
    const fine = await h.runtime.invoke(request('demo.ok', 2), { face: 't' });
    expect(fine.envelope.data).toEqual({ incarnation: 1 });
  });

  it('re-creates the instance on a crash (one-for-one) and records each restart as an event', async () => {
    const c = crashy();
    h = await startRuntime({ agents: [c.definition] });
    for (let i = 0; i < 3; i++) await h.runtime.invoke(request('demo.crash', i), { face: 't' });
    expect(c.created()).toBe(4);
    await until(() => h.logger.events('runtime.agent_restarted').length === 3);
    const restarts = await h.log.read({ type: 'agent.restarted' });
    expect(restarts.map((e) => (e.data as { restarts: number }).restarts)).toEqual([1, 2, 3]);
  });

  it('does not restart on a deliberate PlexusError', async () => {
    const c = crashy();
    h = await startRuntime({ agents: [c.definition] });
    const refused = await h.runtime.invoke(request('demo.refuse', 1), { face: 't' });
    expect(refused.envelope.data).toMatchObject({ code: 'INVALID_SEMANTIC' });
    expect(c.created()).toBe(1);
  });

  it('marks the agent UNAVAILABLE (retryable) past N restarts, until the period passes', async () => {
    let clock = 1_000_000;
    const c = crashy(2, 60_000);
    h = await startRuntime({ agents: [c.definition], now: () => clock });
    for (let i = 0; i < 3; i++) await h.runtime.invoke(request('demo.crash', i), { face: 't' });
    const refused = await h.runtime.invoke(request('demo.ok', 'a'), { face: 't' });
    expect(refused.envelope.data).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    await until(() => h.logger.events('runtime.agent_suspended').length > 0);
    clock += 60_001;
    const back = await h.runtime.invoke(request('demo.ok', 'b'), { face: 't' });
    expect(back.envelope.kind).toBe('response');
    await until(() => h.logger.events('runtime.agent_resumed').length > 0);
    const types = (await h.log.read({ typePrefix: 'agent.' })).map((e) => e.type);
    expect(types).toEqual([
      'agent.registered',
      'agent.restarted',
      'agent.restarted',
      'agent.suspended',
      'agent.resumed',
    ]);
  });

  it('contains a stray rejection from a handler: reported, counted as a crash, node fine', async () => {
    const c = crashy();
    // Vitest treats any unhandled rejection as a failure of the run; step aside while the
    // runtime's own listener is the only one, as in production.
    const saved = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    try {
      h = await startRuntime({ agents: [c.definition] });
      const answer = await h.runtime.invoke(request('demo.stray', 1), { face: 't' });
      expect(answer.envelope.kind).toBe('response');
      await until(() => h.logger.events('runtime.contained_rejection').length > 0);
      await until(() => c.created() === 2);
      const after = await h.runtime.invoke(request('demo.ok', 2), { face: 't' });
      expect(after.envelope.data).toEqual({ incarnation: 1 });
    } finally {
      await h.runtime.stop({ drainMs: 0 });
      for (const listener of saved) process.on('unhandledRejection', listener);
    }
  });

  it('fails with UNAVAILABLE when the factory fails on re-creation, and recovers later', async () => {
    let fail = false;
    const definition = defineAgent({
      card: card('flaky', [cap('demo.crash'), cap('demo.ok')]),
      create: () => {
        if (fail) throw new Error('cannot start');
        return { 'demo.crash': () => Promise.reject(new Error('x')), 'demo.ok': () => 'ok' };
      },
    });
    h = await startRuntime({ agents: [definition] });
    fail = true;
    await h.runtime.invoke(request('demo.crash', 1), { face: 't' });
    const refused = await h.runtime.invoke(request('demo.ok', 1), { face: 't' });
    expect(refused.envelope.data).toMatchObject({ code: 'UNAVAILABLE' });
    fail = false;
    expect((await h.runtime.invoke(request('demo.ok', 2), { face: 't' })).envelope.data).toBe('ok');
  });

  it('refuses to start an agent whose factory lacks a handler for a verb', async () => {
    const broken = defineAgent({
      card: card('b', [cap('demo.a'), cap('demo.b')]),
      create: () => ({ 'demo.a': () => 1 }),
    });
    h = await startRuntime({});
    await expect(h.runtime.agents.add(broken)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(h.runtime.agents.registry.find('b')).toBeUndefined();
  });
});

describe('createSupervisor', () => {
  it('counts restarts inside the period and forgets older ones', async () => {
    let clock = 0;
    const events: string[] = [];
    const sup: AgentSupervisor = createSupervisor(
      agent('s', { 'demo.x': () => 1 }, { restart: { maxRestarts: 2, periodMs: 100 } }),
      {
        now: () => clock,
        emit: (event) => events.push(event.type),
        logger: memoryLogger(),
      },
    );
    await sup.start();
    sup.crashed(await sup.acquire(), new Error('1'));
    clock = 50;
    sup.crashed(await sup.acquire(), new Error('2'));
    expect(sup.restarts).toBe(2);
    clock = 120; // the first restart left the window
    expect(sup.restarts).toBe(1);
    sup.crashed(await sup.acquire(), new Error('3'));
    expect(sup.available()).toBe(true);
    sup.crashed(await sup.acquire(), new Error('4'));
    expect(sup.available()).toBe(false);
    expect(events).toEqual(['agent.restarted', 'agent.restarted', 'agent.restarted', 'agent.suspended']);
  });

  it('counts one crash per instance when several jobs of it fail', async () => {
    const sup = createSupervisor(agent('s', { 'demo.x': () => 1 }), {
      now: () => 0,
      emit: () => undefined,
      logger: memoryLogger(),
    });
    await sup.start();
    const lease = await sup.acquire();
    sup.crashed(lease, new Error('a'));
    sup.crashed(lease, new Error('b'));
    expect(sup.restarts).toBe(1);
  });
});
