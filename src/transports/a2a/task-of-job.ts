/**
 * A Plexus job read as an A2A task (issue 14 item 3, docs/decisions/a2a.md A2A-7): the task id
 * is the job id, the context id the request's `sessionId` (else the job id), the state the job's
 * (D8 states are A2A's), the history the message that started it, and the artifacts the job's
 * outputs — one `result` artifact (a text part for a string, else a data part) and one per file
 * the job stored (a URL part, its sha256 and size in the part's metadata).
 */
import {
  Message as MessageCodec,
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type Task,
  type TaskStatus,
} from '@a2a-js/sdk';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { Envelope } from '../../core/envelope.js';
import type { Job, JobInputRequest, JobState } from '../../core/records/job.js';

/** The A2A state of each job state (D8: the same names). */
export const TASK_STATE_OF_JOB: Readonly<Record<JobState, TaskState>> = {
  SUBMITTED: TaskState.TASK_STATE_SUBMITTED,
  WORKING: TaskState.TASK_STATE_WORKING,
  INPUT_REQUIRED: TaskState.TASK_STATE_INPUT_REQUIRED,
  AUTH_REQUIRED: TaskState.TASK_STATE_AUTH_REQUIRED,
  COMPLETED: TaskState.TASK_STATE_COMPLETED,
  FAILED: TaskState.TASK_STATE_FAILED,
  CANCELED: TaskState.TASK_STATE_CANCELED,
  REJECTED: TaskState.TASK_STATE_REJECTED,
};

/** The job state of an A2A state, `undefined` for UNSPECIFIED / UNRECOGNIZED. */
export function jobStateOfTask(state: TaskState): JobState | undefined {
  const entry = Object.entries(TASK_STATE_OF_JOB).find(([, task]) => task === state);
  return entry === undefined ? undefined : (entry[0] as JobState);
}

/** Where the A2A message that started a job travels in its request envelope. */
export const A2A_EXTENSION = '_x_a2a';

/** A part with `content` and the empty defaults the codec expects. */
export function part(content: NonNullable<Part['content']>, extra: Partial<Part> = {}): Part {
  return { content, metadata: undefined, filename: '', mediaType: '', ...extra };
}

/**
 * A message of the agent about task `taskId`; its id is `<taskId>:<about>`, `about` naming what
 * it reports (a status and its time, a progress event's seq), so every reader of the same task —
 * GetTask, each of several streams, push — sees the same message id (STREAM-ORDER-003).
 */
export function agentMessage(
  taskId: string,
  contextId: string,
  parts: Part[],
  about: string,
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: `${taskId}:${about}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The A2A message a request envelope carried, if it came through the A2A face. */
export function requestMessage(request: Envelope | undefined): Message | undefined {
  const stored = request?.extensions?.[A2A_EXTENSION];
  if (!isJsonObject(stored ?? null)) return undefined;
  const message = (stored as Record<string, JsonValue>)['message'];
  if (!isJsonObject(message ?? null)) return undefined;
  try {
    return MessageCodec.fromJSON(message);
  } catch {
    return undefined;
  }
}

/** The context id of `job`. */
export function contextIdOf(job: Job): string {
  return job.sessionId ?? job.id;
}

/** The artifacts of a finished job: its outputs and its stored files. */
export function artifactsOf(job: Job): Artifact[] {
  const artifacts: Artifact[] = [];
  if (job.state === 'COMPLETED' && job.outputs !== undefined) {
    const outputs = job.outputs;
    artifacts.push({
      artifactId: `${job.id}/result`,
      name: 'result',
      description: `the output of ${job.verb}`,
      parts: [
        typeof outputs === 'string'
          ? part({ $case: 'text', value: outputs })
          : part({ $case: 'data', value: outputs }, { mediaType: 'application/json' }),
      ],
      metadata: undefined,
      extensions: [],
    });
  }
  for (const file of job.artifacts) {
    artifacts.push({
      artifactId: `${job.id}/${file.sha256}`,
      name: file.name ?? file.sha256,
      description: '',
      parts: [
        part(
          { $case: 'url', value: file.uri ?? `sha256:${file.sha256}` },
          {
            filename: file.name ?? '',
            mediaType: file.contentType ?? 'application/octet-stream',
            metadata: { sha256: file.sha256, sizeBytes: file.sizeBytes },
          },
        ),
      ],
      metadata: { sha256: file.sha256 },
      extensions: [],
    });
  }
  return artifacts;
}

/** When `job`'s status last changed (records from before `statusAt`: its last change). */
export function statusTimeOf(job: Job): string {
  return job.timing.statusAt ?? job.timing.updatedAt ?? job.timing.createdAt;
}

/** The status of `job` (in `state`, default its own); a failure carries a message naming the Plexus code. */
export function statusOf(job: Job, state: JobState = job.state): TaskStatus {
  const error = state === job.state ? job.error : undefined;
  const input = state === job.state ? job.input : undefined;
  return {
    state: TASK_STATE_OF_JOB[state],
    message:
      input !== undefined
        ? inputMessage(job, input)
        : error === undefined
          ? undefined
          : agentMessage(
              job.id,
              contextIdOf(job),
              [part({ $case: 'text', value: `${error.code}: ${error.message}` })],
              `${state}:${job.timing.updatedAt ?? job.timing.createdAt}`,
              {
                plexusCode: error.code,
              },
            ),
    // the time of the latest status event (progress does not move it): the order of ListTasks
    // (A2A §3.1.4, docs/decisions/a2a.md A2A-24, A2A-25)
    timestamp: statusTimeOf(job),
  };
}

/**
 * The agent's question to the caller of a task in INPUT_REQUIRED (A2A-14): the prompt as a text
 * part, and the JSON Schema the answer must match, when given, as a data part
 * `{"inputSchema": …}`.
 */
function inputMessage(job: Job, input: JobInputRequest): Message {
  const parts = [part({ $case: 'text', value: input.prompt })];
  if (input.schema !== undefined) {
    parts.push(
      part({ $case: 'data', value: { inputSchema: input.schema } }, { mediaType: 'application/json' }),
    );
  }
  const asked = job.timing.updatedAt ?? job.timing.createdAt;
  return agentMessage(job.id, contextIdOf(job), parts, `INPUT_REQUIRED:${asked}`, {
    plexusState: 'INPUT_REQUIRED',
  });
}

/** Options of {@link taskOf}. */
export interface TaskOfOptions {
  /** The message that started the job. */
  readonly message?: Message;
  /** Messages of the history to keep (the latest); absent: all. */
  readonly historyLength?: number;
  /** The state to show (a snapshot taken from the job's events); default the job's. */
  readonly state?: JobState;
}

/** `job` as an A2A task. */
export function taskOf(job: Job, options: TaskOfOptions = {}): Task {
  const state = options.state ?? job.state;
  const history = options.message === undefined ? [] : [options.message];
  const keep = options.historyLength;
  return {
    id: job.id,
    contextId: contextIdOf(job),
    status: statusOf(job, state),
    artifacts: state === job.state ? artifactsOf(job) : [],
    history: keep === undefined ? history : keep <= 0 ? [] : history.slice(-keep),
    metadata: { verb: job.verb, ...(job.tenantId === undefined ? {} : { tenant: job.tenantId }) },
  };
}
