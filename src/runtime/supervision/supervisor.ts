/**
 * Supervision of one agent (one-for-one): the supervisor owns the agent's current instance,
 * re-creates it when a handler crashes, and counts restarts. More than `maxRestarts`
 * restarts inside `periodMs` mark the agent unavailable (`UNAVAILABLE`, retryable) until the
 * period has passed; the next request after that creates a fresh instance. Restarts,
 * suspensions and resumptions are events in the log.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { EventInput } from '../../store/event-log.js';
import { checkHandlers, type AgentDefinition, type AgentHandlers } from '../agents/agent.js';
import { RUNTIME_EVENTS } from '../events.js';
import type { Logger } from '../../core/logger.js';

/** What a supervisor needs from the runtime. */
export interface SupervisorComponents {
  /** The clock, Unix ms. */
  readonly now: () => number;
  /** Appends an event (fire and forget; failures are the runtime's to report). */
  readonly emit: (event: EventInput) => void;
  /** Where restarts, suspensions and supervision failures are logged. */
  readonly logger: Logger;
}

/** A handle on the instance a request runs on; pass it back to {@link AgentSupervisor.crashed}. */
export interface AgentLease {
  readonly handlers: AgentHandlers;
  /** Which instance (0 = the first). */
  readonly incarnation: number;
  /**
   * Rejects (with a retryable PlexusError) when a supervision tree stops this instance while
   * jobs still run on it; those jobs fail with that error. Absent: the instance is never
   * stopped under a running job.
   */
  readonly stopped?: Promise<never>;
  /** Aborts when {@link AgentLease.stopped} rejects (joined into the handlers' `context.signal`). */
  readonly signal?: AbortSignal;
}

/** The job whose handler failed (links the supervision events to it). */
export interface CrashOrigin {
  readonly job: string;
  /** The job's request `traceparent`. */
  readonly traceparent?: string;
}

/** The supervisor of one local agent. */
export interface AgentSupervisor {
  readonly id: string;
  readonly definition: AgentDefinition;
  /** Jobs currently running on this agent (the router's load). */
  readonly load: number;
  /** Restarts inside the current period. */
  readonly restarts: number;
  /** True unless the agent is suspended and its period has not passed. */
  available(): boolean;
  /** Creates the first instance. @throws PlexusError `INTERNAL` when the factory fails. */
  start(): Promise<void>;
  /** The current instance when it is created and the agent is available, without waiting. */
  ready(): AgentLease | undefined;
  /**
   * The current instance, created if needed.
   * @throws PlexusError `UNAVAILABLE` (retryable) while the agent is suspended or when its
   *   factory fails.
   */
  acquire(): Promise<AgentLease>;
  /** Counts one running job more (`+1`) or less (`-1`). */
  track(delta: 1 | -1): void;
  /** Reports that a handler of instance `lease` crashed: restart or suspend. */
  crashed(lease: AgentLease, reason: unknown, origin?: CrashOrigin): void;
  /**
   * Reports that a handler of instance `lease` was still running when its job's deadline
   * passed. A supervision tree counts it as a failure; the per-agent supervisor ignores it
   * (the job fails `TIMEOUT`, the instance keeps serving).
   */
  hung(lease: AgentLease, reason: unknown, origin?: CrashOrigin): void;
  /** Why requests cannot run on this agent now (`UNAVAILABLE`), or `undefined` when they can. */
  unavailable(): PlexusError | undefined;
  /** Stops the current instance (runs the agent's `stop` hook); later requests create a new one. */
  stop(): Promise<void>;
}

/** How long an agent's `stop` hook may run before supervision goes on without it, ms. */
export const STOP_HOOK_TIMEOUT_MS = 5_000;

/**
 * Runs the agent's `stop` hook on an instance's handlers, bounded by
 * {@link STOP_HOOK_TIMEOUT_MS}. Never rejects: a throwing or hanging hook is reported to the
 * logger as a warning (`runtime.agent_stop_failed`).
 */
export async function runStopHook(
  definition: AgentDefinition,
  lease: AgentLease,
  logger: Logger,
): Promise<void> {
  const hook = definition.stop;
  if (hook === undefined) return;
  const agent = definition.card.id;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(() => hook(lease.handlers, { agentId: agent, incarnation: lease.incarnation })),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`the stop hook did not finish within ${STOP_HOOK_TIMEOUT_MS} ms`));
        }, STOP_HOOK_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
  } catch (error) {
    logger.warn(
      { agent, reason: reasonText(error).slice(0, 200), event: 'runtime.agent_stop_failed' },
      'runtime.agent_stop_failed',
    );
  } finally {
    clearTimeout(timer);
  }
}

/** A failure's message, cut to 500 characters. */
export function reasonText(reason: unknown): string {
  return toPlexusError(reason).message.slice(0, 500);
}

