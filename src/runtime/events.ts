/**
 * The events the runtime writes to the log (D9), their data shapes, and how job events read
 * on the ESRP face (D5). Every durable runtime state — registry, jobs, idempotency keys — is
 * a projection of these events.
 */
import type { Envelope } from '../core/envelope.js';
import type { ErrorData } from '../core/errors.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { AgentCard } from '../core/records/agent-card.js';
import type { VerbSpec } from '../core/records/verb-spec.js';
import type { EventType } from '../store/event-map.js';
import type { InvocationMode } from './context.js';

/** The event types of the runtime. */
export const RUNTIME_EVENTS = {
  /** A card was registered for the first time. */
  agentRegistered: 'agent.registered',
  /** A card was registered again (revision + 1). */
  agentUpdated: 'agent.updated',
  /** A card was removed. */
  agentRemoved: 'agent.removed',
  /** A crashed agent instance was re-created. */
  agentRestarted: 'agent.restarted',
  /** An agent crashed too often and is unavailable for a period. */
  agentSuspended: 'agent.suspended',
  /** A suspended agent's period passed and a new instance was created. */
  agentResumed: 'agent.resumed',
  /** A job was accepted (SUBMITTED). */
  jobSubmitted: 'job.submitted',
  /** A job's handler started (WORKING). */
  jobStarted: 'job.started',
  /** A WORKING job is run again after a node restart (recovery). */
  jobRetried: 'job.retried',
  /** A running job reported progress. */
  jobProgress: 'job.progress',
  /** A running job's handler asked its caller for input (INPUT_REQUIRED). */
  jobInputRequired: 'job.input_required',
  /** The caller answered a job waiting for input; the job runs again (WORKING). */
  jobInputProvided: 'job.input_provided',
  /** A job finished with outputs (COMPLETED). */
  jobCompleted: 'job.completed',
  /** A job finished with an error (FAILED). */
  jobFailed: 'job.failed',
  /** A job was cancelled (CANCELED). */
  jobCanceled: 'job.canceled',
  /** A job was refused (REJECTED). */
  jobRejected: 'job.rejected',
  /** The audit record of an accepted request (the default pre-effect). */
  auditInvoked: 'audit.invoked',
} as const satisfies Readonly<Record<string, EventType>>;

/** One of the runtime's event types. */
export type RuntimeEventType = (typeof RUNTIME_EVENTS)[keyof typeof RUNTIME_EVENTS];

/** Data of `agent.registered` and `agent.updated`. */
export interface AgentCardEventData {
  /** The card as stored, with `revision` and `origin` set. */
  readonly card: AgentCard;
  /** The verb specs registered with it. */
  readonly verbs: readonly VerbSpec[];
}

/** Data of `agent.removed`. */
export interface AgentRemovedData {
  readonly id: string;
}

/** Data of `agent.restarted`: a crashed agent's instance was re-created. */
export interface AgentRestartedData {
  readonly id: string;
  /** The incarnation that crashed. */
  readonly incarnation: number;
  /** Restarts inside the current window. */
  readonly restarts: number;
  readonly reason: string;
}

/** Data of `agent.suspended`: the agent crashed too often and is unavailable until `until`. */
export interface AgentSuspendedData {
  readonly id: string;
  /** RFC 3339. */
  readonly until: string;
  readonly restarts: number;
  readonly reason: string;
}

/** Data of `agent.resumed`: a suspended agent's period passed. */
export interface AgentResumedData {
  readonly id: string;
  readonly incarnation: number;
}

/** How a job reached its agent(s). */
export type RouteKind = 'local' | 'remote' | 'broadcast';

/** Data of `job.submitted`: everything needed to run the job again after a restart. */
export interface JobSubmittedData {
  readonly id: string;
  readonly verb: string;
  readonly caller: string;
  readonly payloadHash: string;
  /** The scoped idempotency key (`<tenant>|<key>`), the index of the idempotency projection. */
  readonly key: string;
  /** The caller's explicit key, when it set one (not the payload hash). */
  readonly idempotencyKey?: string;
  readonly tenantId?: string;
  /** The request envelope's id. */
  readonly correlationId: string;
  /** When the runtime accepted the job, RFC 3339 (the event itself may be written later). */
  readonly at?: string;
  readonly mode: InvocationMode;
  /** The address the request named (`Envelope.to`). */
  readonly to: string;
  /** The job's timeout, ms. */
  readonly timeoutMs: number;
  /** The deadline, RFC 3339. */
  readonly deadline: string;
  /** How long the idempotency key answers duplicates, ms from submission. */
  readonly windowMs: number;
  /** The request as received (needed to run it again). */
  readonly request: Envelope;
  /** The principal's id, when authenticated. */
  readonly principal?: string;
  /** The face the request came through. */
  readonly face: string;
}

/** Data of `job.started` and `job.retried`. */
export interface JobStartedData {
  readonly id: string;
  /** When the handler started, RFC 3339 (the event itself may be written later). */
  readonly at?: string;
  /** 1 for the first run. */
  readonly attempt: number;
  readonly route: RouteKind;
  /** The agent(s) chosen, sorted by id. */
  readonly agents: readonly string[];
  /** Why the job is run again (`job.retried` only). */
  readonly reason?: string;
}

