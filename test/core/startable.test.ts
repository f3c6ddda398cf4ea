import { describe, expect, it } from 'vitest';
import { startable, type StartableState } from '../../src/core/startable.js';

/** A promise settled from outside. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Steps that record each call and wait for the test to release them. */
function recorded() {
  const calls: string[] = [];
  let gate: ReturnType<typeof deferred> | undefined;
  const step = (name: string) => async (arg?: string) => {
    calls.push(arg === undefined ? name : `${name}:${arg}`);
    if (gate !== undefined) await gate.promise;
  };
  const life = startable<[string?], [string?]>({ start: step('start'), stop: step('stop') });
  return {
    calls,
    life,
    hold: () => (gate = deferred()),
    open: () => {
      const g = gate;
      gate = undefined;
      g?.resolve();
    },
  };
}

describe('startable', () => {
  it('starts once however often start is called, and passes the arguments on', async () => {
    const { calls, life } = recorded();
    expect(life.state).toBe<StartableState>('idle');
    await life.start('a');
    await life.start('b');
    expect(calls).toEqual(['start:a']);
    expect(life.state).toBe('running');
  });

  it('shares one start between concurrent callers', async () => {
    const { calls, life, hold, open } = recorded();
    hold();
    const first = life.start();
    const second = life.start();
    expect(life.state).toBe('starting');
    open();
    await Promise.all([first, second]);
    expect(calls).toEqual(['start']);
    expect(life.state).toBe('running');
  });

  it('stop waits for a start in progress, then stops', async () => {
    const { calls, life, hold, open } = recorded();
    hold();
    const starting = life.start();
    const stopping = life.stop('now');
    open();
    await Promise.all([starting, stopping]);
    expect(calls).toEqual(['start', 'stop:now']);
    expect(life.state).toBe('idle');
  });

  it('stop before start, and stop twice, do nothing more', async () => {
    const { calls, life, hold, open } = recorded();
    await life.stop();
    expect(calls).toEqual([]);
    await life.start();
    hold();
    const a = life.stop();
    const b = life.stop();
    expect(life.state).toBe('stopping');
    open();
    await Promise.all([a, b]);
    await life.stop();
    expect(calls).toEqual(['start', 'stop']);
  });

  it('starts again after a stop, and a start during a stop waits for it', async () => {
    const { calls, life, hold, open } = recorded();
    await life.start();
    hold();
    const stopping = life.stop();
    const again = life.start();
    expect(life.state).toBe('stopping');
    open();
    await Promise.all([stopping, again]);
    expect(calls).toEqual(['start', 'stop', 'start']);
    expect(life.state).toBe('running');
  });

  it('a failed start leaves it idle, rejects every waiting caller, and can be retried', async () => {
    let fail = true;
    const calls: string[] = [];
    const life = startable({
      start: async () => {
        calls.push('start');
        await Promise.resolve();
        if (fail) throw new Error('cannot open');
      },
      stop: () => {
        calls.push('stop');
        return Promise.resolve();
      },
    });
    const results = await Promise.allSettled([life.start(), life.start(), life.stop()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(life.state).toBe('idle');
    expect(calls).toEqual(['start']);
    fail = false;
    await life.start();
    expect(life.state).toBe('running');
  });

  it('a failed stop still ends idle and rejects its callers', async () => {
    const life = startable({
      start: () => Promise.resolve(),
      stop: () => Promise.reject(new Error('cannot close')),
    });
    await life.start();
    await expect(Promise.all([life.stop(), life.stop()])).rejects.toThrow('cannot close');
    expect(life.state).toBe('idle');
    await life.stop();
    await life.start();
    expect(life.state).toBe('running');
  });
});
