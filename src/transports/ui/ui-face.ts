/**
 * The dashboard face (issue 16 item 4; docs/observability.md "Dashboard"): `GET /ui/` serves a
 * single-page dashboard written as plain ES modules (the package's `ui/` folder), and
 * `/ui/api/…` the few JSON routes it needs beyond the node's other faces (job rows with verb
 * and tenant, a live feed of every job, the metrics as JSON). The page itself reads the
 * agents from discovery, runs verbs through ESRP and reads the mesh from `/v1/mesh`.
 *
 * The static page holds no data and is served to anyone; every `/ui/api/…` route is
 * authenticated like the other faces (D14; a dev node admits anyone). A browser cannot send a
 * bearer token on navigation, so the page asks for the token once, keeps it in
 * sessionStorage and sends it as `Authorization: Bearer` on each fetch; live streams are read
 * with fetch, not EventSource, for the same reason (OBS-40).
 */
import { PlexusError } from '../../core/errors.js';
import type { Face, FaceFactory } from '../face.js';
import type { FaceRouteConfig } from '../http/faces.js';
import { registerHttpFaceContext } from '../http/http-face-context.js';
import { httpFaceScope } from '../http/http-face-scope.js';
import { loadUiAssets, type UiAsset } from './ui-assets.js';
import { registerUiJobRoutes } from './ui-jobs.js';
import { registerUiTraceRoute } from './ui-trace.js';
import { uiMetricsOf } from './ui-metrics.js';

/** Where the dashboard is served. */
export const UI_PATH = '/ui/';

/** The mesh face's status route: the mesh page reads it when the node serves it. */
const MESH_PATH = '/v1/mesh';

/** Options of {@link uiFace}. */
export interface UiFaceInit {
  /** The folder of the dashboard's files. @default the package's `ui/` */
  readonly assetDir?: string;
}

/** The route config: failures answer in the plain `{error: {code, message}}` form. */
const ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

/**
 * What the page may load and where it may connect: only this node (no CDN, no inline script),
 * and it may not be framed.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

function missing(name: string): PlexusError {
  return new PlexusError(
    'NOT_FOUND',
    `the dashboard has no file ${JSON.stringify(name.slice(0, 80))}; open ${UI_PATH}`,
  );
}

/**
 * The dashboard face's factory.
 * @example
 * createNode({ faces: [...defaultFaces(init), uiFace()] });
 */
export function uiFace(init: UiFaceInit = {}): FaceFactory {
  return (components): Face => ({
    name: 'ui',
    async register(server) {
      const assets: ReadonlyMap<string, UiAsset> = loadUiAssets(init.assetDir);
      const scope = httpFaceScope(components, server);
      await registerHttpFaceContext(server.http, scope, {
        authenticate: false,
        routes: (context) => {
          context.get('/ui', ROUTE, (_request, reply) => reply.redirect(UI_PATH, 302));
          context.get('/ui/:file', ROUTE, (request, reply) => {
            const { file } = request.params as { file?: string };
            const name = file === undefined || file === '' ? 'index.html' : file;
            const asset = assets.get(name);
            if (asset === undefined) {
              if (assets.size === 0) {
                throw new PlexusError('NOT_FOUND', 'the dashboard files are not installed with this node');
              }
              throw missing(name);
            }
            return reply.headers(SECURITY_HEADERS).type(asset.contentType).send(asset.body);
          });
        },
      });
      await registerHttpFaceContext(server.http, scope, {
        authenticate: true,
        routes: (context) => {
          context.get('/ui/api/metrics', ROUTE, async (_request, reply) => {
            const { metrics } = components;
            if (metrics === undefined) throw new PlexusError('NOT_FOUND', 'this node keeps no metrics');
            return reply.header('cache-control', 'no-store').send(uiMetricsOf(metrics));
          });
          context.get('/ui/api/node', ROUTE, (_request, reply) =>
            reply.send({
              node_id: components.nodeId,
              mesh: server.http.hasRoute({ method: 'GET', url: MESH_PATH }),
              metrics: components.metrics !== undefined,
            }),
          );
          registerUiJobRoutes(context, scope);
          registerUiTraceRoute(context, scope);
        },
      });
    },
  });
}
