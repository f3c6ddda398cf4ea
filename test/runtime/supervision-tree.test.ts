import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import {
  checkSupervisorSpec,
  countRestart,
  restartGroup,
  type SupervisorSpec,
} from '../../src/runtime/supervision/supervision-spec.js';
import {
  createSupervisionTree,
  type SupervisionAction,
  type SupervisionTree,
} from '../../src/runtime/supervision/supervision-tree.js';

/** A tree over recorded start/stop calls and a hand-moved clock. */
function harness(spec: SupervisorSpec, failStart: (id: string, n: number) => boolean = () => false) {
  const calls: string[] = [];
  const actions: SupervisionAction[] = [];
  const starts = new Map<string, number>();
  let t = 1_000_000;
  const tree: SupervisionTree = createSupervisionTree(spec, {
    start: (id) => {
      const n = (starts.get(id) ?? 0) + 1;
      starts.set(id, n);
      if (failStart(id, n)) throw new Error(`${id} cannot start (attempt ${n})`);
      calls.push(`start ${id}`);
    },
    stop: (id) => {
      calls.push(`stop ${id}`);
    },
    now: () => t,
    onAction: (a) => actions.push(a),
  });
  return {
    tree,
    calls,
    actions,
    advance: (ms: number) => {
      t += ms;
    },
    take: () => calls.splice(0),
  };
}

const flat = (strategy: SupervisorSpec['strategy'], maxRestarts = 5, periodMs = 60_000): SupervisorSpec => ({
  id: 'root',
  strategy,
  maxRestarts,
  periodMs,
  children: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof PlexusError ? error.code : 'not a PlexusError';
  }
  return undefined;
}

describe('checkSupervisorSpec', () => {
  it('accepts the seed example (restart true/false)', () => {
    const town: SupervisorSpec = {
      id: 'town',
      strategy: 'one-for-one',
      maxRestarts: 3,
      periodMs: 300_000,
      children: [
        { id: 'town.citizen.greet', restart: true },
        { id: 'town.citizen.trade', restart: true },
        { id: 'town.simulation.tick', restart: false },
      ],
    };
    expect(checkSupervisorSpec(town)).toBe(town);
  });

  it('rejects bad strategies, limits, restart types, duplicate ids and a worker root', () => {
    const base = flat('one-for-one');
    expect(codeOf(() => checkSupervisorSpec({ ...base, strategy: 'all-for-one' as never }))).toBe(
      'INVALID_PARAMS',
    );
    expect(codeOf(() => checkSupervisorSpec({ ...base, maxRestarts: -1 }))).toBe('INVALID_PARAMS');
    expect(codeOf(() => checkSupervisorSpec({ ...base, maxRestarts: 1.5 }))).toBe('INVALID_PARAMS');
    expect(codeOf(() => checkSupervisorSpec({ ...base, periodMs: 0 }))).toBe('INVALID_PARAMS');
    expect(
      codeOf(() => checkSupervisorSpec({ ...base, children: [{ id: 'a', restart: 'sometimes' as never }] })),
    ).toBe('INVALID_PARAMS');
    expect(codeOf(() => checkSupervisorSpec({ ...base, children: [{ id: 'a' }, { id: 'a' }] }))).toBe(
      'INVALID_PARAMS',
    );
    expect(codeOf(() => checkSupervisorSpec({ ...base, children: [{ id: 'root' }] }))).toBe('INVALID_PARAMS');
    expect(codeOf(() => checkSupervisorSpec({ ...base, children: [{ id: '' }] }))).toBe('INVALID_PARAMS');
    expect(codeOf(() => checkSupervisorSpec({ id: 'x' } as never))).toBe('INVALID_PARAMS');
    expect(() =>
      createSupervisionTree({ ...base, periodMs: -5 }, { start: () => {}, stop: () => {} }),
    ).toThrow(/periodMs/);
  });
});