/** Data of `job.progress`. */
export interface JobProgressData {
  readonly id: string;
  readonly progress: JsonValue;
}

/** Data of `job.input_required`. */
export interface JobInputRequiredData {
  readonly id: string;
  /** What to answer, for a person. */
  readonly prompt: string;
  /** JSON Schema the answer must match, when the handler gave one. */
  readonly schema?: JsonValue;
  /** Which request of the job this is: 0 for its first `requestInput`. */
  readonly index: number;
}

/** Data of `job.input_provided`. */
export interface JobInputProvidedData {
  readonly id: string;
  /** The answer (checked against the request's schema). */
  readonly input: JsonValue;
  /** Which request it answers (the `index` of the `job.input_required` before it). */
  readonly index: number;
  /** The principal that answered, when known. */
  readonly principal?: string;
}

/** Data of `job.completed`. */
export interface JobCompletedData {
  readonly id: string;
  readonly outputs: JsonValue;
}

/** Data of `job.failed`, `job.canceled` and `job.rejected`. */
export interface JobErrorData {
  readonly id: string;
  readonly error: ErrorData;
}

/**
 * Data of `audit.invoked`: `{candidates, face, from, job, mode, principal?, principalKind?, to,
 * transport?, verb}`, built key by key in RFC 8785 order (`pipeline/effects.ts`).
 */
export type AuditInvokedData = JsonObject;

declare module '../store/event-map.js' {
  /** The runtime's agent, job and audit events (`RUNTIME_EVENTS`). */
  interface EventMap {
    'agent.registered': AgentCardEventData;
    'agent.updated': AgentCardEventData;
    'agent.removed': AgentRemovedData;
    'agent.restarted': AgentRestartedData;
    'agent.suspended': AgentSuspendedData;
    'agent.resumed': AgentResumedData;
    'job.submitted': JobSubmittedData;
    'job.started': JobStartedData;
    'job.retried': JobStartedData;
    'job.progress': JobProgressData;
    'job.input_required': JobInputRequiredData;
    'job.input_provided': JobInputProvidedData;
    'job.completed': JobCompletedData;
    'job.failed': JobErrorData;
    'job.canceled': JobErrorData;
    'job.rejected': JobErrorData;
    'audit.invoked': AuditInvokedData;
  }
}

/** The job event types, in lifecycle order. */
export const JOB_EVENT_TYPES = [
  RUNTIME_EVENTS.jobSubmitted,
  RUNTIME_EVENTS.jobStarted,
  RUNTIME_EVENTS.jobRetried,
  RUNTIME_EVENTS.jobProgress,
  RUNTIME_EVENTS.jobInputRequired,
  RUNTIME_EVENTS.jobInputProvided,
  RUNTIME_EVENTS.jobCompleted,
  RUNTIME_EVENTS.jobFailed,
  RUNTIME_EVENTS.jobCanceled,
  RUNTIME_EVENTS.jobRejected,
] as const;

/** One of {@link JOB_EVENT_TYPES}. */
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** The job event types after which a job has no more events. */
export const TERMINAL_JOB_EVENT_TYPES: ReadonlySet<string> = new Set([
  RUNTIME_EVENTS.jobCompleted,
  RUNTIME_EVENTS.jobFailed,
  RUNTIME_EVENTS.jobCanceled,
  RUNTIME_EVENTS.jobRejected,
]);

/**
 * The job events that set a job's status (its D8 state, or the A2A status and its timestamp):
 * the order key of the job listing is the `seq` of a job's latest one (docs/decisions/
 * job-listing.md JL-11). Not `job.progress` (no change of state) nor `job.retried` (a WORKING
 * job run again stays WORKING).
 */
export const JOB_STATUS_EVENT_TYPES = [
  RUNTIME_EVENTS.jobSubmitted,
  RUNTIME_EVENTS.jobStarted,
  RUNTIME_EVENTS.jobInputRequired,
  RUNTIME_EVENTS.jobInputProvided,
  RUNTIME_EVENTS.jobCompleted,
  RUNTIME_EVENTS.jobFailed,
  RUNTIME_EVENTS.jobCanceled,
  RUNTIME_EVENTS.jobRejected,
] as const;

/** The SSE event names of the ESRP face (D5). */
export type EsrpJobEventName =
  'job_queued' | 'job_started' | 'job_progress' | 'job_succeeded' | 'job_failed' | 'job_cancelled';

/** How each job event type is named on the ESRP face (`job.retried` is a new start). */
export const ESRP_JOB_EVENT_NAMES: Readonly<Record<JobEventType, EsrpJobEventName>> = {
  'job.submitted': 'job_queued',
  'job.started': 'job_started',
  'job.retried': 'job_started',
  'job.progress': 'job_progress',
  // ESRP has no event of its own for these (D5): a job waiting for input is still `started`
  'job.input_required': 'job_progress',
  'job.input_provided': 'job_progress',
  'job.completed': 'job_succeeded',
  'job.failed': 'job_failed',
  'job.canceled': 'job_cancelled',
  'job.rejected': 'job_failed',
};

/** True when `type` is a job event type. */
export function isJobEventType(type: string): type is JobEventType {
  return (JOB_EVENT_TYPES as readonly string[]).includes(type);
}
