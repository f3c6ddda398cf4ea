import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import {
  SUPERVISION_EVENTS,
  createRuntime,
  defineAgent,
  type AgentDefinition,
  type SupervisorSpec,
} from '../../src/runtime/index.js';
import { memoryEventLog } from '../../src/store/index.js';
import { card, cap, gate, type Harness, request, sleep, startRuntime } from './helpers.js';
import { until } from '../support/until.js';

/**
 * A real agent whose verbs crash (`<id>.crash` throws a plain Error), hang (`<id>.hang` never
 * settles), wait on a gate (`<id>.wait`) or answer (`<id>.ok`). It counts its instances and
 * the stop hook's calls, and remembers whether a stopped job's signal aborted.
 */
function worker(id: string) {
  const stats = { created: 0, stopped: 0, aborted: 0 };
  let hold = gate();
  const definition: AgentDefinition = defineAgent({
    card: card(id, [cap(`${id}.crash`), cap(`${id}.hang`), cap(`${id}.wait`), cap(`${id}.ok`)]),
    create: ({ incarnation }) => {
      stats.created++;
      return {
        [`${id}.crash`]: () => {
          throw new Error(`${id} broke in incarnation ${incarnation}`);
        },
        [`${id}.hang`]: () => new Promise(() => undefined),
        [`${id}.wait`]: async (_input, context) => {
          context.signal.addEventListener('abort', () => {
            stats.aborted++;
          });
          await hold.promise;
          return { incarnation };
        },
        [`${id}.ok`]: () => ({ incarnation }),
      };
    },
    stop: () => {
      stats.stopped++;
    },
  });
  return {
    definition,
    stats,
    release: () => {
      hold.open();
      hold = gate();
    },
  };
}

function tree(
  strategy: SupervisorSpec['strategy'],
  children: SupervisorSpec['children'],
  maxRestarts = 5,
): SupervisorSpec {
  return { id: 'root', strategy, maxRestarts, periodMs: 60_000, children };
}

let calls = 0;

