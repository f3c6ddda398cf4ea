/**
 * The A2A HTTP+JSON (REST) binding, v1.0 (issue 14 item 2, docs/decisions/a2a.md A2A-11): the
 * same operations as the JSON-RPC binding, over the same {@link jobTaskHandler}, at the paths of
 * A2A §11 under each endpoint (`/a2a`, `/agents/{id}/a2a`): `POST …/message:send`,
 * `POST …/message:stream` (SSE), `GET …/tasks`, `GET …/tasks/{id}`, `POST …/tasks/{id}:cancel`,
 * `GET|POST …/tasks/{id}:subscribe` (SSE), the push-config paths and `GET …/extendedAgentCard`.
 * Bodies are the protobuf JSON forms (the SDK's codecs); errors are A2A's REST error bodies
 * (`google.rpc.Status` with `ErrorInfo`) with their HTTP status. `A2A-Version` must be 1.0.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AgentCard as SdkAgentCardCodec,
  ListTasksRequest as ListTasksRequestCodec,
  ListTaskPushNotificationConfigsResponse as ListTaskPushNotificationConfigsResponseCodec,
  ListTasksResponse as ListTasksResponseCodec,
  SendMessageRequest as SendMessageRequestCodec,
  SendMessageResponse as SendMessageResponseCodec,
  StreamResponse as StreamResponseCodec,
  Task as TaskCodec,
  TaskPushNotificationConfig as TaskPushNotificationConfigCodec,
  type StreamResponse,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import {
  RequestMalformedError,
  VersionNotSupportedError,
  type A2AError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import { decodeJsonText } from '../../core/bounded-json.js';
import { a2aErrorOf } from './a2a-errors.js';
import { a2aCallContext } from './a2a-call-context.js';
import { sendSse, type A2aRoutesInit, type SseForm } from './a2a-sse.js';
import { agentEndpoint, baseUrlOf, nodeEndpoint, type A2aEndpoint } from './a2a-endpoint.js';
import { jobTaskHandler } from './job-task-handler.js';
import { A2A_VERSION_HEADER, requestedA2aVersion } from './a2a-version.js';

/**
 * The media type of REST answers: `application/json`, as A2A §11.1 requires (and the TCK checks,
 * HTTP_JSON-SVC-001 and HTTP_JSON-ERR-001); not the `application/a2a+json` of §14.1, which the
 * SDK's own server answers (docs/decisions/a2a.md A2A-16).
 */
export const A2A_REST_CONTENT_TYPE = 'application/json';

/** What the routes need from the face. */
export type A2aRestRoutesInit = A2aRoutesInit;

/** One REST operation: what it does with the handler, given the request. */
type Operation = (
  handler: A2ARequestHandler,
  context: ServerCallContext,
  request: FastifyRequest,
  body: () => Record<string, unknown>,
) => Promise<{ status: number; body: unknown } | AsyncGenerator<StreamResponse, void, undefined>>;

/**
 * The HTTP status of each A2A error, as A2A §5.4 maps them (the SDK's own table answers 400 for
 * TaskNotCancelable and ContentTypeNotSupported, 500 for InvalidAgentResponse): A2A-16.
 */
const SPEC_HTTP_STATUS: Readonly<Record<string, number>> = {
  TaskNotFoundError: 404,
  TaskNotCancelableError: 409,
  PushNotificationNotSupportedError: 400,
  UnsupportedOperationError: 400,
  ContentTypeNotSupportedError: 415,
  InvalidAgentResponseError: 502,
  ExtendedAgentCardNotConfiguredError: 400,
  ExtensionSupportRequiredError: 400,
  VersionNotSupportedError: 400,
};

/** The HTTP status of an A2A error (A2A §5.4; else the SDK's). */
export function a2aHttpStatus(error: A2AError): number {
  return SPEC_HTTP_STATUS[error.name] ?? restStatusFor(error);
}

function sendError(reply: FastifyReply, failure: unknown): FastifyReply {
  const error = a2aErrorOf(failure);
  const status = a2aHttpStatus(error);
  return reply
    .code(status)
    .type(A2A_REST_CONTENT_TYPE)
    .send(JSON.stringify(toRestErrorBody(error, status)));
}

/** The SSE form of a REST stream: protobuf-JSON items, A2A REST error bodies. */
const REST_SSE: SseForm<StreamResponse> = {
  item: (value) => JSON.stringify(StreamResponseCodec.toJSON(value)),
  error: (failure) => {
    const error = a2aErrorOf(failure);
    return JSON.stringify(toRestErrorBody(error, a2aHttpStatus(error)));
  },
  refuse: (reply, failure) => sendError(reply, failure),
};

