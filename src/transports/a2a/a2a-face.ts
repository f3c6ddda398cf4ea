/**
 * A2A as a node face (issue 14, docs/decisions/a2a.md): the agent cards (public, as A2A
 * discovery expects; signed when the node gives a signer, A2A-4) and the JSON-RPC and HTTP+JSON
 * bindings at `/a2a` and `/agents/{id}/a2a` (authenticated like every face: bearer JWT, API key or UCAN; the
 * tenant comes from the credential), whose tasks are the runtime's jobs.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { Face, FaceComponents, FaceFactory, FaceServer } from '../face.js';
import { runtimePrincipal, silentLogger } from '../face-components.js';
import { refusalOf } from '../http/framework-errors.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';
import { httpFaceScope } from '../http/http-face-scope.js';
import { authenticateHeaders } from '../ucan-credential.js';
import { traceOfRequest, type ServedTrace } from '../trace-headers.js';
import { registerA2aCardRoutes } from './card-routes.js';
import type { A2aCaller, JobTaskHandlerInit } from './job-task-handler.js';
import { PushConfigs } from './push-configs.js';
import { followPushNotifications } from './push-delivery.js';
import type { PushTargetPolicy } from './push-target.js';
import { registerA2aRpcRoutes } from './jsonrpc-routes.js';
import { registerA2aRestRoutes } from './rest-routes.js';

/** JSON-RPC's code of a refusal before dispatch: bad JSON, or anything else about the request. */
function refusalBody(refusal: PlexusError): string {
  const code = refusal.code === 'PARSE_ERROR' ? -32700 : refusal.code === 'UNAUTHORIZED' ? -32600 : -32600;
  return JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code, message: refusal.message, data: [{ plexusCode: refusal.code }] },
  });
}

/** Options of {@link a2aFace}. */
export interface A2aFaceInit {
  /** Where push notifications may be delivered (A2A-12). @default nowhere: every URL refused */
  readonly push?: PushTargetPolicy;
}

/** The trace an HTTP request is served in, as an A2A caller's (OBS-45: with its tracestate). */
function servedCaller(served: ServedTrace): { traceparent: string; tracestate?: string } {
  return {
    traceparent: served.traceparent,
    ...(served.tracestate === undefined ? {} : { tracestate: served.tracestate }),
  };
}

/**
 * The A2A face's factory.
 * @example
 * createNode({ faces: [healthFace(), a2aFace({ push: { allowHosts: ['hooks.example.com'] } })] });
 */
export function a2aFace(init: A2aFaceInit = {}): FaceFactory {
  return (components): Face => {
    const streams = new Set<() => void>();
    const configs = new PushConfigs(components.log);
    const push = { configs, policy: init.push ?? {} };
    const delivering = new AbortController();
    return {
      name: 'a2a',
      async register(server) {
        const scope = httpFaceScope(components, server);
        await registerHttpFaceContext(server.http, scope, {
          authenticate: false,
          routes: (context) => {
            registerA2aCardRoutes(context, components);
          },
        });
        await registerRpcContext(components, server, streams, push);
      },
      async start() {
        await configs.load();
        void followPushNotifications(
          {
            runtime: components.runtime,
            log: components.log,
            configs,
            logger: components.logger ?? silentLogger,
          },
          delivering.signal,
        );
      },
      stop() {
        delivering.abort();
        for (const end of [...streams]) end();
        return Promise.resolve();
      },
    };
  };
}

async function registerRpcContext(
  components: FaceComponents,
  server: FaceServer,
  streams: Set<() => void>,
  push: NonNullable<JobTaskHandlerInit['push']>,
): Promise<void> {
  const { bodyLimitBytes } = server.options;
  const callers = new WeakMap<FastifyRequest, Omit<A2aCaller, 'signal'>>();
  await server.http.register((face: FastifyInstance, _options, done) => {
    face.removeAllContentTypeParsers();
    face.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: bodyLimitBytes },
      (_request, body, parsed) => {
        parsed(null, body);
      },
    );
    face.setErrorHandler((error: FastifyError, request, reply) => {
      const refusal = refusalOf(error, request.url, bodyLimitBytes);
      const status = refusal.code === 'INPUT_TOO_LARGE' ? 413 : refusal.code === 'INTERNAL' ? 500 : 400;
      return reply.code(status).type('application/json').send(refusalBody(refusal));
    });
    face.addHook('onRequest', async (request, reply) => {
      try {
        const credential = await authenticateHeaders(components, request.headers);
        const principal = runtimePrincipal(credential.principal);
        callers.set(request, {
          principal,
          transport: { remoteAddress: request.ip },
          ...servedCaller(traceOfRequest(request.raw)),
          ...(credential.capability === undefined ? {} : { capability: credential.capability }),
        });
      } catch (error) {
        const refusal =
          error instanceof PlexusError
            ? error
            : new PlexusError('UNAUTHORIZED', 'the credential could not be checked');
        reply.header('www-authenticate', 'Bearer');
        return reply.code(401).type('application/json').send(refusalBody(refusal));
      }
    });
    const routes = {
      runtime: components.runtime,
      nodeId: components.nodeId,
      bodyLimitBytes,
      push,
      callerOf: (request: FastifyRequest) => {
        const caller = callers.get(request);
        if (caller === undefined) throw new PlexusError('UNAUTHORIZED', 'the request was not authenticated');
        return caller;
      },
      track: (end: () => void) => {
        streams.add(end);
        return () => streams.delete(end);
      },
    };
    registerA2aRpcRoutes(face, routes);
    registerA2aRestRoutes(face, routes);
    done();
  });
}