/** Invokes `verb` (distinct data each time: identical requests are duplicates, D5). */
async function call(h: Harness, verb: string, timeoutMs?: number) {
  const answer = await h.runtime.invoke(request(verb, ++calls), {
    face: 'test',
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  return answer.envelope;
}

/** The supervision events in the log, once there are at least `atLeast` (appends are fire and forget). */
async function supervisionEvents(h: Harness, atLeast = 1): Promise<{ type: string; data: JsonObject }[]> {
  for (let i = 0; ; i++) {
    const events = await h.log.read({ typePrefix: 'supervision.' });
    if (events.length >= atLeast || i > 1000) {
      return events.map((e) => ({ type: e.type, data: e.data as JsonObject }));
    }
    await sleep(2);
  }
}

describe('supervision trees in the runtime', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('one-for-one: restarts only the crashed agent, logs the failure and the restart', async () => {
    const a = worker('a');
    const b = worker('b');
    h = await startRuntime({
      agents: [a.definition, b.definition],
      supervision: tree('one-for-one', [{ id: 'a' }, { id: 'b' }]),
    });
    const crashed = await call(h, 'a.crash');
    expect(crashed.data).toMatchObject({ code: 'INTERNAL' });
    expect((await call(h, 'a.ok')).data).toEqual({ incarnation: 1 });
    expect((await call(h, 'b.ok')).data).toEqual({ incarnation: 0 });
    expect(a.stats).toMatchObject({ created: 2, stopped: 1 });
    expect(b.stats).toMatchObject({ created: 1, stopped: 0 });
    const events = await supervisionEvents(h, 2);
    expect(events.map((e) => e.type)).toEqual([SUPERVISION_EVENTS.childFailed, SUPERVISION_EVENTS.restarted]);
    expect(events[0]?.data).toMatchObject({ agent: 'a', supervisor: 'root', kind: 'crash', incarnation: 0 });
    expect(events[1]?.data).toMatchObject({ supervisor: 'root', agents: ['a'], failed: 'a', restarts: 1 });
    // the per-agent supervisor's events are not written for a tree agent
    expect(await h.log.read({ type: 'agent.restarted' })).toEqual([]);
  });

  it('one-for-all: restarts every sibling; their running jobs fail UNAVAILABLE (retryable) and see their signal abort', async () => {
    const a = worker('a');
    const b = worker('b');
    h = await startRuntime({
      agents: [a.definition, b.definition],
      supervision: tree('one-for-all', [{ id: 'a' }, { id: 'b' }]),
    });
    const running = call(h, 'b.wait');
    await until(() => h?.runtime.jobs.load('b') === 1);
    await call(h, 'a.crash');
    const stopped = await running;
    expect(stopped.kind).toBe('error');
    expect(stopped.data).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect((stopped.data as { message: string }).message).toContain(
      'agent b was stopped by supervisor root after agent a failed',
    );
    expect(b.stats).toMatchObject({ created: 2, stopped: 1, aborted: 1 });
    expect(a.stats).toMatchObject({ created: 2, stopped: 1 });
    expect((await call(h, 'b.ok')).data).toEqual({ incarnation: 1 });
    const restarted = (await supervisionEvents(h, 2)).find((e) => e.type === SUPERVISION_EVENTS.restarted);
    expect(restarted?.data).toMatchObject({ supervisor: 'root', agents: ['a', 'b'], failed: 'a' });
  });

  it('rest-for-one: restarts the crashed agent and those started after it, not those before', async () => {
    const [a, b, c] = [worker('a'), worker('b'), worker('c')];
    h = await startRuntime({
      agents: [c.definition, b.definition, a.definition], // start order is the tree's, not this list's
      supervision: tree('rest-for-one', [{ id: 'a' }, { id: 'b' }, { id: 'c' }]),
    });
    await call(h, 'b.crash');
    expect([a.stats.created, b.stats.created, c.stats.created]).toEqual([1, 2, 2]);
    const restarted = (await supervisionEvents(h, 2)).find((e) => e.type === SUPERVISION_EVENTS.restarted);
    expect(restarted?.data).toMatchObject({ agents: ['b', 'c'], failed: 'b' });
  });

  it('a handler still running at its deadline is a hang: TIMEOUT for the caller, a restart for the agent', async () => {
    const a = worker('a');
    const b = worker('b');
    h = await startRuntime({
      agents: [a.definition, b.definition],
      supervision: tree('one-for-all', [{ id: 'a' }, { id: 'b' }]),
    });
    const hung = await call(h, 'a.hang', 20);
    expect(hung.data).toMatchObject({ code: 'TIMEOUT' });
    await until(() => a.stats.created === 2 && b.stats.created === 2);
    const events = await supervisionEvents(h);
    expect(events[0]).toMatchObject({
      type: SUPERVISION_EVENTS.childFailed,
      data: { agent: 'a', kind: 'hang' },
    });
    expect((await call(h, 'a.ok')).data).toEqual({ incarnation: 1 });
  });

  it('links the events of a failure to the crashing job and its trace (for plexus trace)', async () => {
    const a = worker('a');
    h = await startRuntime({
      agents: [a.definition],
      supervision: tree(
        'one-for-one',
        ['a'].map((id) => ({ id })),
      ),
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const answer = await h.runtime.invoke(request('a.crash', null, 'capability:a.crash', { traceparent }), {
      face: 'test',
    });
    const jobId = answer.job?.id;
    expect(jobId).toBeDefined();
    await until(() => a.stats.created === 2);
    const failed = await h.log.read({ type: SUPERVISION_EVENTS.childFailed });
    expect(failed[0]).toMatchObject({ causation: jobId, trace: traceparent, data: { job: jobId } });
    const restarted = await h.log.read({ type: SUPERVISION_EVENTS.restarted });
    expect(restarted[0]).toMatchObject({ causation: jobId, trace: traceparent });
    // a job's own event stream stays job.* only
    const jobEvents = await h.runtime.jobs.events(jobId as string);
    expect(jobEvents.every((e) => e.type.startsWith('job.'))).toBe(true);
  });

  it('escalates to the parent when a supervisor exceeds its intensity; the parent restarts the subtree', async () => {
    const [a, b, c] = [worker('a'), worker('b'), worker('c')];
    h = await startRuntime({
      agents: [a.definition, b.definition, c.definition],
      supervision: tree('one-for-one', [
        {
          id: 'pair',
          strategy: 'one-for-one',
          maxRestarts: 1,
          periodMs: 60_000,
          children: [{ id: 'a' }, { id: 'b' }],
        },
        { id: 'c' },
      ]),
    });
    await call(h, 'a.crash'); // pair restarts a (1 of 1)
    await call(h, 'a.crash'); // pair exceeds: escalates; root restarts pair (a and b afresh)
    await until(() => a.stats.created === 3);
    expect(b.stats.created).toBe(2);
    expect(c.stats.created).toBe(1);
    const types = (await supervisionEvents(h, 5)).map((e) => e.type);
    expect(types).toEqual([
      SUPERVISION_EVENTS.childFailed,
      SUPERVISION_EVENTS.restarted,
      SUPERVISION_EVENTS.childFailed,
      SUPERVISION_EVENTS.escalated,
      SUPERVISION_EVENTS.restarted,
    ]);
    const events = await supervisionEvents(h, 5);
    expect(events[3]?.data).toMatchObject({ supervisor: 'pair', to: 'root', failed: 'a' });
    expect(events[4]?.data).toMatchObject({ supervisor: 'root', agents: ['pair'] });
    expect((await call(h, 'a.ok')).data).toEqual({ incarnation: 2 });
  });

  it('when the root gives up its agents answer UNAVAILABLE naming agent and supervisors; the rest of the node serves', async () => {
    const [a, b, free] = [worker('a'), worker('b'), worker('free')];
    h = await startRuntime({
      agents: [a.definition, b.definition, free.definition],
      supervision: tree(
        'one-for-one',
        [
          { id: 'inner', strategy: 'one-for-one', maxRestarts: 0, periodMs: 60_000, children: [{ id: 'a' }] },
          { id: 'b' },
        ],
        1,
      ),
    });
    await call(h, 'a.crash'); // inner (0 allowed) escalates; root restarts inner (1 of 1)
    await call(h, 'a.crash'); // inner escalates again; root exceeds and gives up
    await until(
      () =>
        h?.logger.events('runtime.supervision').some((line) => line.fields['action'] === 'give-up') === true,
    );
    for (const verb of ['a.ok', 'b.ok']) {
      const refused = await call(h, verb);
      expect(refused.data).toMatchObject({ code: 'UNAVAILABLE', retryable: false });
    }
    const refused = (await call(h, 'a.ok')).data as { message: string; details?: JsonObject };
    expect(refused.message).toContain('agent a is unavailable');
    expect(refused.message).toContain('supervisor inner');
    expect(refused.message).toContain('root supervisor root');
    expect(((await call(h, 'b.ok')).data as { message: string }).message).toContain(
      'agent b is unavailable: its supervisor root gave up',
    );
    // an agent outside the tree keeps serving, and so does its own restart policy
    expect((await call(h, 'free.ok')).data).toEqual({ incarnation: 0 });
    await call(h, 'free.crash');
    expect((await call(h, 'free.ok')).data).toEqual({ incarnation: 1 });
    expect(await h.log.read({ type: 'agent.restarted' })).toHaveLength(1);
    const gaveUp = await h.log.read({ type: SUPERVISION_EVENTS.gaveUp });
    expect(gaveUp[0]?.data).toMatchObject({ supervisor: 'root', agents: ['a', 'b'], failed: 'a' });
    expect(a.stats.stopped).toBe(a.stats.created);
  });

  it('a temporary agent that fails is not restarted and is unavailable', async () => {
    const a = worker('a');
    const b = worker('b');
    h = await startRuntime({
      agents: [a.definition, b.definition],
      supervision: tree('one-for-one', [{ id: 'a', restart: 'temporary' }, { id: 'b' }]),
    });
    await call(h, 'a.crash');
    await until(() => a.stats.stopped === 1);
    const refused = await call(h, 'a.ok');
    expect(refused.data).toMatchObject({ code: 'UNAVAILABLE', retryable: false });
    expect((refused.data as { message: string }).message).toContain('did not restart it');
    expect((await call(h, 'b.ok')).data).toEqual({ incarnation: 0 });
    expect((await h.log.read({ type: SUPERVISION_EVENTS.removed }))[0]?.data).toEqual({
      agent: 'a',
      supervisor: 'root',
    });
  });

  it('retries a factory that throws during a restart (logged), within the intensity', async () => {
    let failNext = 0;
    let created = 0;
    const flaky = defineAgent({
      card: card('flaky', [cap('flaky.crash'), cap('flaky.ok')]),
      create: ({ incarnation }) => {
        created++;
        if (failNext > 0) {
          failNext--;
          throw new Error('the database is not up yet');
        }
        return {
          'flaky.crash': () => Promise.reject(new Error('lost the connection')),
          'flaky.ok': () => ({ incarnation }),
        };
      },
    });
    h = await startRuntime({ agents: [flaky], supervision: tree('one-for-one', [{ id: 'flaky' }], 3) });
    failNext = 1;
    await call(h, 'flaky.crash');
    expect((await call(h, 'flaky.ok')).data).toEqual({ incarnation: 2 });
    expect(created).toBe(3);
    const types = (await supervisionEvents(h, 3)).map((e) => e.type);
    expect(types).toEqual([
      SUPERVISION_EVENTS.childFailed,
      SUPERVISION_EVENTS.restarted,
      SUPERVISION_EVENTS.startFailed,
    ]);
  });

  it('counts a stray rejection from a tree agent’s handler as its crash', async () => {
    let created = 0;
    const stray = defineAgent({
      card: card('stray', [cap('stray.go'), cap('stray.ok')]),
      create: ({ incarnation }) => {
        created++;
        return {
          'stray.go': () => {
            void Promise.reject(new Error('fire and forget went wrong'));
            return { incarnation };
          },
          'stray.ok': () => ({ incarnation }),
        };
      },
    });
    // Vitest fails a run on any unhandled rejection; step aside while the runtime's listener works.
    const saved = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    try {
      h = await startRuntime({ agents: [stray], supervision: tree('one-for-one', [{ id: 'stray' }]) });
      expect((await call(h, 'stray.go')).kind).toBe('response');
      await until(() => created === 2);
      const failed = await supervisionEvents(h, 2);
      expect(failed[0]?.data).toMatchObject({
        agent: 'stray',
        kind: 'crash',
        reason: 'fire and forget went wrong',
      });
      expect((await call(h, 'stray.ok')).data).toEqual({ incarnation: 1 });
    } finally {
      await h?.close();
      h = undefined;
      for (const listener of saved) process.on('unhandledRejection', listener);
    }
  });

  it('runs the stop hooks of tree agents when the runtime stops', async () => {
    const a = worker('a');
    const harness = await startRuntime({
      agents: [a.definition],
      supervision: tree('one-for-one', [{ id: 'a' }]),
    });
    await harness.close();
    expect(a.stats).toMatchObject({ created: 1, stopped: 1 });
  });

  it('refuses a tree that names an unknown agent or is malformed, with the bad field', () => {
    const log = memoryEventLog();
    const a = worker('a');
    expect(() =>
      createRuntime({
        log,
        agents: [a.definition],
        supervision: tree('one-for-one', [{ id: 'a' }, { id: 'ghost' }]),
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_PARAMS',
        details: expect.objectContaining({ pointer: '/children/1/id' }),
      }) as Error,
    );
    expect(() =>
      createRuntime({
        log,
        agents: [a.definition],
        supervision: { ...tree('one-for-one', [{ id: 'a' }]), strategy: 'all-for-none' as never },
      }),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS', details: { pointer: '/strategy' } }) as Error,
    );
    expect(() =>
      createRuntime({
        log,
        agents: [a.definition],
        supervision: tree('one-for-one', [{ id: 'a' }, { id: 'a' }]),
      }),
    ).toThrow(/used twice/);
  });
});
