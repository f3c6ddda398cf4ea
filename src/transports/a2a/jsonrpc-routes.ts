/**
 * The A2A JSON-RPC binding (issue 14 item 2, docs/decisions/a2a.md A2A-10): `POST /a2a` (the
 * node's agents) and `POST /agents/{id}/a2a` (one agent), parsed and dispatched by the SDK's
 * framework-agnostic transport handlers over {@link jobTaskHandler}. `A2A-Version: 1.0` is the
 * v1.0 binding (PascalCase methods); no header (or `0.3`) is the v0.3 compatibility layer (slash
 * method names, lower-case states); any other version answers `VersionNotSupported` (−32009).
 * Streaming methods answer `text/event-stream`, one JSON-RPC response per `data:` line.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { VersionNotSupportedError, toJsonRpcError } from '@a2a-js/sdk/errors';
import { A2A_VERSION_HEADER, requestedA2aVersion } from './a2a-version.js';
import { decodeJsonText } from '../../core/bounded-json.js';
import { toPlexusError } from '../../core/errors.js';
import { a2aCallContext } from './a2a-call-context.js';
import { sendSse, type A2aRoutesInit, type SseForm } from './a2a-sse.js';
import { agentEndpoint, baseUrlOf, nodeEndpoint, type A2aEndpoint } from './a2a-endpoint.js';
import { jobTaskHandler, withAgentCard } from './job-task-handler.js';

export { A2A_VERSION_HEADER } from './a2a-version.js';

/** What the routes need from the face. */
export type A2aRpcRoutesInit = A2aRoutesInit;

function rpcError(id: unknown, error: { code: number; message: string; data?: unknown }): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error,
  });
}

function isStream(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/** The SSE form of a JSON-RPC stream answering request `id` (v1.0 or v0.3 error codes). */
function rpcSse(id: unknown, legacy: boolean): SseForm<unknown> {
  const mapped = (error: unknown) =>
    legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) : toJsonRpcError(error);
  return {
    item: (value) => JSON.stringify(value),
    error: (failure) => rpcError(id, mapped(failure)),
    refuse: (reply, failure) => reply.type('application/json').send(rpcError(id, mapped(failure))),
  };
}

/** Registers the JSON-RPC routes on `app` (a context that reads bodies as text). */
export function registerA2aRpcRoutes(app: FastifyInstance, init: A2aRpcRoutesInit): void {
  const { runtime } = init;
  // one handler for every request (A2A-29): each request's caller and endpoint ride its context
  const handler = jobTaskHandler({ runtime, ...(init.push === undefined ? {} : { push: init.push }) });
  const v1 = new JsonRpcTransportHandler(handler);

  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: A2aEndpoint,
  ): Promise<void> => {
    const version = requestedA2aVersion(request.headers[A2A_VERSION_HEADER]);
    const legacy = version === '0.3';
    let body: unknown;
    try {
      body = decodeJsonText(typeof request.body === 'string' ? request.body : '', {
        maxBytes: init.bodyLimitBytes,
        what: 'the A2A request',
      });
    } catch (error) {
      const refusal = toPlexusError(error);
      const code = refusal.code === 'PARSE_ERROR' ? -32700 : -32600;
      await reply.type('application/json').send(rpcError(null, { code, message: refusal.message }));
      return;
    }
    const id = (body as { id?: unknown } | null)?.id;
    const shape = body as { jsonrpc?: unknown; method?: unknown } | null;
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      shape?.jsonrpc !== '2.0' ||
      typeof shape.method !== 'string'
    ) {
      // JSON-RPC 2.0 §5.1: not a Request object is Invalid Request (TCK JSONRPC-FMT-001)
      const message =
        'not a JSON-RPC 2.0 request: send an object with "jsonrpc": "2.0", a string "method" and an "id"';
      const safeId = typeof id === 'string' || typeof id === 'number' ? id : null;
      await reply.type('application/json').send(rpcError(safeId, { code: -32600, message }));
      return;
    }
    if (!legacy && version !== '1.0') {
      const error = new VersionNotSupportedError(
        `A2A-Version ${JSON.stringify(version)} is not supported: this node speaks 1.0 (and 0.3 without the header)`,
      );
      await reply.type('application/json').send(rpcError(id, toJsonRpcError(error)));
      return;
    }
    const { context, abort } = a2aCallContext(
      reply,
      init.callerOf(request),
      legacy ? '0.3' : '1.0',
      endpoint,
    );
    const rpc = body as Record<string, unknown>;
    // the v0.3 layer reads the endpoint's card without a context: a handler of its own
    const answer = legacy
      ? await new LegacyJsonRpcTransportHandler(withAgentCard(handler, endpoint)).handle(rpc, context)
      : await v1.handle(rpc, context);
    if (isStream(answer)) {
      await sendSse(reply, answer, rpcSse(id, legacy), abort, init.track);
      return;
    }
    await reply.type('application/json').send(JSON.stringify(answer));
  };

  app.post('/a2a', (request, reply) =>
    serve(request, reply, nodeEndpoint(runtime, init.nodeId, baseUrlOf(request))),
  );
  app.post('/agents/:id/a2a', (request, reply) => {
    const agentId = (request.params as { id: string }).id;
    const endpoint = agentEndpoint(runtime, agentId, baseUrlOf(request));
    if (endpoint === undefined) {
      return reply
        .code(404)
        .type('application/json')
        .send(
          rpcError(null, { code: -32601, message: `no local agent ${JSON.stringify(agentId)} on this node` }),
        );
    }
    return serve(request, reply, endpoint);
  });
}