function isStream(value: unknown): value is AsyncGenerator<StreamResponse, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

function queryOf(request: FastifyRequest): Record<string, string> {
  const query = request.query as Record<string, unknown> | undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query ?? {})) if (typeof value === 'string') out[key] = value;
  return out;
}

function whole(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RequestMalformedError(`${name} must be a whole number`);
  return n;
}

const sendMessage: Operation = async (handler, context, _request, body) => {
  const result = await handler.sendMessage(SendMessageRequestCodec.fromJSON(body()), context);
  const payload =
    'messageId' in result
      ? { $case: 'message' as const, value: result }
      : { $case: 'task' as const, value: result };
  return { status: 200, body: SendMessageResponseCodec.toJSON({ payload }) };
};

const streamMessage: Operation = (handler, context, _request, body) =>
  Promise.resolve(handler.sendMessageStream(SendMessageRequestCodec.fromJSON(body()), context));

const listTasks: Operation = async (handler, context, request) => {
  const query = queryOf(request);
  const params = ListTasksRequestCodec.fromJSON({
    ...query,
    ...(query['pageSize'] === undefined ? {} : { pageSize: whole(query['pageSize'], 'pageSize') }),
    ...(query['historyLength'] === undefined
      ? {}
      : { historyLength: whole(query['historyLength'], 'historyLength') }),
    ...(query['includeArtifacts'] === undefined
      ? {}
      : { includeArtifacts: query['includeArtifacts'] === 'true' }),
  });
  const answer = await handler.listTasks(params, context);
  const json = ListTasksResponseCodec.toJSON(answer) as {
    tasks?: { artifacts?: unknown }[];
    nextPageToken?: string;
  };
  if (params.includeArtifacts !== true) for (const task of json.tasks ?? []) delete task.artifacts;
  // A2A §3.1.4: nextPageToken is required (empty on the last page), as the JSON-RPC binding
  // answers it (TCK BIND-EQUIV-002); the codec leaves an empty string out
  json.nextPageToken ??= '';
  return { status: 200, body: json };
};

/** `GET|POST …/tasks/{ref}`: `{id}`, `{id}:cancel` or `{id}:subscribe`. */
function taskOperation(method: 'GET' | 'POST', ref: string): Operation | undefined {
  const colon = ref.lastIndexOf(':');
  const id = colon < 0 ? ref : ref.slice(0, colon);
  const verb = colon < 0 ? '' : ref.slice(colon + 1);
  if (verb === '' && method === 'GET') {
    return async (handler, context, request) => {
      const historyLength = whole(queryOf(request)['historyLength'], 'historyLength');
      const task = await handler.getTask(
        { tenant: '', id, ...(historyLength === undefined ? {} : { historyLength }) },
        context,
      );
      return { status: 200, body: TaskCodec.toJSON(task) };
    };
  }
  if (verb === 'cancel' && method === 'POST') {
    return async (handler, context) => ({
      status: 200,
      body: TaskCodec.toJSON(await handler.cancelTask({ tenant: '', id, metadata: undefined }, context)),
    });
  }
  if (verb === 'subscribe')
    return (handler, context) => Promise.resolve(handler.resubscribe({ tenant: '', id }, context));
  return undefined;
}

/**
 * `…/tasks/{id}/pushNotificationConfigs[/{config}]` (A2A §11, the paths the SDK's own REST
 * server serves): create (POST, 201), list (GET), get (GET), delete (DELETE, 204).
 */
function pushOperation(
  method: 'GET' | 'POST' | 'DELETE',
  taskId: string,
  configId: string | undefined,
): Operation | undefined {
  if (configId === undefined && method === 'POST') {
    return async (handler, context, _request, body) => {
      const params = TaskPushNotificationConfigCodec.fromJSON({ ...body(), tenant: '', taskId });
      const config = await handler.createTaskPushNotificationConfig(params, context);
      return { status: 201, body: TaskPushNotificationConfigCodec.toJSON(config) };
    };
  }
  if (configId === undefined && method === 'GET') {
    return async (handler, context, request) => {
      const query = queryOf(request);
      const pageSize = whole(query['pageSize'], 'pageSize') ?? 0;
      const pageToken = typeof query['pageToken'] === 'string' ? query['pageToken'] : '';
      const answer = await handler.listTaskPushNotificationConfigs(
        { tenant: '', taskId, pageSize, pageToken },
        context,
      );
      return { status: 200, body: ListTaskPushNotificationConfigsResponseCodec.toJSON(answer) };
    };
  }
  if (configId !== undefined && method === 'GET') {
    return async (handler, context) => ({
      status: 200,
      body: TaskPushNotificationConfigCodec.toJSON(
        await handler.getTaskPushNotificationConfig({ tenant: '', taskId, id: configId }, context),
      ),
    });
  }
  if (configId !== undefined && method === 'DELETE') {
    return async (handler, context) => {
      await handler.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: configId }, context);
      return { status: 204, body: undefined };
    };
  }
  return undefined;
}

