/**
 * The metrics face (issue 16 item 2; docs/observability.md): `GET /metrics`, the node's meters
 * in the Prometheus text format, on the node's port. Authenticated like the other HTTP faces
 * (D14; a dev node admits anyone) unless `metrics.public: true` opens it (OBS-4). A node
 * assembled without meters answers 404 in the plain `{error: {code, message}}` form.
 */
import { PlexusError } from '../../core/errors.js';
import type { Face, FaceFactory } from '../face.js';
import type { FaceRouteConfig } from '../http/faces.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';
import { httpFaceScope } from '../http/http-face-scope.js';

/** The path of the scrape. */
export const METRICS_PATH = '/metrics';

/** Options of {@link metricsFace}. */
export interface MetricsFaceInit {
  /** Serve `/metrics` without a credential (`metrics.public` in plexus.yaml). @default false */
  readonly public?: boolean;
}

/** The route config: failures answer in the plain (discovery) form. */
const ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

/**
 * The metrics face's factory.
 * @example
 * createNode({ faces: [...defaultFaces(init), metricsFace({ public: true })] });
 */
export function metricsFace(init: MetricsFaceInit = {}): FaceFactory {
  return (components): Face => ({
    name: 'metrics',
    register(server) {
      const scope = httpFaceScope(components, server);
      return registerHttpFaceContext(server.http, scope, {
        authenticate: init.public !== true,
        routes: (context) => {
          context.get(METRICS_PATH, ROUTE, async (_request, reply) => {
            const { metrics } = components;
            if (metrics === undefined) {
              throw new PlexusError('NOT_FOUND', 'this node keeps no metrics');
            }
            const text = await metrics.render();
            return reply.header('content-type', metrics.contentType).send(text);
          });
        },
      });
    },
  });
}
