/**
 * Supervision trees (seed 002 §11.3, Erlang/OTP semantics) driving real restarts through
 * injected `start(id)` / `stop(id)` callbacks.
 *
 * On a worker's failure its supervisor applies its strategy: it stops the other members of
 * the restart group (reverse start order) and starts the group again (start order). Each
 * restart counts against the supervisor's intensity (`maxRestarts` in a sliding `periodMs`;
 * a one-for-all restart of the whole group counts once). One failure more than the intensity
 * allows: the supervisor stops all its children and escalates — its parent treats the whole
 * subtree as one failed child and applies its own strategy (restarting the subtree starts
 * its children afresh with an empty restart history). When the root escalates the tree gives
 * up: everything is stopped and later failures are ignored.
 *
 * Restart types: `temporary` children are never restarted (and are removed when they stop);
 * `transient` children are restarted only after a failure (a normal exit leaves them
 * stopped, and a group restart leaves them stopped too). A start that throws while
 * restarting counts as one more restart of that child and is retried until the intensity is
 * exceeded; a start that throws during `start()` aborts it (everything started is stopped).
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import {
  checkSupervisorSpec,
  countRestart,
  isSupervisorSpec,
  restartGroup,
  restartTypeOf,
  type ChildRestart,
  type ChildSpec,
  type SupervisionStrategy,
  type SupervisorSpec,
} from './supervision-spec.js';

/** One thing the tree did, in order. */
export type SupervisionAction =
  | { readonly type: 'start'; readonly id: string; readonly supervisor: string }
  | { readonly type: 'stop'; readonly id: string; readonly supervisor: string }
  | {
      readonly type: 'start-failed';
      readonly id: string;
      readonly supervisor: string;
      readonly reason: string;
    }
  | { readonly type: 'remove'; readonly id: string; readonly supervisor: string }
  | { readonly type: 'restart'; readonly supervisor: string; readonly ids: readonly string[] }
  | { readonly type: 'escalate'; readonly supervisor: string; readonly to: string }
  | { readonly type: 'give-up'; readonly supervisor: string };

/** What the tree did about one reported exit. */
export interface SupervisionReport {
  /** The child that exited. */
  readonly id: string;
  /** False when the report was ignored (the child was not running, or the tree gave up). */
  readonly handled: boolean;
  /** Starts, stops, removals, restarts and escalations, in order. */
  readonly actions: readonly SupervisionAction[];
  /** True when this exit made the root give up. */
  readonly gaveUp: boolean;
}

/** What a supervision tree drives. */
export interface SupervisionTreeComponents {
  /** Starts a worker (creates an agent instance, …). Throwing counts as a failed start. */
  readonly start: (id: string) => void | Promise<void>;
  /** Stops a running worker. Errors are ignored (the worker is considered stopped). */
  readonly stop: (id: string) => void | Promise<void>;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
  /** Sees every action as it happens (for events and logs). Must not throw. */
  readonly onAction?: (action: SupervisionAction) => void;
}

/** Options of {@link SupervisionTree.childExited}. */
export interface ChildExitOptions {
  /** `failure` (abnormal, the default) or `normal` (the worker finished on its own). */
  readonly kind?: 'failure' | 'normal';
  /** When it happened, Unix ms. @default now() */
  readonly at?: number;
}

/** A running supervision tree. */
export interface SupervisionTree {
  /** Starts every worker, depth first in spec order. @throws PlexusError `INTERNAL` naming a worker whose start threw (all started ones are stopped). */
  start(): Promise<void>;
  /** Stops every running worker in reverse start order. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Reports that a worker exited and applies the supervisors' strategies. Reports are handled
   * one at a time, in call order.
   * @throws PlexusError `NOT_FOUND` when no worker has that id.
   */
  childExited(id: string, options?: ChildExitOptions): Promise<SupervisionReport>;
  /** True when the worker or supervisor `id` is running. */
  isRunning(id: string): boolean;
  /** The running workers, in start order. */
  running(): readonly string[];
  /** Restarts inside the current window of supervisor `id`. @throws PlexusError `NOT_FOUND`. */
  restarts(id: string): number;
  /** True once the root has given up. */
  readonly gaveUp: boolean;
}

interface Node {
  readonly id: string;
  readonly restart: ChildRestart;
  readonly parent: Sup | undefined;
  running: boolean;
  removed: boolean;
}