const extendedCard: Operation = async (handler, context) => ({
  status: 200,
  body: SdkAgentCardCodec.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)),
});

/** Registers the REST routes on `app` (a context that reads bodies as text, after authentication). */
export function registerA2aRestRoutes(app: FastifyInstance, init: A2aRestRoutesInit): void {
  const { runtime } = init;
  // one handler for every request (A2A-29): each request's caller and endpoint ride its context
  const handler = jobTaskHandler({ runtime, ...(init.push === undefined ? {} : { push: init.push }) });

  const run = async (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: A2aEndpoint,
    operation: Operation,
  ) => {
    const version = requestedA2aVersion(request.headers[A2A_VERSION_HEADER]);
    if (version !== '1.0') {
      return sendError(
        reply,
        new VersionNotSupportedError(
          `A2A-Version ${JSON.stringify(version)} is not supported on the HTTP+JSON binding: send A2A-Version: 1.0 (v0.3 clients: use the JSON-RPC binding)`,
        ),
      );
    }
    const body = (): Record<string, unknown> => {
      const text = typeof request.body === 'string' ? request.body : '';
      const value = decodeJsonText(text === '' ? '{}' : text, {
        maxBytes: init.bodyLimitBytes,
        what: 'the A2A request',
      });
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new RequestMalformedError('the request body must be a JSON object');
      }
      return value as Record<string, unknown>;
    };
    const { context, abort } = a2aCallContext(reply, init.callerOf(request), '1.0', endpoint);
    let answer;
    try {
      answer = await operation(handler, context, request, body);
    } catch (error) {
      return sendError(reply, error);
    }
    if (isStream(answer)) return sendSse(reply, answer, REST_SSE, abort, init.track);
    if (answer.status === 204) return reply.code(204).send();
    return reply.code(answer.status).type(A2A_REST_CONTENT_TYPE).send(JSON.stringify(answer.body));
  };

  const endpointOf = (request: FastifyRequest, reply: FastifyReply): A2aEndpoint | undefined => {
    const agentId = (request.params as { id?: string }).id;
    if (agentId === undefined) return nodeEndpoint(runtime, init.nodeId, baseUrlOf(request));
    const endpoint = agentEndpoint(runtime, agentId, baseUrlOf(request));
    if (endpoint === undefined) {
      void sendError(
        reply,
        new RequestMalformedError(`no local agent ${JSON.stringify(agentId)} on this node`),
      );
    }
    return endpoint;
  };

  for (const base of ['/a2a', '/agents/:id/a2a']) {
    const route = (
      method: 'GET' | 'POST' | 'DELETE',
      path: string,
      pick: (request: FastifyRequest) => Operation | undefined,
    ) => {
      app.route({
        method,
        url: `${base}${path}`,
        handler: async (request, reply) => {
          const endpoint = endpointOf(request, reply);
          if (endpoint === undefined) return reply;
          const operation = pick(request);
          if (operation === undefined) {
            return sendError(reply, new RequestMalformedError(`no A2A operation ${method} ${request.url}`));
          }
          return run(request, reply, endpoint, operation);
        },
      });
    };
    route('POST', '/message::send', () => sendMessage);
    route('POST', '/message::stream', () => streamMessage);
    route('GET', '/tasks', () => listTasks);
    for (const method of ['GET', 'POST'] as const) {
      route(method, '/tasks/:ref', (request) =>
        taskOperation(method, (request.params as { ref: string }).ref),
      );
    }
    route('GET', '/extendedAgentCard', () => extendedCard);
    for (const method of ['GET', 'POST'] as const) {
      route(method, '/tasks/:ref/pushNotificationConfigs', (request) =>
        pushOperation(method, (request.params as { ref: string }).ref, undefined),
      );
    }
    for (const method of ['GET', 'DELETE'] as const) {
      route(method, '/tasks/:ref/pushNotificationConfigs/:config', (request) => {
        const { ref, config } = request.params as { ref: string; config: string };
        return pushOperation(method, ref, config);
      });
    }
  }
}
