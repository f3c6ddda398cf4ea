/**
 * The `Job` record (DESIGN §2, D8): one invocation with its A2A-style state, timing,
 * outputs, artifacts, error and attempts; the allowed state transitions as data; and the
 * ESRP face's view of the states (queued / started / succeeded / failed / cancelled).
 */
import type { ErrorData } from '../errors.js';
import { PlexusError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Problem } from '../problem.js';
import { JSON_SCHEMA_DIALECT, schemaValidator, throwIfProblems } from '../schema-validator.js';
import { compareDateTimes, isDateTime } from './datetime.js';
import {
  CID_SCHEMA,
  DATE_TIME_SCHEMA,
  ERROR_DATA_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SHA256_HEX_SCHEMA,
} from './schema-parts.js';

/** The job states of A2A (D8). */
export const JOB_STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'REJECTED',
] as const;
/** One of {@link JOB_STATES}. */
export type JobState = (typeof JOB_STATES)[number];

/** The states a job never leaves. */
export const TERMINAL_JOB_STATES = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'REJECTED',
] as const satisfies readonly JobState[];

/**
 * The allowed transitions, as data: `JOB_TRANSITIONS[from]` lists every state `from` may move
 * to. A state never moves to itself (progress is an event, not a transition).
 */
export const JOB_TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  SUBMITTED: ['WORKING', 'FAILED', 'CANCELED', 'REJECTED'],
  WORKING: ['INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED'],
  INPUT_REQUIRED: ['WORKING', 'FAILED', 'CANCELED'],
  AUTH_REQUIRED: ['WORKING', 'FAILED', 'CANCELED', 'REJECTED'],
  COMPLETED: [],
  FAILED: [],
  CANCELED: [],
  REJECTED: [],
};

/** True when `value` is one of {@link JOB_STATES}. */
export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}

/** True when `state` is terminal (COMPLETED, FAILED, CANCELED, REJECTED). */
export function isTerminalJobState(state: JobState): boolean {
  return JOB_TRANSITIONS[state].length === 0;
}

/** True when a job in state `from` may move to state `to` (per {@link JOB_TRANSITIONS}). */
export function canTransition(from: JobState, to: JobState): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/**
 * Checks a transition.
 * @throws PlexusError `CONFLICT` naming both states and the allowed targets.
 */
export function assertTransition(from: JobState, to: JobState): void {
  if (canTransition(from, to)) return;
  const allowed = JOB_TRANSITIONS[from];
  throw new PlexusError(
    'CONFLICT',
    allowed.length === 0
      ? `a job in state ${from} is finished and cannot move to ${to}`
      : `a job cannot move from ${from} to ${to}; from ${from} it may move to ${allowed.join(', ')}`,
    { details: { from, to } },
  );
}

/** The job statuses the ESRP face shows (D5, D8). */
export const ESRP_JOB_STATUSES = ['queued', 'started', 'succeeded', 'failed', 'cancelled'] as const;
/** One of {@link ESRP_JOB_STATUSES}. */
export type EsrpJobStatus = (typeof ESRP_JOB_STATUSES)[number];

/**
 * How each job state reads on the ESRP face. INPUT_REQUIRED and AUTH_REQUIRED are still
 * in progress (`started`); REJECTED is a `failed`.
 */
export const JOB_STATE_TO_ESRP: Readonly<Record<JobState, EsrpJobStatus>> = {
  SUBMITTED: 'queued',
  WORKING: 'started',
  INPUT_REQUIRED: 'started',
  AUTH_REQUIRED: 'started',
  COMPLETED: 'succeeded',
  FAILED: 'failed',
  CANCELED: 'cancelled',
  REJECTED: 'failed',
};

/** The job state an ESRP status is read as. */
export const ESRP_TO_JOB_STATE: Readonly<Record<EsrpJobStatus, JobState>> = {
  queued: 'SUBMITTED',
  started: 'WORKING',
  succeeded: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELED',
};

/** When things happened to a job (RFC 3339 date-times). */
export interface JobTiming {
  /** Submission time. */
  readonly createdAt: string;
  /** Last change. */
  readonly updatedAt?: string;
  /**
   * When the job's status (state) last changed: the time of its latest status event, which
   * progress does not move (the A2A task status timestamp; the job listing's order).
   */
  readonly statusAt?: string;
  /** When work began (required once the job has been WORKING). */
  readonly startedAt?: string;
  /** When the job reached a terminal state (required exactly then). */
  readonly finishedAt?: string;
  /** When the caller stops waiting. */
  readonly deadline?: string;
}