/**
 * Creates the supervisor of a defined agent.
 *
 * @example
 * const sup = createSupervisor(definition, { now: Date.now, emit, logger });
 * await sup.start();
 * const lease = await sup.acquire();
 */
export function createSupervisor(
  definition: AgentDefinition,
  components: SupervisorComponents,
): AgentSupervisor {
  const { now, emit, logger } = components;
  const { card, restart } = definition;
  const id = card.id;
  let incarnation = -1;
  let current: Promise<AgentLease> | undefined;
  let readyLease: AgentLease | undefined;
  let restartTimes: number[] = [];
  let suspendedUntil: number | undefined;
  let load = 0;

  const create = (): Promise<AgentLease> => {
    incarnation++;
    const n = incarnation;
    const made: Promise<AgentLease> = (async () => {
      const handlers = checkHandlers(
        card,
        await definition.create({
          agentId: id,
          incarnation: n,
          crashed: (reason) => {
            made
              .then((lease) => {
                supervisor.crashed(lease, reason);
              })
              .catch(() => undefined);
          },
        }),
      );
      return { handlers, incarnation: n };
    })();
    made.then(
      (lease) => {
        if (current === made) readyLease = lease;
      },
      () => undefined, // observed by whoever awaits it
    );
    current = made;
    readyLease = undefined;
    return made;
  };

  const prune = (t: number): void => {
    restartTimes = restartTimes.filter((at) => at > t - restart.periodMs);
  };

  const supervisor: AgentSupervisor = {
    id,
    definition,
    get load() {
      return load;
    },
    get restarts() {
      prune(now());
      return restartTimes.length;
    },
    available: () => suspendedUntil === undefined || now() >= suspendedUntil,
    ready: () => (suspendedUntil === undefined ? readyLease : undefined),
    async start(): Promise<void> {
      try {
        await create();
      } catch (error) {
        current = undefined;
        throw new PlexusError('INTERNAL', `agent ${id} could not be created: ${reasonText(error)}`, {
          cause: error,
        });
      }
    },
    async acquire(): Promise<AgentLease> {
      const t = now();
      if (suspendedUntil !== undefined) {
        if (t < suspendedUntil) {
          throw new PlexusError(
            'UNAVAILABLE',
            `agent ${id} crashed more than ${restart.maxRestarts} times within ${restart.periodMs} ms and is unavailable until ${new Date(suspendedUntil).toISOString()}; retry later`,
            { details: { agent: id, until: new Date(suspendedUntil).toISOString() } },
          );
        }
        suspendedUntil = undefined;
        restartTimes = [];
        void create();
        emit({ type: RUNTIME_EVENTS.agentResumed, data: { id, incarnation } });
        logger.info({ agent: id, event: 'runtime.agent_resumed' }, 'runtime.agent_resumed');
      }
      const instance = current ?? create();
      try {
        return await instance;
      } catch (error) {
        if (current === instance) current = undefined;
        throw new PlexusError('UNAVAILABLE', `agent ${id} could not be created: ${reasonText(error)}`, {
          cause: error,
          details: { agent: id },
        });
      }
    },
    track(delta) {
      load += delta;
    },
    hung: () => undefined,
    unavailable: () =>
      supervisor.available()
        ? undefined
        : new PlexusError(
            'UNAVAILABLE',
            `agent ${id} crashed too often and is unavailable for now; retry later`,
            {
              details: { agent: id },
            },
          ),
    async stop(): Promise<void> {
      const lease = readyLease;
      current = undefined;
      readyLease = undefined;
      if (lease !== undefined) await runStopHook(definition, lease, logger);
    },
    crashed(lease, reason) {
      if (lease.incarnation !== incarnation || suspendedUntil !== undefined) return; // already handled
      const t = now();
      prune(t);
      const why = reasonText(reason);
      void runStopHook(definition, lease, logger);
      if (restart.strategy === 'none' || restartTimes.length >= restart.maxRestarts) {
        suspendedUntil = t + restart.periodMs;
        current = undefined;
        readyLease = undefined;
        const until = new Date(suspendedUntil).toISOString();
        emit({
          type: RUNTIME_EVENTS.agentSuspended,
          data: { id, until, restarts: restartTimes.length, reason: why },
        });
        logger.info({ agent: id, until, event: 'runtime.agent_suspended' }, 'runtime.agent_suspended');
        return;
      }
      restartTimes.push(t);
      void create();
      emit({
        type: RUNTIME_EVENTS.agentRestarted,
        data: { id, incarnation, restarts: restartTimes.length, reason: why },
      });
      logger.info(
        { agent: id, restarts: restartTimes.length, event: 'runtime.agent_restarted' },
        'runtime.agent_restarted',
      );
    },
  };
  return supervisor;
}
