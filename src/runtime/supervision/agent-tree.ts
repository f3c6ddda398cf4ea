/**
 * Supervision trees in the running runtime (seed 002 §11.3): the agents a `RuntimeInit.
 * supervision` spec names are supervised by a {@link SupervisionTree} instead of each by its
 * own restart policy. Every named agent gets an {@link AgentSupervisor} (what the executor and
 * router use) backed by the tree:
 *
 * - A handler that crashes (throws a non-PlexusError, or leaves a stray rejection) or hangs
 *   (is still running at its job's deadline) is a failure of its agent: the instance is
 *   stopped (its `stop` hook runs, its other running jobs fail `UNAVAILABLE`, retryable) and
 *   reported to the tree, which applies its supervisor's strategy.
 * - Stopping a sibling (one-for-all, rest-for-one) does the same to the sibling: its jobs fail
 *   retryable, its `stop` hook runs; starting calls the agent's `create` factory again.
 * - When the root gives up (its intensity exceeded), every agent of the tree is unavailable
 *   until the node restarts: requests get `UNAVAILABLE` naming the agent and the supervisors.
 *   A `temporary` agent that failed is unavailable the same way.
 *
 * Failures are handled one at a time, in order; a request for an agent being restarted waits
 * for the restart. Every failure, restart, escalation and give-up is an event in the log
 * (`supervision-events.ts`).
 */
import { PlexusError } from '../../core/errors.js';
import type { EventInput } from '../../store/event-log.js';
import { checkHandlers, type AgentDefinition } from '../agents/agent.js';
import { namedAgents } from './agent-tree-check.js';
import type { Logger } from '../../core/logger.js';
import { actionEvent, childFailedEvent, type FailureCause, type FailureKind } from './supervision-events.js';
import {
  checkSupervisorSpec,
  isSupervisorSpec,
  type ChildSpec,
  type SupervisorSpec,
} from './supervision-spec.js';
import { createSupervisionTree } from './supervision-tree.js';
import {
  reasonText,
  runStopHook,
  type AgentLease,
  type AgentSupervisor,
  type CrashOrigin,
} from './supervisor.js';

/** How many restarts in a row a waiting request sits through before it is refused. */
const MAX_WAITS = 8;

/** What an agent tree needs from the runtime. */
export interface AgentTreeComponents {
  /** The clock, Unix ms. */
  readonly now: () => number;
  /** Appends an event (fire and forget). */
  readonly emit: (event: EventInput) => void;
  /** Where restarts, suspensions and supervision failures are logged. */
  readonly logger: Logger;
}

/** The supervision tree of a runtime's agents. */
export interface AgentTree {
  /** The root supervisor's id. */
  readonly root: string;
  /** True when the spec names agent `id`. */
  manages(id: string): boolean;
  /** The supervisor directly above agent `id`, when the spec names it. */
  supervisorOf(id: string): string | undefined;
  /**
   * The supervisor of a named agent (made once per id; a later definition replaces the
   * earlier one and, once the tree runs, its `start()` re-creates the instance).
   * @throws PlexusError `INVALID_PARAMS` when the spec does not name the agent.
   */
  supervise(definition: AgentDefinition): AgentSupervisor;
  /** Starts every named agent in the spec's order. @throws PlexusError `INTERNAL` naming an agent whose factory threw. */
  start(): Promise<void>;
  /** Stops every agent in reverse order (their `stop` hooks run). Safe to call twice. */
  stop(): Promise<void>;
  /** True once the root has given up. */
  readonly gaveUp: boolean;
}

/** The running side of one named agent. */
interface Slot extends AgentSupervisor {
  startInstance(): Promise<void>;
  stopInstance(why: PlexusError): Promise<void>;
  fail(error: PlexusError): void;
  /** A re-added agent: its new definition (and it is hosted again). */
  replace(definition: AgentDefinition): void;
  readonly running: boolean;
}

interface Instance {
  readonly lease: AgentLease;
  readonly controller: AbortController;
  readonly reject: (error: PlexusError) => void;
}

/**
 * Creates the supervision tree of a runtime's agents (nothing starts until `start()`).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad spec.
 */
