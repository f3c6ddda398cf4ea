/**
 * The events a configured supervision tree writes to the log (seed 002 §11.3): a supervised
 * agent failed, a supervisor restarted a group of agents, a supervisor escalated to its
 * parent, the root gave up, a restart's start failed, a `temporary` agent was removed.
 *
 * An event caused by a job's crash carries that job's id as `causation` and its request's
 * `traceparent` as `trace`, so `plexus trace` shows it as a mark on the job's span (job event
 * reads take only `job.*` types, so these never enter a job's own event stream).
 */
import type { JsonObject } from '../core/json.js';
import type { EventInput } from '../store/event-log.js';
import { TRACEPARENT_PATTERN } from '../store/event-input.js';
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
} as const;

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

/** `causation` and `trace` of the events about `cause`. */
function links(cause: FailureCause): Pick<EventInput, 'causation' | 'trace'> {
  return {
    ...(cause.job === undefined ? {} : { causation: cause.job }),
    ...(cause.traceparent !== undefined && TRACEPARENT_PATTERN.test(cause.traceparent)
      ? { trace: cause.traceparent }
      : {}),
  };
}

/** The `supervision.child_failed` event of `cause`. */
export function childFailedEvent(cause: FailureCause, supervisor: string, incarnation: number): EventInput {
  const data: JsonObject = {
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
  let type: SupervisionEventType;
  let data: JsonObject;
  switch (action.type) {
    case 'restart':
      type = SUPERVISION_EVENTS.restarted;
      data = {
        supervisor: action.supervisor,
        agents: [...action.ids],
        ...failed,
        restarts: context.restarts(action.supervisor),
      };
      break;
    case 'escalate':
      type = SUPERVISION_EVENTS.escalated;
      data = { supervisor: action.supervisor, to: action.to, ...failed };
      break;
    case 'give-up':
      type = SUPERVISION_EVENTS.gaveUp;
      data = {
        supervisor: action.supervisor,
        agents: [...context.agentsUnder(action.supervisor)],
        ...failed,
      };
      break;
    case 'start-failed':
      type = SUPERVISION_EVENTS.startFailed;
      data = { agent: action.id, supervisor: action.supervisor, reason: action.reason };
      break;
    case 'remove':
      type = SUPERVISION_EVENTS.removed;
      data = { agent: action.id, supervisor: action.supervisor };
      break;
    default:
      return undefined;
  }
  return { type, data, ...links(cause) };
}