interface Sup extends Node {
  readonly strategy: SupervisionStrategy;
  readonly maxRestarts: number;
  readonly periodMs: number;
  readonly children: Node[];
  times: readonly number[];
}

function isSup(node: Node): node is Sup {
  return 'children' in node;
}

function build(spec: ChildSpec | SupervisorSpec, parent: Sup | undefined, index: Map<string, Node>): Node {
  const base = { id: spec.id, restart: restartTypeOf(spec.restart), parent, running: false, removed: false };
  let node: Node;
  if (isSupervisorSpec(spec)) {
    const sup: Sup = { ...base, ...limitsOf(spec), children: [], times: [] };
    for (const child of spec.children) sup.children.push(build(child, sup, index));
    node = sup;
  } else {
    node = base;
  }
  index.set(node.id, node);
  return node;
}

function limitsOf(spec: SupervisorSpec): Pick<Sup, 'strategy' | 'maxRestarts' | 'periodMs'> {
  return { strategy: spec.strategy, maxRestarts: spec.maxRestarts, periodMs: spec.periodMs };
}

/**
 * Creates a supervision tree (nothing starts until `start()`).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad spec (see `checkSupervisorSpec`).
 * @example
 * const tree = createSupervisionTree(
 *   { id: 'town', strategy: 'one-for-one', maxRestarts: 3, periodMs: 300_000,
 *     children: [{ id: 'town.citizen.greet', restart: true }, { id: 'town.simulation.tick', restart: false }] },
 *   { start: (id) => runtime.startAgent(id), stop: (id) => runtime.stopAgent(id) },
 * );
 * await tree.start();
 * await tree.childExited('town.citizen.greet'); // restarted
 */