export function createAgentTree(spec: SupervisorSpec, components: AgentTreeComponents): AgentTree {
  checkSupervisorSpec(spec);
  const { now, emit, logger } = components;
  const named = new Map(namedAgents(spec).map((n) => [n.id, n]));
  const leaves = new Map<string, string[]>();
  const collect = (sup: SupervisorSpec): string[] => {
    const ids = sup.children.flatMap((c: ChildSpec | SupervisorSpec) =>
      isSupervisorSpec(c) ? collect(c) : [c.id],
    );
    leaves.set(sup.id, ids);
    return ids;
  };
  collect(spec);
  const slots = new Map<string, Slot>();
  let started = false;
  let cause: FailureCause | undefined;
  let queue: Promise<void> = Promise.resolve();
  let busy = 0;

  const tree = createSupervisionTree(spec, {
    now,
    start: (id) => slots.get(id)?.startInstance(),
    stop: (id) => slots.get(id)?.stopInstance(stoppedError(id)),
    onAction(action) {
      logger.info(
        { action: action.type, supervisor: action.supervisor, event: 'runtime.supervision' },
        'runtime.supervision',
      );
      if (cause === undefined) return;
      const event = actionEvent(action, {
        cause,
        restarts: (id) => tree.restarts(id),
        agentsUnder: (id) => leaves.get(id) ?? [],
      });
      if (event !== undefined) emit(event);
    },
  });

  const supervisorOf = (id: string): string => named.get(id)?.supervisor ?? spec.id;

  function stoppedError(id: string, failure: FailureCause | undefined = cause): PlexusError {
    const by = supervisorOf(id);
    const why =
      failure === undefined
        ? 'while the runtime stops'
        : failure.agent === id
          ? `after it failed (${failure.reason})`
          : `after agent ${failure.agent} failed (${failure.reason})`;
    return new PlexusError(
      'UNAVAILABLE',
      `agent ${id} was stopped by supervisor ${by} ${why}; the call can be retried`,
      { retryable: true, details: { agent: id, supervisor: by } },
    );
  }

  /** Runs `work` after every earlier report; never rejects. */
  const enqueue = (work: () => Promise<void>): Promise<void> => {
    busy++;
    const next = queue.then(work).catch((error: unknown) => {
      logger.warn(
        { reason: reasonText(error).slice(0, 200), event: 'runtime.supervision_error' },
        'runtime.supervision_error',
      );
    });
    queue = next.finally(() => {
      busy--;
    });
    return queue;
  };

  /** After a report: agents the tree no longer runs are unavailable. */
  const reconcile = (): void => {
    const limits = `more than ${spec.maxRestarts} restarts within ${spec.periodMs} ms`;
    for (const [id, slot] of slots) {
      const by = supervisorOf(id);
      if (tree.gaveUp) {
        slot.fail(
          new PlexusError(
            'UNAVAILABLE',
            `agent ${id} is unavailable: its supervisor ${by}${by === spec.id ? '' : ` escalated to the root supervisor ${spec.id}, which`} gave up after ${limits}; it stays unavailable until the node restarts`,
            { retryable: false, details: { agent: id, supervisor: by, root: spec.id } },
          ),
        );
      } else if (!tree.isRunning(id) && !slot.running) {
        slot.fail(
          new PlexusError(
            'UNAVAILABLE',
            `agent ${id} is unavailable: its supervisor ${by} did not restart it after it failed (its restart type leaves it stopped); it stays unavailable until the node restarts`,
            { retryable: false, details: { agent: id, supervisor: by } },
          ),
        );
      }
    }
  };

  const createSlot = (first: AgentDefinition): Slot => {
    const id = first.card.id;
    let definition = first;
    let incarnation = -1;
    let current: Instance | undefined;
    let pending: Promise<AgentLease> | undefined;
    let failed: PlexusError | undefined;
    let retired = false;
    let load = 0;

    const report = (lease: AgentLease, reason: unknown, kind: FailureKind, origin?: CrashOrigin): void => {
      if (retired || failed !== undefined || current?.lease !== lease) return; // stale or handled
      const failure: FailureCause = {
        agent: id,
        kind,
        reason: reasonText(reason).slice(0, 300),
        ...(origin === undefined ? {} : { job: origin.job }),
        ...(origin?.traceparent === undefined ? {} : { traceparent: origin.traceparent }),
      };
      const by = supervisorOf(id);
      emit(childFailedEvent(failure, by, lease.incarnation));
      logger.info(
        { agent: id, supervisor: by, kind, event: 'runtime.supervised_failure' },
        'runtime.supervised_failure',
      );
      const down = slot.stopInstance(stoppedError(id, failure));
      void enqueue(async () => {
        await down;
        if (incarnation !== lease.incarnation || current !== undefined) return; // restarted meanwhile
        cause = failure;
        try {
          await tree.childExited(id, { kind: 'failure' });
        } finally {
          cause = undefined;
          reconcile();
        }
      });
    };

    const notRunning = (): PlexusError =>
      new PlexusError(
        'UNAVAILABLE',
        retired
          ? `agent ${id} is no longer hosted on this node`
          : `agent ${id} is not running under supervisor ${supervisorOf(id)} right now; retry later`,
        { details: { agent: id, supervisor: supervisorOf(id) } },
      );

    const slot: Slot = {
      id,
      get definition() {
        return definition;
      },
      get load() {
        return load;
      },
      get restarts() {
        return tree.restarts(supervisorOf(id));
      },
      get running() {
        return current !== undefined || pending !== undefined;
      },
      available: () => failed === undefined && !retired,
      unavailable: () => failed ?? (retired ? notRunning() : undefined),
      ready: () => (failed === undefined ? current?.lease : undefined),
      async start(): Promise<void> {
        if (!started || tree.gaveUp || !tree.isRunning(id)) return; // the tree starts it
        let error: unknown;
        await enqueue(async () => {
          cause = undefined;
          await slot.stopInstance(
            new PlexusError(
              'UNAVAILABLE',
              `agent ${id} was replaced by a new definition; the call can be retried`,
              {
                details: { agent: id, supervisor: supervisorOf(id) },
              },
            ),
          );
          await slot.startInstance().catch((e: unknown) => {
            error = e;
          });
        });
        if (error !== undefined) {
          throw new PlexusError('INTERNAL', `agent ${id} could not be created: ${reasonText(error)}`, {
            cause: error,
          });
        }
      },
      async acquire(): Promise<AgentLease> {
        for (let round = 0; round < MAX_WAITS; round++) {
          if (failed !== undefined) throw failed;
          if (retired) break;
          if (current !== undefined) return current.lease;
          if (pending !== undefined) {
            try {
              return await pending;
            } catch {
              // a failed start: the tree retries it or escalates
            }
          }
          if (busy === 0 && pending === undefined) break; // not restarting: not running
          await queue;
        }
        throw failed ?? notRunning();
      },
      track(delta) {
        load += delta;
      },
      crashed(lease, reason, origin) {
        report(lease, reason, 'crash', origin);
      },
      hung(lease, reason, origin) {
        report(lease, reason, 'hang', origin);
      },
      async stop(): Promise<void> {
        retired = true;
        await slot.stopInstance(notRunning());
      },
      async startInstance(): Promise<void> {
        if (retired) return;
        incarnation++;
        const n = incarnation;
        const controller = new AbortController();
        let reject: (error: PlexusError) => void = () => undefined;
        const stopped = new Promise<never>((_, r) => {
          reject = r;
        });
        stopped.catch(() => undefined); // observed by the jobs racing it, if any
        const made = (async (): Promise<AgentLease> => {
          const handlers = checkHandlers(
            definition.card,
            await definition.create({
              agentId: id,
              incarnation: n,
              crashed: (reason) => {
                made
                  .then((lease) => {
                    slot.crashed(lease, reason);
                  })
                  .catch(() => undefined);
              },
            }),
          );
          return { handlers, incarnation: n, stopped, signal: controller.signal };
        })();
        made.catch(() => undefined);
        pending = made;
        try {
          const lease = await made;
          current = { lease, controller, reject };
          failed = undefined;
        } finally {
          if (pending === made) pending = undefined;
        }
      },
      async stopInstance(why: PlexusError): Promise<void> {
        const instance = current;
        current = undefined;
        if (instance === undefined) return;
        instance.reject(why);
        instance.controller.abort(why);
        await runStopHook(definition, instance.lease, logger);
      },
      fail(error) {
        failed = error;
      },
      replace(next) {
        definition = next;
        retired = false;
      },
    };
    return slot;
  };

  return {
    root: spec.id,
    manages: (id) => named.has(id),
    supervisorOf: (id) => named.get(id)?.supervisor,
    supervise(definition) {
      const id = definition.card.id;
      if (!named.has(id)) {
        throw new PlexusError('INVALID_PARAMS', `supervision tree ${spec.id} does not name agent ${id}`);
      }
      const existing = slots.get(id);
      if (existing !== undefined) {
        existing.replace(definition);
        return existing;
      }
      const slot = createSlot(definition);
      slots.set(id, slot);
      return slot;
    },
    async start(): Promise<void> {
      await tree.start();
      started = true;
    },
    async stop(): Promise<void> {
      await queue;
      cause = undefined;
      await tree.stop();
      started = false;
    },
    get gaveUp() {
      return tree.gaveUp;
    },
  };
}