describe('restartGroup', () => {
  it('picks the failed child, all children, or the failed child and those after it', () => {
    expect(restartGroup('one-for-one', 4, 1)).toEqual([1]);
    expect(restartGroup('one-for-all', 4, 1)).toEqual([0, 1, 2, 3]);
    expect(restartGroup('rest-for-one', 4, 1)).toEqual([1, 2, 3]);
    expect(restartGroup('rest-for-one', 4, 3)).toEqual([3]);
  });

  it('rejects a position outside the children', () => {
    expect(codeOf(() => restartGroup('one-for-one', 2, 2))).toBe('INVALID_PARAMS');
    expect(codeOf(() => restartGroup('one-for-one', 2, -1))).toBe('INVALID_PARAMS');
  });
});

describe('countRestart', () => {
  it('allows maxRestarts inside the window and forgets restarts older than the period', () => {
    const limits = { maxRestarts: 2, periodMs: 100 };
    let r = countRestart([], 0, limits);
    expect(r.allowed).toBe(true);
    r = countRestart(r.times, 50, limits);
    expect(r.allowed).toBe(true);
    expect(countRestart(r.times, 99, limits).allowed).toBe(false);
    const later = countRestart(r.times, 100, limits);
    expect(later).toEqual({ allowed: true, times: [50, 100] });
  });

  it('never allows a restart with maxRestarts 0', () => {
    expect(countRestart([], 0, { maxRestarts: 0, periodMs: 10 }).allowed).toBe(false);
  });
});