/** A file a job produced, stored by content (ESRP artifacts). */
export interface JobArtifact {
  /** SHA-256 of the bytes, lower-case hex. */
  readonly sha256: string;
  /** Size in bytes. */
  readonly sizeBytes: number;
  /** Content id (CIDv1) of the bytes, when computed. */
  readonly cid?: string;
  /** A name for people (`audio.wav`). */
  readonly name?: string;
  /** MIME type. */
  readonly contentType?: string;
  /** Where the bytes can be fetched (`workspace://…`). */
  readonly uri?: string;
}

/**
 * What a job in INPUT_REQUIRED asks its caller for: the handler's `ctx.requestInput(prompt,
 * {schema})` (docs/decisions/runtime.md). The next input is checked against `schema`.
 */
export interface JobInputRequest {
  /** What to answer, for a person. */
  readonly prompt: string;
  /** JSON Schema the answer must match, when the handler gave one. */
  readonly schema?: JsonValue;
}

/** One invocation. */
export interface Job {
  /** Job id. */
  readonly id: string;
  /** The verb invoked. */
  readonly verb: string;
  /** The caller's agent id. */
  readonly caller: string;
  /** SHA-256 hex of the canonical payload (idempotency key by default, D5). */
  readonly payloadHash: string;
  /** Current state. */
  readonly state: JobState;
  /** Timing. */
  readonly timing: JobTiming;
  /** Artifacts produced so far. */
  readonly artifacts: readonly JobArtifact[];
  /** How many times the handler was started (0 while SUBMITTED). */
  readonly attempts: number;
  /** The handler's result (for the ESRP face, its outputs list). */
  readonly outputs?: JsonValue;
  /** Why the job failed or was rejected. */
  readonly error?: ErrorData;
  /** The idempotency key, when the caller set one other than the payload hash. */
  readonly idempotencyKey?: string;
  /** Tenant of the caller. */
  readonly tenantId?: string;
  /** The request envelope's id. */
  readonly correlationId?: string;
  /** The request envelope's `sessionId` (an A2A task's `contextId`), when it had one. */
  readonly sessionId?: string;
  /** What the job waits for, exactly while it is INPUT_REQUIRED. */
  readonly input?: JobInputRequest;
}

/** JSON Schema of {@link JobTiming}. */
export const JOB_TIMING_SCHEMA = {
  type: 'object',
  required: ['createdAt'],
  additionalProperties: false,
  properties: {
    createdAt: DATE_TIME_SCHEMA,
    updatedAt: DATE_TIME_SCHEMA,
    statusAt: DATE_TIME_SCHEMA,
    startedAt: DATE_TIME_SCHEMA,
    finishedAt: DATE_TIME_SCHEMA,
    deadline: DATE_TIME_SCHEMA,
  },
} as const;

/** JSON Schema of {@link JobArtifact}. */
export const JOB_ARTIFACT_SCHEMA = {
  type: 'object',
  required: ['sha256', 'sizeBytes'],
  additionalProperties: false,
  properties: {
    sha256: SHA256_HEX_SCHEMA,
    sizeBytes: { type: 'integer', minimum: 0 },
    cid: CID_SCHEMA,
    name: NON_EMPTY_STRING_SCHEMA,
    contentType: NON_EMPTY_STRING_SCHEMA,
    uri: { type: 'string', format: 'uri' },
  },
} as const;

/** JSON Schema of the {@link Job}. */
export const JOB_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/core/job.json',
  title: 'Job',
  description: 'One invocation (DESIGN §2, D8).',
  type: 'object',
  required: ['id', 'verb', 'caller', 'payloadHash', 'state', 'timing', 'artifacts', 'attempts'],
  additionalProperties: false,
  properties: {
    id: NON_EMPTY_STRING_SCHEMA,
    verb: NON_EMPTY_STRING_SCHEMA,
    caller: NON_EMPTY_STRING_SCHEMA,
    payloadHash: SHA256_HEX_SCHEMA,
    state: { enum: JOB_STATES },
    timing: JOB_TIMING_SCHEMA,
    artifacts: { type: 'array', items: JOB_ARTIFACT_SCHEMA },
    attempts: { type: 'integer', minimum: 0 },
    outputs: true,
    error: ERROR_DATA_SCHEMA,
    idempotencyKey: NON_EMPTY_STRING_SCHEMA,
    tenantId: NON_EMPTY_STRING_SCHEMA,
    correlationId: NON_EMPTY_STRING_SCHEMA,
    sessionId: NON_EMPTY_STRING_SCHEMA,
    input: {
      type: 'object',
      required: ['prompt'],
      additionalProperties: false,
      properties: { prompt: { type: 'string' }, schema: true },
    },
  },
} as const;

