/**
 * The HTTP faces of a node and how a request is told to belong to one: by the route's
 * `config.face`, or for requests that matched no route, by the URL.
 */
import type { FastifyRequest } from 'fastify';

/** The faces served over HTTP, each with its own error form. */
export const HTTP_FACES = ['esrp', 'emergence', 'discovery', 'health'] as const;

/** One of {@link HTTP_FACES}. */
export type HttpFace = (typeof HTTP_FACES)[number];

/** The route config every HTTP-face route carries. */
export interface FaceRouteConfig {
  readonly face: HttpFace;
}

/**
 * The face a URL belongs to: `/v1/…` ESRP (`/v1/execute`, `/v1/jobs…`, and paths under `/v1/`
 * that name no route; the peer route `/v1/peer/…` answers in its own form before this is
 * asked), `/emergence` Emergence, the health probes, anything else discovery (the plain
 * `{error: {code, message}}` form).
 */
export function faceOfUrl(url: string): HttpFace {
  const path = url.split('?')[0] ?? '';
  if (path === '/v1' || path.startsWith('/v1/')) return 'esrp';
  if (path === '/emergence' || path.startsWith('/emergence/')) return 'emergence';
  if (path === '/healthz' || path === '/readyz') return 'health';
  return 'discovery';
}

function isHttpFace(value: unknown): value is HttpFace {
  return typeof value === 'string' && (HTTP_FACES as readonly string[]).includes(value);
}

/** The face of a request: its route's `config.face`, else {@link faceOfUrl}. */
export function faceOfRequest(request: FastifyRequest): HttpFace {
  const config = request.routeOptions.config as Partial<FaceRouteConfig> | undefined;
  return isHttpFace(config?.face) ? config.face : faceOfUrl(request.url);
}
