/**
 * The A2A request handler over the runtime's jobs (issue 14 items 2 and 3, docs/decisions/a2a.md
 * A2A-6…A2A-9): what the SDK's transport handlers (JSON-RPC v1.0 and the v0.3 compatibility
 * layer) call. Every task is a Plexus job — submitted through the runtime like any face's call
 * (capabilities, budgets, idempotency, the log), read back from the jobs projection and the log,
 * so tasks survive a restart and a stream resumed from the log loses nothing.
 */
import { randomUUID } from 'node:crypto';
import {
  AgentCard as SdkAgentCardCodec,
  Message as MessageCodec,
  TaskState,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import {
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
} from '@a2a-js/sdk/errors';
import type { Envelope } from '../../core/envelope.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { isTerminalJobState, type Job, type JobState } from '../../core/records/job.js';
import type { InvocationContext, Principal, Runtime } from '../../runtime/index.js';
import type { JobEvent } from '../../runtime/jobs/job-events.js';
import { listTenantOf } from '../../runtime/jobs/job-list-query.js';
import { visibleToTenant } from '../../runtime/pipeline/tenancy.js';
import { errorOfAnswer } from '../answer-error.js';
import { a2aErrorOf, notCancelable, taskNotFound, unsupported } from './a2a-errors.js';
import { answerOf, messageCall } from './message-verb.js';
import {
  A2A_EXTENSION,
  contextIdOf,
  jobStateOfTask,
  requestMessage,
  statusTimeOf,
  taskOf,
} from './task-of-job.js';
import { jobStateOfEvent, taskUpdates } from './task-updates.js';
import type { PushConfig, PushConfigs } from './push-configs.js';
import { checkPushUrl, type PushTargetPolicy } from './push-target.js';
import type { A2aEndpoint } from './a2a-endpoint.js';
import { tracestateOfMeta, traceparentOfMeta } from '../trace-headers.js';

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** The A2A face (issue 14). */
    readonly a2a: true;
  }
}

/** The media types a message part may declare (the cards' `defaultInputModes`). */
const ACCEPTED_MEDIA_TYPES: readonly string[] = ['application/json', 'text/plain'];

/** The face name A2A calls carry in the runtime and the log. */
export const A2A_FACE = 'a2a';
/** Tasks per `ListTasks` page when the request names no `pageSize`, and the most. */
export const A2A_DEFAULT_PAGE_SIZE = 50;
export const A2A_MAX_PAGE_SIZE = 100;
/** How long a `messageId` answers a repeated send with the same task, ms (A2A-9). */
export const A2A_MESSAGE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Who calls, set by the face on the SDK's call context. */
export interface A2aCaller {
  readonly principal: Principal;
  readonly capability?: string;
  readonly transport: Readonly<Record<string, string>>;
  /** Aborted when the HTTP request ends (a client that went away). */
  readonly signal: AbortSignal;
  /** The span the HTTP request is served in (W3C `traceparent`): a message without its own runs under it. */
  readonly traceparent?: string;
  /** The `tracestate` header beside it, when the caller sent a well-formed one (OBS-45). */
  readonly tracestate?: string;
}