export function createSupervisionTree(
  spec: SupervisorSpec,
  components: SupervisionTreeComponents,
): SupervisionTree {
  checkSupervisorSpec(spec);
  const index = new Map<string, Node>();
  const root = build(spec, undefined, index) as Sup;
  const now = components.now ?? Date.now;
  let gaveUp = false;
  let queue: Promise<unknown> = Promise.resolve();
  let actions: SupervisionAction[] = [];

  const act = (action: SupervisionAction): void => {
    actions.push(action);
    try {
      components.onAction?.(action);
    } catch {
      // an observer must not break supervision
    }
  };

  const liveChildren = (sup: Sup): Node[] => sup.children.filter((c) => !c.removed);

  /** Stops a running subtree, children in reverse order. */
  const stopNode = async (node: Node, supervisor: string): Promise<void> => {
    if (!node.running) return;
    if (isSup(node)) {
      for (const child of [...liveChildren(node)].reverse()) await stopNode(child, node.id);
    } else {
      await Promise.resolve()
        .then(() => components.stop(node.id))
        .catch(() => undefined);
    }
    node.running = false;
    act({ type: 'stop', id: node.id, supervisor });
    if (node.restart === 'temporary' && node.parent !== undefined) {
      node.removed = true;
      act({ type: 'remove', id: node.id, supervisor });
    }
  };

  /**
   * Starts a node. `init`: a throwing start is an error. Otherwise a throwing start counts as
   * a restart of `parent` and is retried; false when `parent`'s intensity ran out (the
   * subtree is then stopped).
   */
  const startNode = async (node: Node, mode: 'init' | 'restart', t: number): Promise<boolean> => {
    const supervisor = node.parent?.id ?? node.id;
    if (isSup(node)) {
      // a fresh incarnation: empty restart history, every child of the spec again
      node.times = [];
      node.running = true;
      for (const child of node.children) child.removed = false;
      for (const child of node.children) {
        if (child.running) continue;
        if (!(await startChild(child, node, mode, t))) {
          await escalateStop(node);
          if (node.parent !== undefined) act({ type: 'escalate', supervisor: node.id, to: node.parent.id });
          return false;
        }
      }
      act({ type: 'start', id: node.id, supervisor });
      return true;
    }
    try {
      await components.start(node.id);
      node.running = true;
      act({ type: 'start', id: node.id, supervisor });
      return true;
    } catch (error) {
      if (mode === 'init') {
        throw new PlexusError(
          'INTERNAL',
          `worker ${node.id} failed to start: ${toPlexusError(error).message}`,
          {
            cause: error,
            details: { worker: node.id, supervisor },
          },
        );
      }
      act({
        type: 'start-failed',
        id: node.id,
        supervisor,
        reason: toPlexusError(error).message.slice(0, 300),
      });
      return false;
    }
  };

  /** Starts one child of `sup`, retrying failed restarts while `sup`'s intensity allows. */
  const startChild = async (child: Node, sup: Sup, mode: 'init' | 'restart', t: number): Promise<boolean> => {
    for (;;) {
      if (await startNode(child, mode, t)) return true;
      const counted = countRestart(sup.times, t, sup);
      sup.times = counted.times;
      if (!counted.allowed) return false;
    }
  };

  /** A supervisor whose intensity ran out: stop its children. */
  const escalateStop = async (sup: Sup): Promise<void> => {
    for (const child of [...liveChildren(sup)].reverse()) await stopNode(child, sup.id);
    sup.running = false;
  };

  /** `node` (a child of a supervisor) is down: apply its supervisor's strategy. */
  const childDown = async (node: Node, kind: 'failure' | 'normal', t: number): Promise<void> => {
    const sup = node.parent;
    if (sup === undefined) return;
    if (node.restart === 'temporary') {
      node.removed = true;
      act({ type: 'remove', id: node.id, supervisor: sup.id });
      return;
    }
    if (node.restart === 'transient' && kind === 'normal') return;
    const counted = countRestart(sup.times, t, sup);
    sup.times = counted.times;
    if (!counted.allowed) {
      await escalate(sup, t);
      return;
    }
    const live = liveChildren(sup);
    const group = restartGroup(sup.strategy, live.length, live.indexOf(node))
      .map((i) => live[i])
      .filter((n): n is Node => n !== undefined)
      .filter((n) => n === node || n.running || n.restart === 'permanent');
    for (const member of [...group].reverse()) if (member !== node) await stopNode(member, sup.id);
    const again = group.filter((n) => !n.removed);
    act({ type: 'restart', supervisor: sup.id, ids: again.map((n) => n.id) });
    for (const member of again) {
      if (!(await startChild(member, sup, 'restart', t))) {
        await escalate(sup, t);
        return;
      }
    }
  };

  /** `sup` exceeded its intensity: stop its subtree and hand the failure to its parent. */
  const escalate = async (sup: Sup, t: number): Promise<void> => {
    await escalateStop(sup);
    if (sup.parent === undefined) {
      gaveUp = true;
      act({ type: 'give-up', supervisor: sup.id });
      return;
    }
    act({ type: 'escalate', supervisor: sup.id, to: sup.parent.id });
    await childDown(sup, 'failure', t);
  };

  const serialize = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const runningLeaves = (node: Node): string[] =>
    isSup(node) ? liveChildren(node).flatMap(runningLeaves) : node.running ? [node.id] : [];

  return {
    start: () =>
      serialize(async () => {
        if (root.running || gaveUp) return;
        try {
          await startNode(root, 'init', now());
        } catch (error) {
          await escalateStop(root);
          throw error;
        } finally {
          actions = [];
        }
      }),
    stop: () =>
      serialize(async () => {
        await stopNode(root, root.id);
        actions = [];
      }),
    childExited: (id, options = {}) =>
      serialize(async () => {
        const node = index.get(id);
        if (node === undefined || isSup(node)) {
          throw new PlexusError(
            'NOT_FOUND',
            `no worker ${JSON.stringify(id)} in supervision tree ${root.id}`,
            {
              details: { worker: id },
            },
          );
        }
        if (gaveUp || !node.running) return { id, handled: false, actions: [], gaveUp: false };
        actions = [];
        node.running = false;
        await childDown(node, options.kind ?? 'failure', options.at ?? now());
        const done = actions;
        actions = [];
        return { id, handled: true, actions: done, gaveUp };
      }),
    isRunning: (id) => index.get(id)?.running === true,
    running: () => runningLeaves(root),
    restarts: (id) => {
      const node = index.get(id);
      if (node === undefined || !isSup(node)) {
        throw new PlexusError(
          'NOT_FOUND',
          `no supervisor ${JSON.stringify(id)} in supervision tree ${root.id}`,
        );
      }
      const t = now();
      return node.times.filter((at) => at > t - node.periodMs).length;
    },
    get gaveUp() {
      return gaveUp;
    },
  };
}