describe('createSupervisionTree', () => {
  it('starts depth first in order and stops in reverse order', async () => {
    const h = harness({
      id: 'root',
      strategy: 'one-for-one',
      maxRestarts: 1,
      periodMs: 10,
      children: [
        { id: 'a' },
        {
          id: 'sub',
          strategy: 'one-for-all',
          maxRestarts: 1,
          periodMs: 10,
          children: [{ id: 'x' }, { id: 'y' }],
        },
        { id: 'c' },
      ],
    });
    await h.tree.start();
    expect(h.take()).toEqual(['start a', 'start x', 'start y', 'start c']);
    expect(h.tree.running()).toEqual(['a', 'x', 'y', 'c']);
    expect(h.tree.isRunning('sub')).toBe(true);
    await h.tree.stop();
    expect(h.take()).toEqual(['stop c', 'stop y', 'stop x', 'stop a']);
    expect(h.tree.running()).toEqual([]);
    await h.tree.stop();
    expect(h.take()).toEqual([]);
  });

  it('one-for-one restarts only the failed child', async () => {
    const h = harness(flat('one-for-one'));
    await h.tree.start();
    h.take();
    const report = await h.tree.childExited('b');
    expect(h.take()).toEqual(['start b']);
    expect(report.handled).toBe(true);
    expect(report.actions).toEqual([
      { type: 'restart', supervisor: 'root', ids: ['b'] },
      { type: 'start', id: 'b', supervisor: 'root' },
    ]);
    expect(h.tree.restarts('root')).toBe(1);
    expect(h.tree.running()).toEqual(['a', 'b', 'c']);
  });

  it('one-for-all stops the others in reverse order and starts all in order', async () => {
    const h = harness(flat('one-for-all'));
    await h.tree.start();
    h.take();
    await h.tree.childExited('b');
    expect(h.take()).toEqual(['stop c', 'stop a', 'start a', 'start b', 'start c']);
    expect(h.tree.restarts('root')).toBe(1);
  });

  it('rest-for-one restarts the failed child and the children started after it', async () => {
    const h = harness(flat('rest-for-one'));
    await h.tree.start();
    h.take();
    await h.tree.childExited('b');
    expect(h.take()).toEqual(['stop c', 'start b', 'start c']);
    await h.tree.childExited('c');
    expect(h.take()).toEqual(['start c']);
    await h.tree.childExited('a');
    expect(h.take()).toEqual(['stop c', 'stop b', 'start a', 'start b', 'start c']);
  });

  it('gives up when the root exceeds its intensity, stopping everything', async () => {
    const h = harness(flat('one-for-one', 2, 1000));
    await h.tree.start();
    h.take();
    await h.tree.childExited('a');
    h.advance(10);
    await h.tree.childExited('a');
    h.advance(10);
    expect(h.take()).toEqual(['start a', 'start a']);
    const report = await h.tree.childExited('a');
    expect(report.gaveUp).toBe(true);
    expect(report.actions.at(-1)).toEqual({ type: 'give-up', supervisor: 'root' });
    expect(h.take()).toEqual(['stop c', 'stop b']);
    expect(h.tree.gaveUp).toBe(true);
    expect(h.tree.running()).toEqual([]);
    const ignored = await h.tree.childExited('b');
    expect(ignored).toEqual({ id: 'b', handled: false, actions: [], gaveUp: false });
  });

  it('forgets restarts older than the period (a sliding window)', async () => {
    const h = harness(flat('one-for-one', 2, 1000));
    await h.tree.start();
    for (let i = 0; i < 6; i++) {
      const report = await h.tree.childExited('a');
      expect(report.gaveUp).toBe(false);
      h.advance(600);
    }
    expect(h.tree.gaveUp).toBe(false);
    expect(h.tree.restarts('root')).toBe(1);
  });

  it('never restarts temporary children and restarts transient ones only after a failure', async () => {
    const h = harness({
      id: 'root',
      strategy: 'one-for-all',
      maxRestarts: 5,
      periodMs: 1000,
      children: [{ id: 'p' }, { id: 'tr', restart: 'transient' }, { id: 'tmp', restart: false }],
    });
    await h.tree.start();
    h.take();
    const normal = await h.tree.childExited('tr', { kind: 'normal' });
    expect(normal.actions).toEqual([]);
    expect(h.take()).toEqual([]);
    expect(h.tree.isRunning('tr')).toBe(false);
    // a one-for-all restart leaves the finished transient child and stops the temporary one for good
    await h.tree.childExited('p');
    expect(h.take()).toEqual(['stop tmp', 'start p']);
    expect(h.tree.running()).toEqual(['p']);
    // a permanent child that exits normally is restarted
    await h.tree.childExited('p', { kind: 'normal' });
    expect(h.take()).toEqual(['start p']);
  });

  it('restarts a failed transient child and removes a failed temporary child', async () => {
    const h = harness({
      id: 'root',
      strategy: 'one-for-one',
      maxRestarts: 5,
      periodMs: 1000,
      children: [
        { id: 'tr', restart: 'transient' },
        { id: 'tmp', restart: 'temporary' },
      ],
    });
    await h.tree.start();
    h.take();
    await h.tree.childExited('tr');
    const gone = await h.tree.childExited('tmp');
    expect(gone.actions).toEqual([{ type: 'remove', id: 'tmp', supervisor: 'root' }]);
    expect(h.take()).toEqual(['start tr']);
    expect(h.tree.restarts('root')).toBe(1);
  });

  it('escalates a sub-supervisor to its parent, which restarts the whole subtree', async () => {
    const h = harness({
      id: 'root',
      strategy: 'one-for-one',
      maxRestarts: 3,
      periodMs: 1000,
      children: [
        { id: 'a' },
        {
          id: 'sub',
          strategy: 'one-for-one',
          maxRestarts: 1,
          periodMs: 1000,
          children: [{ id: 'x' }, { id: 'y' }],
        },
      ],
    });
    await h.tree.start();
    h.take();
    await h.tree.childExited('x');
    expect(h.take()).toEqual(['start x']);
    expect(h.tree.restarts('sub')).toBe(1);
    const report = await h.tree.childExited('x');
    expect(h.take()).toEqual(['stop y', 'start x', 'start y']);
    expect(report.actions).toContainEqual({ type: 'escalate', supervisor: 'sub', to: 'root' });
    expect(report.gaveUp).toBe(false);
    // the subtree restarted with an empty history; the parent counted one restart
    expect(h.tree.restarts('sub')).toBe(0);
    expect(h.tree.restarts('root')).toBe(1);
    expect(h.tree.running()).toEqual(['a', 'x', 'y']);
  });

  it('applies the parent strategy to an escalated subtree (rest-for-one restarts later siblings)', async () => {
    const h = harness({
      id: 'root',
      strategy: 'rest-for-one',
      maxRestarts: 3,
      periodMs: 1000,
      children: [
        { id: 'a' },
        { id: 'sub', strategy: 'one-for-one', maxRestarts: 0, periodMs: 1000, children: [{ id: 'x' }] },
        { id: 'z' },
      ],
    });
    await h.tree.start();
    h.take();
    await h.tree.childExited('x');
    expect(h.take()).toEqual(['stop z', 'start x', 'start z']);
  });

  it('lets an escalation climb to the root, which gives up', async () => {
    const h = harness({
      id: 'root',
      strategy: 'one-for-one',
      maxRestarts: 0,
      periodMs: 1000,
      children: [
        { id: 'a' },
        {
          id: 'sub',
          strategy: 'one-for-one',
          maxRestarts: 0,
          periodMs: 1000,
          children: [{ id: 'x' }, { id: 'y' }],
        },
      ],
    });
    await h.tree.start();
    h.take();
    const report = await h.tree.childExited('y');
    expect(report.gaveUp).toBe(true);
    expect(report.actions.filter((a) => a.type === 'escalate' || a.type === 'give-up')).toEqual([
      { type: 'escalate', supervisor: 'sub', to: 'root' },
      { type: 'give-up', supervisor: 'root' },
    ]);
    expect(h.take()).toEqual(['stop x', 'stop a']);
  });

  it('retries a restart whose start throws, counting each attempt, then escalates', async () => {
    const h = harness(flat('one-for-one', 3, 1000), (id, n) => id === 'b' && n >= 2 && n <= 3);
    await h.tree.start();
    h.take();
    const ok = await h.tree.childExited('b');
    expect(ok.gaveUp).toBe(false);
    expect(ok.actions.filter((a) => a.type === 'start-failed')).toHaveLength(2);
    expect(h.take()).toEqual(['start b']);
    expect(h.tree.restarts('root')).toBe(3);

    const always = harness(flat('one-for-one', 3, 1000), (id, n) => id === 'b' && n >= 2);
    await always.tree.start();
    always.take();
    const report = await always.tree.childExited('b');
    expect(report.gaveUp).toBe(true);
    expect(always.take()).toEqual(['stop c', 'stop a']);
  });

  it('aborts start() when a worker cannot start, stopping the ones already started', async () => {
    const h = harness(flat('one-for-one'), (id) => id === 'c');
    await expect(h.tree.start()).rejects.toMatchObject({
      code: 'INTERNAL',
      message: /worker c failed to start/,
    });
    expect(h.take()).toEqual(['start a', 'start b', 'stop b', 'stop a']);
    expect(h.tree.running()).toEqual([]);
  });

  it('ignores exits of workers that are not running and rejects unknown ids', async () => {
    const h = harness(flat('one-for-one'));
    const early = await h.tree.childExited('a');
    expect(early.handled).toBe(false);
    await expect(h.tree.childExited('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(h.tree.childExited('root')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(() => h.tree.restarts('a')).toThrow(/no supervisor/);
  });

  it('handles concurrent exit reports one at a time', async () => {
    const h = harness(flat('one-for-all'));
    await h.tree.start();
    h.take();
    const [first, second] = await Promise.all([h.tree.childExited('a'), h.tree.childExited('c')]);
    expect(first.handled).toBe(true);
    expect(second.handled).toBe(true);
    expect(h.take()).toEqual([
      'stop c',
      'stop b',
      'start a',
      'start b',
      'start c',
      'stop b',
      'stop a',
      'start a',
      'start b',
      'start c',
    ]);
    expect(h.tree.restarts('root')).toBe(2);
  });
});