/** The trace a message's (or request's) metadata names, or `undefined` without a valid `traceparent`. */
function metadataTrace(metadata: unknown): { traceparent?: string; tracestate?: string } | undefined {
  const traceparent = traceparentOfMeta(metadata);
  if (traceparent === undefined) return undefined;
  const tracestate = tracestateOfMeta(metadata);
  return { traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

const CALLER_KEY = 'plexus.a2a.caller';

/** Puts `caller` on `context` for the handler. */
export function setA2aCaller(context: ServerCallContext, caller: A2aCaller): void {
  context.state.set(CALLER_KEY, caller);
}

function callerOf(context: ServerCallContext): A2aCaller {
  const caller = context.state.get(CALLER_KEY) as A2aCaller | undefined;
  if (caller === undefined) throw new RequestMalformedError('the request was not authenticated');
  return caller;
}

const ENDPOINT_KEY = 'plexus.a2a.endpoint';

/**
 * Puts the endpoint a request reached on `context` (A2A-29): one handler serves every
 * endpoint, each request naming its own.
 */
export function setA2aEndpoint(context: ServerCallContext, endpoint: A2aEndpoint): void {
  context.state.set(ENDPOINT_KEY, endpoint);
}

function endpointOf(context: ServerCallContext): A2aEndpoint {
  const endpoint = context.state.get(ENDPOINT_KEY) as A2aEndpoint | undefined;
  if (endpoint === undefined) throw new RequestMalformedError('the request reached no A2A endpoint');
  return endpoint;
}

/** What the handler needs (the endpoint of each request comes with its context: {@link setA2aEndpoint}). */
export interface JobTaskHandlerInit {
  readonly runtime: Runtime;
  /** Push notification configs and where they may point; absent = not supported. */
  readonly push?: { readonly configs: PushConfigs; readonly policy: PushTargetPolicy };
}

/**
 * The handler, one for every request of a face: the caller ({@link setA2aCaller}) and the
 * endpoint ({@link setA2aEndpoint}) come with each request's context.
 * @example new JsonRpcTransportHandler(jobTaskHandler({ runtime }));
 */
export function jobTaskHandler(init: JobTaskHandlerInit): A2ARequestHandler {
  const { runtime } = init;

  /** A job the caller may see. @throws TaskNotFoundError. */
  async function visibleJob(id: string, caller: A2aCaller): Promise<Job> {
    if (typeof id !== 'string' || id === '') throw new RequestMalformedError('the task id is required');
    let job: Job;
    try {
      job = await runtime.jobs.get(id, { signal: caller.signal });
    } catch (error) {
      throw a2aErrorOf(error, id);
    }
    if (!visibleToTenant(job.tenantId, caller.principal)) throw taskNotFound(id);
    return job;
  }

  /** The job's events so far (bounded) and the request envelope from its first. */
  async function eventsOf(
    job: Job,
    caller: A2aCaller,
  ): Promise<{ events: readonly JobEvent[]; request?: Envelope }> {
    const events = await runtime.jobs.events(job.id, { signal: caller.signal });
    const first = events[0];
    const data = first?.type === 'job.submitted' && isJsonObject(first.data) ? first.data : undefined;
    const request = data?.['request'];
    return isJsonObject(request ?? null) ? { events, request: request as unknown as Envelope } : { events };
  }

  async function taskWithHistory(job: Job, caller: A2aCaller, historyLength?: number): Promise<Task> {
    if (historyLength !== undefined && historyLength <= 0) return taskOf(job, { historyLength: 0 });
    const { request } = await eventsOf(job, caller);
    const message = requestMessage(request);
    return taskOf(job, {
      ...(message === undefined ? {} : { message }),
      ...(historyLength === undefined ? {} : { historyLength }),
    });
  }

  /** The request a message makes, with its invocation context. */
  function prepare(
    params: SendMessageRequest,
    caller: A2aCaller,
    endpoint: A2aEndpoint,
  ): { envelope: Envelope; context: InvocationContext; message: Message } {
    const sent = params.message;
    if (sent === undefined) throw new RequestMalformedError('params.message is required');
    if (sent.messageId === '') throw new RequestMalformedError('message.messageId is required');
    const unsupportedPart = sent.parts.find(
      (p) => p.mediaType !== '' && !ACCEPTED_MEDIA_TYPES.includes(p.mediaType.split(';')[0]?.trim() ?? ''),
    );
    if (unsupportedPart !== undefined) {
      throw new ContentTypeNotSupportedError({
        message: `parts of type ${unsupportedPart.mediaType} are not accepted; send ${ACCEPTED_MEDIA_TYPES.join(' or ')}`,
        metadata: { plexusCode: 'INVALID_PARAMS' },
      });
    }
    const { principal } = caller;
    let call;
    try {
      call = messageCall(sent, endpoint.cards(), endpoint.reachable());
    } catch (error) {
      throw a2aErrorOf(error);
    }
    const contextId = sent.contextId === '' ? randomUUID() : sent.contextId;
    const message: Message = { ...sent, contextId };
    const reference = message.referenceTaskIds[0];
    // OBS-14: the caller's span in the message's metadata, else the request's, else the HTTP span
    // OBS-45: the tracestate that came with the traceparent taken
    const { traceparent, tracestate } = metadataTrace(sent.metadata) ??
      metadataTrace(params.metadata) ?? {
        traceparent: caller.traceparent,
        tracestate: caller.tracestate,
      };
    const envelope: Envelope = {
      id: randomUUID(),
      kind: 'request',
      from: principal.id,
      to: call.to,
      verb: call.verb,
      data: call.input,
      sessionId: contextId,
      ...(reference === undefined ? {} : { causationId: reference }),
      ...(principal.tenantId === undefined ? {} : { tenantId: principal.tenantId }),
      ...(caller.capability === undefined ? {} : { capability: caller.capability }),
      ...(traceparent === undefined ? {} : { traceparent }),
      ...(traceparent === undefined || tracestate === undefined ? {} : { tracestate }),
      extensions: { [A2A_EXTENSION]: { message: MessageCodec.toJSON(message) as JsonObject } },
    };
    const context: InvocationContext = {
      face: A2A_FACE,
      principal,
      transport: caller.transport,
      // the same messageId sent again is the same task (A2A-9)
      idempotencyKey: `a2a:${sent.messageId}`,
      idempotencyWindowMs: A2A_MESSAGE_WINDOW_MS,
    };
    return { envelope, context, message };
  }

  /**
   * A message naming a task (`taskId`): the answer to a task in INPUT_REQUIRED (A2A-14), which
   * runs it again; any other task takes no messages.
   */
  async function answer(params: SendMessageRequest, caller: A2aCaller): Promise<Job> {
    const sent = params.message;
    if (sent === undefined) throw new RequestMalformedError('params.message is required');
    if (sent.messageId === '') throw new RequestMalformedError('message.messageId is required');
    const job = await visibleJob(sent.taskId, caller);
    if (sent.contextId !== '' && sent.contextId !== contextIdOf(job)) {
      // A2A §3.4.3: a contextId that is not the task's is refused, not silently replaced
      throw new RequestMalformedError(
        `message.contextId ${JSON.stringify(sent.contextId)} is not the context of task ${job.id} (${JSON.stringify(contextIdOf(job))}); leave it out or send the task's`,
      );
    }
    if (job.state !== 'INPUT_REQUIRED') {
      throw unsupported(
        isTerminalJobState(job.state)
          ? `task ${job.id} has finished (${job.state}) and takes no more messages; send a new message without taskId`
          : `task ${job.id} is ${job.state} and does not wait for input`,
      );
    }
    try {
      return await runtime.jobs.provideInput(job.id, answerOf(sent), {
        principal: caller.principal.id,
        signal: caller.signal,
      });
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  /** Submits the job a message asks for (a job the caller follows or reads later). */
  async function submit(
    params: SendMessageRequest,
    caller: A2aCaller,
    endpoint: A2aEndpoint,
  ): Promise<{ job: Job; message: Message }> {
    const { envelope, context, message } = prepare(params, caller, endpoint);
    try {
      const { job } = await runtime.submit(envelope, context, { signal: caller.signal });
      return { job, message };
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  /** Runs the job a message asks for to its end (a blocking send: the runtime's sync path). */
  async function run(
    params: SendMessageRequest,
    caller: A2aCaller,
    endpoint: A2aEndpoint,
  ): Promise<{ job: Job; message: Message }> {
    const { envelope, context, message } = prepare(params, caller, endpoint);
    let invocation;
    try {
      invocation = await runtime.invoke(envelope, context, { signal: caller.signal });
    } catch (error) {
      throw a2aErrorOf(error);
    }
    if (invocation.job === undefined) throw a2aErrorOf(errorOfAnswer(invocation.envelope));
    return { job: invocation.job, message };
  }

  /** The task and then its updates until it finishes (A2A-7: from the log, none lost or repeated). */
  async function* follow(
    job: Job,
    caller: A2aCaller,
    options: { readonly refuseFinished: boolean; readonly message?: Message },
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { events, request } = await eventsOf(job, caller);
    let state: JobState = 'SUBMITTED';
    for (const event of events) state = jobStateOfEvent(event) ?? state;
    const lastSeq = events.at(-1)?.seq ?? 0;
    const finished = isTerminalJobState(state);
    if (finished && options.refuseFinished) {
      throw unsupported(`task ${job.id} has finished (${state}); read it with GetTask`);
    }
    const message = options.message ?? requestMessage(request);
    let current = finished ? await runtime.jobs.get(job.id, { signal: caller.signal }) : job;
    yield {
      payload: {
        $case: 'task',
        value: taskOf(current, { state, ...(message === undefined ? {} : { message }) }),
      },
    };
    if (finished) return;
    for await (const event of runtime.jobs.watch(job.id, { afterSeq: lastSeq, signal: caller.signal })) {
      const next = await taskUpdates(runtime, current, event, state, caller.signal);
      current = next.job;
      state = next.state;
      yield* next.updates;
      if (event.terminal) return;
    }
  }

  return {
    // the SDK asks for the card without a context (the v0.3 layer, before a stream): a
    // request's own handler answers it (withAgentCard)
    getAgentCard: () =>
      Promise.reject(new RequestMalformedError('the agent card is read from a request endpoint')),

    getAuthenticatedExtendedAgentCard() {
      // the cards declare no extended card (capabilities.extendedAgentCard absent): A2A §3.3.4
      return Promise.reject(unsupported('this node has no extended agent card: its public card is complete'));
    },

    async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
      const caller = callerOf(context);
      const historyLength = params.configuration?.historyLength;
      const keep = historyLength === undefined ? {} : { historyLength };
      if (params.message !== undefined && params.message.taskId !== '') {
        const answered = await answer(params, caller);
        const job =
          params.configuration?.returnImmediately === true
            ? answered
            : await runtime.jobs.wait(answered.id, { orInputRequired: true, signal: caller.signal });
        return taskWithHistory(job, caller, historyLength);
      }
      if (params.configuration?.returnImmediately === true) {
        const { job, message } = await submit(params, caller, endpointOf(context));
        return taskOf(job, { message, ...keep });
      }
      const { job, message } = await run(params, caller, endpointOf(context));
      return taskOf(job, { message, ...keep });
    },

    async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext) {
      const caller = callerOf(context);
      if (params.message !== undefined && params.message.taskId !== '') {
        yield* follow(await answer(params, caller), caller, { refuseFinished: false });
        return;
      }
      const { job, message } = await submit(params, caller, endpointOf(context));
      yield* follow(job, caller, { refuseFinished: false, message });
    },

    async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
      const caller = callerOf(context);
      return taskWithHistory(await visibleJob(params.id, caller), caller, params.historyLength);
    },

    async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
      const caller = callerOf(context);
      const job = await visibleJob(params.id, caller);
      if (isTerminalJobState(job.state)) throw notCancelable(job.id, job.state);
      try {
        const after = await runtime.jobs.cancel(job.id, {
          reason: 'cancelled by the A2A client',
          signal: caller.signal,
        });
        if (after.state !== 'CANCELED') throw notCancelable(job.id, after.state);
        return await taskWithHistory(after, caller);
      } catch (error) {
        throw a2aErrorOf(error, job.id);
      }
    },

    async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
      const caller = callerOf(context);
      const pageSize = params.pageSize ?? A2A_DEFAULT_PAGE_SIZE;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > A2A_MAX_PAGE_SIZE) {
        throw new RequestMalformedError(`pageSize must be a whole number from 1 to ${A2A_MAX_PAGE_SIZE}`);
      }
      const state =
        params.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : jobStateOfTask(params.status);
      if (params.status !== TaskState.TASK_STATE_UNSPECIFIED && state === undefined) {
        throw new RequestMalformedError('status is not a task state');
      }
      const after = params.statusTimestampAfter;
      const afterMs = after === undefined ? undefined : Date.parse(after);
      if (afterMs !== undefined && Number.isNaN(afterMs)) {
        throw new RequestMalformedError('statusTimestampAfter is not an RFC 3339 date-time');
      }
      const tenant = listTenantOf(caller.principal);
      let page;
      try {
        page = await runtime.jobs.list(
          {
            order: 'status', // A2A §3.1.4: by status timestamp, newest first (A2A-24)
            limit: pageSize,
            ...(state === undefined ? {} : { states: [state] }),
            ...(params.contextId === '' ? {} : { sessionId: params.contextId }),
            ...(params.pageToken === '' ? {} : { cursor: params.pageToken }),
            ...(tenant === undefined ? {} : { tenant }),
          },
          { signal: caller.signal },
        );
      } catch (error) {
        throw a2aErrorOf(error);
      }
      const jobs = page.jobs.filter(
        (job) => afterMs === undefined || Date.parse(statusTimeOf(job)) > afterMs,
      );
      const tasks = await Promise.all(
        jobs.map(async (job) => {
          const task = await taskWithHistory(job, caller, params.historyLength ?? 0);
          // A2A §3.1.4: without includeArtifacts the artifacts are left out
          return params.includeArtifacts === true ? task : { ...task, artifacts: [] };
        }),
      );
      return { tasks, nextPageToken: page.nextCursor ?? '', pageSize, totalSize: tasks.length };
    },

    async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext) {
      const caller = callerOf(context);
      yield* follow(await visibleJob(params.id, caller), caller, { refuseFinished: true });
    },

    async createTaskPushNotificationConfig(
      params: TaskPushNotificationConfig,
      context: ServerCallContext,
    ): Promise<TaskPushNotificationConfig> {
      const push = pushOf(init);
      const caller = callerOf(context);
      const job = await visibleJob(params.taskId, caller);
      checkPushUrl(params.url, push.policy);
      const config: PushConfig = {
        id: params.id === '' ? randomUUID() : params.id,
        taskId: job.id,
        url: params.url,
        ...(params.token === '' ? {} : { token: params.token }),
        ...(params.authentication === undefined
          ? {}
          : {
              authentication: {
                scheme: params.authentication.scheme,
                credentials: params.authentication.credentials,
              },
            }),
        ...(job.tenantId === undefined ? {} : { tenant: job.tenantId }),
      };
      try {
        await push.configs.set(config, { signal: caller.signal });
      } catch (error) {
        throw a2aErrorOf(error);
      }
      return sdkConfig(config);
    },

    async getTaskPushNotificationConfig(
      params: GetTaskPushNotificationConfigRequest,
      context: ServerCallContext,
    ): Promise<TaskPushNotificationConfig> {
      const push = pushOf(init);
      const job = await visibleJob(params.taskId, callerOf(context));
      const config = push.configs.of(job.id).find((c) => c.id === params.id);
      if (config === undefined) throw taskNotFound(`${job.id}/pushNotificationConfigs/${params.id}`);
      return sdkConfig(config);
    },

    async listTaskPushNotificationConfigs(
      params: ListTaskPushNotificationConfigsRequest,
      context: ServerCallContext,
    ): Promise<ListTaskPushNotificationConfigsResponse> {
      const push = pushOf(init);
      const job = await visibleJob(params.taskId, callerOf(context));
      return { configs: push.configs.of(job.id).map(sdkConfig), nextPageToken: '' };
    },

    async deleteTaskPushNotificationConfig(
      params: DeleteTaskPushNotificationConfigRequest,
      context: ServerCallContext,
    ): Promise<void> {
      const push = pushOf(init);
      const caller = callerOf(context);
      const job = await visibleJob(params.taskId, caller);
      const config = push.configs.of(job.id).find((c) => c.id === params.id);
      // A2A §3.1.10 (TCK PUSH-DEL-002): deleting is idempotent — a config already gone is done
      if (config === undefined) return;
      await push.configs.delete(config, { signal: caller.signal });
    },
  };
}

/**
 * `handler` answering `getAgentCard` with `endpoint`'s card, for the SDK code that reads the
 * card without a call context (the v0.3 layer checks `capabilities.streaming` before a stream).
 */
export function withAgentCard(handler: A2ARequestHandler, endpoint: A2aEndpoint): A2ARequestHandler {
  return { ...handler, getAgentCard: () => Promise.resolve(SdkAgentCardCodec.fromJSON(endpoint.card())) };
}

function sdkConfig(config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    token: config.token ?? '',
    authentication: config.authentication === undefined ? undefined : { ...config.authentication },
  };
}

function pushOf(init: JobTaskHandlerInit): NonNullable<JobTaskHandlerInit['push']> {
  if (init.push === undefined) throw noPush();
  return init.push;
}

function noPush(): Error {
  return new PushNotificationNotSupportedError(
    'this endpoint does not deliver push notifications (its card says pushNotifications: false); use SubscribeToTask',
  );
}