const NEEDS_START: ReadonlySet<JobState> = new Set([
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
]);

function checkOrder(
  timing: Record<string, unknown>,
  earlier: string,
  later: string,
  problems: Problem[],
): void {
  const a = timing[earlier];
  const b = timing[later];
  if (isDateTime(a) && isDateTime(b) && compareDateTimes(b, a) < 0) {
    problems.push({ pointer: `/timing/${later}`, message: `must not be before ${earlier} ${a}` });
  }
}

/**
 * Every problem of `value` as a Job: the schema, then the state rules — FAILED and REJECTED
 * carry an `error`, COMPLETED does not; a terminal job has `timing.finishedAt` and a live one
 * does not; WORKING, INPUT_REQUIRED, AUTH_REQUIRED and COMPLETED have `timing.startedAt`;
 * SUBMITTED has no `startedAt` and no attempts; and the times are in order.
 */
export function validateJob(value: unknown): Problem[] {
  const problems = schemaValidator().validate(JOB_SCHEMA, value);
  if (typeof value !== 'object' || value === null) return problems;
  const job = value as Record<string, unknown>;
  const state = job['state'];
  const timing =
    typeof job['timing'] === 'object' && job['timing'] !== null
      ? (job['timing'] as Record<string, unknown>)
      : undefined;
  if (!isJobState(state)) return problems;
  if ((state === 'FAILED' || state === 'REJECTED') && job['error'] === undefined) {
    problems.push({
      pointer: '',
      message: `missing required property "error", required when state is ${state}`,
    });
  }
  if (state === 'COMPLETED' && job['error'] !== undefined) {
    problems.push({ pointer: '/error', message: 'a COMPLETED job must not carry an error' });
  }
  if (timing !== undefined) {
    if (isTerminalJobState(state) && timing['finishedAt'] === undefined) {
      problems.push({
        pointer: '/timing',
        message: `missing required property "finishedAt", required when state is ${state}`,
      });
    }
    if (!isTerminalJobState(state) && timing['finishedAt'] !== undefined) {
      problems.push({ pointer: '/timing/finishedAt', message: `must be absent while the job is ${state}` });
    }
    if (NEEDS_START.has(state) && timing['startedAt'] === undefined) {
      problems.push({
        pointer: '/timing',
        message: `missing required property "startedAt", required when state is ${state}`,
      });
    }
    if (state === 'SUBMITTED' && timing['startedAt'] !== undefined) {
      problems.push({ pointer: '/timing/startedAt', message: 'must be absent while the job is SUBMITTED' });
    }
    checkOrder(timing, 'createdAt', 'startedAt', problems);
    checkOrder(timing, 'startedAt', 'finishedAt', problems);
    checkOrder(timing, 'createdAt', 'finishedAt', problems);
    checkOrder(timing, 'createdAt', 'updatedAt', problems);
  }
  if ((state === 'INPUT_REQUIRED') !== (job['input'] !== undefined)) {
    problems.push({
      pointer: '/input',
      message:
        state === 'INPUT_REQUIRED'
          ? 'missing required property "input", required when state is INPUT_REQUIRED'
          : `must be absent while the job is ${state}`,
    });
  }
  if (state === 'SUBMITTED' && typeof job['attempts'] === 'number' && job['attempts'] !== 0) {
    problems.push({ pointer: '/attempts', message: 'must be 0 while the job is SUBMITTED' });
  }
  if (NEEDS_START.has(state) && job['attempts'] === 0) {
    problems.push({
      pointer: '/attempts',
      message: `must be at least 1 once the job has been WORKING (state ${state})`,
    });
  }
  return problems;
}

/**
 * Returns `value` as a Job when it is one.
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` listing every problem.
 */
export function parseJob(value: unknown): Job {
  throwIfProblems(validateJob(value), 'job');
  return value as Job;
}
