/**
 * The events a configured supervision tree writes to the log (seed 002 §11.3): a supervised
 * agent failed, a supervisor restarted a group of agents, a supervisor escalated to its
 * parent, the root gave up, a restart's start failed, a `temporary` agent was removed.
 *
 * An event caused by a job's crash carries that job's id as `causation` and its request's
 * `traceparent` as `trace`, so `plexus trace` shows it as a mark on the job's span (job event
 * reads take only `job.*` types, so these never enter a job's own event stream).
 */
import type { EventInput } from '../../store/event-log.js';
import type { EventType } from '../../store/event-map.js';
import { TRACEPARENT_PATTERN } from '../../store/event-input.js';
import type { SupervisionAction } from './supervision-tree.js';

/** The event types of supervision trees. */
export const SUPERVISION_EVENTS = {
  /** A supervised agent's handler crashed or hung: `{agent, supervisor, kind, reason, incarnation, job?}`. */
  childFailed: 'supervision.child_failed',
  /** A supervisor restarted agents: `{supervisor, agents, failed, reason, restarts}`. */
  restarted: 'supervision.restarted',
  /** A supervisor exceeded its intensity and handed the failure to its parent: `{supervisor, to, failed, reason}`. */
  escalated: 'supervision.escalated',
  /** The root exceeded its intensity; its agents are unavailable: `{supervisor, agents, failed, reason}`. */
  gaveUp: 'supervision.gave_up',
  /** Re-creating an agent during a restart threw: `{agent, supervisor, reason}`. */
  startFailed: 'supervision.start_failed',
  /** A `temporary` agent was not restarted and is unavailable: `{agent, supervisor}`. */
  removed: 'supervision.removed',
} as const satisfies Readonly<Record<string, EventType>>;

/** One of {@link SUPERVISION_EVENTS}. */
export type SupervisionEventType = (typeof SUPERVISION_EVENTS)[keyof typeof SUPERVISION_EVENTS];

/** How a supervised agent failed. */
export type FailureKind = 'crash' | 'hang';

/** The failure a supervision report is about (what every event of that report names). */
export interface FailureCause {
  /** The agent that failed. */
  readonly agent: string;
  readonly kind: FailureKind;
  /** Why, cut to 300 characters. */
  readonly reason: string;
  /** The job whose handler failed, when a job did. */
  readonly job?: string;
  /** That job's request `traceparent`. */
  readonly traceparent?: string;
}

/** What every report about a failure names: the agent that failed and why. */
export interface FailedData {
  /** The agent that failed. */
  readonly failed: string;
  readonly reason: string;
}

/** Data of `supervision.child_failed`. */
export interface ChildFailedData {
  readonly agent: string;
  readonly supervisor: string;
  readonly kind: FailureKind;
  readonly reason: string;
  readonly incarnation: number;
  /** The job whose handler failed, when a job did. */
  readonly job?: string;
}

/** Data of `supervision.restarted`. */
export interface SupervisorRestartedData extends FailedData {
  readonly supervisor: string;
  /** The agents restarted. */
  readonly agents: readonly string[];
  /** Restarts inside the supervisor's current window. */
  readonly restarts: number;
}

/** Data of `supervision.escalated`. */
export interface SupervisorEscalatedData extends FailedData {
  readonly supervisor: string;
  /** The parent supervisor. */
  readonly to: string;
}

/** Data of `supervision.gave_up`. */
export interface SupervisorGaveUpData extends FailedData {
  readonly supervisor: string;
  /** The agents now unavailable. */
  readonly agents: readonly string[];
}

/** Data of `supervision.start_failed`. */
export interface StartFailedData {
  readonly agent: string;
  readonly supervisor: string;
  readonly reason: string;
}

/** Data of `supervision.removed`. */
export interface SupervisedRemovedData {
  readonly agent: string;
  readonly supervisor: string;
}

declare module '../../store/event-map.js' {
  /** The events of supervision trees (`SUPERVISION_EVENTS`). */
  interface EventMap {
    'supervision.child_failed': ChildFailedData;
    'supervision.restarted': SupervisorRestartedData;
    'supervision.escalated': SupervisorEscalatedData;
    'supervision.gave_up': SupervisorGaveUpData;
    'supervision.start_failed': StartFailedData;
    'supervision.removed': SupervisedRemovedData;
  }
}

/** `causation` and `trace` of the events about `cause`. */
function links(cause: FailureCause): { readonly causation?: string; readonly trace?: string } {
  return {
    ...(cause.job === undefined ? {} : { causation: cause.job }),
    ...(cause.traceparent !== undefined && TRACEPARENT_PATTERN.test(cause.traceparent)
      ? { trace: cause.traceparent }
      : {}),
  };
}

/** The `supervision.child_failed` event of `cause`. */
export function childFailedEvent(cause: FailureCause, supervisor: string, incarnation: number): EventInput {
  const data: ChildFailedData = {
    agent: cause.agent,
    supervisor,
    kind: cause.kind,
    reason: cause.reason,
    incarnation,
    ...(cause.job === undefined ? {} : { job: cause.job }),
  };
  return { type: SUPERVISION_EVENTS.childFailed, data, ...links(cause) };
}

/** What {@link actionEvent} needs besides the action. */
export interface ActionContext {
  /** The failure being handled. */
  readonly cause: FailureCause;
  /** Restarts inside supervisor `id`'s current window. */
  readonly restarts: (id: string) => number;
  /** The agents under supervisor `id` (for `gave_up`). */
  readonly agentsUnder: (id: string) => readonly string[];
}

/**
 * The event of one tree action, or `undefined` for actions not worth a log entry (single
 * starts and stops: a `restarted` event lists them).
 */
export function actionEvent(action: SupervisionAction, context: ActionContext): EventInput | undefined {
  const { cause } = context;
  const failed = { failed: cause.agent, reason: cause.reason };
  const linked = links(cause);
  switch (action.type) {
    case 'restart':
      return {
        type: SUPERVISION_EVENTS.restarted,
        data: {
          supervisor: action.supervisor,
          agents: [...action.ids],
          ...failed,
          restarts: context.restarts(action.supervisor),
        },
        ...linked,
      };
    case 'escalate':
      return {
        type: SUPERVISION_EVENTS.escalated,
        data: { supervisor: action.supervisor, to: action.to, ...failed },
        ...linked,
      };
    case 'give-up':
      return {
        type: SUPERVISION_EVENTS.gaveUp,
        data: {
          supervisor: action.supervisor,
          agents: [...context.agentsUnder(action.supervisor)],
          ...failed,
        },
        ...linked,
      };
    case 'start-failed':
      return {
        type: SUPERVISION_EVENTS.startFailed,
        data: { agent: action.id, supervisor: action.supervisor, reason: action.reason },
        ...linked,
      };
    case 'remove':
      return {
        type: SUPERVISION_EVENTS.removed,
        data: { agent: action.id, supervisor: action.supervisor },
        ...linked,
      };
    default:
      return undefined;
  }
}
