/**
 * The HTTP server of a node's faces (D15: one port) and their lifecycle: the fastify server
 * with what covers every face — framework errors and unrouted requests answered in the form of
 * the face the URL belongs to, the admission hook ahead of every face (load shedding), trace
 * headers on every answer, the root 404 and error handlers — then the faces, registered in
 * order, started in order once the server listens and stopped in reverse order.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { PlexusError, toPlexusError } from '../core/errors.js';
import type { Admission } from './admission.js';
import type { Face, FaceComponents, FaceFactory, FaceReadiness } from './face.js';
import { silentLogger } from './face-components.js';
import { faceServer, type OwnedFaceServer } from './face-server.js';
import { registerAdmission } from './http/admission-hook.js';
import { FaceScope, httpFacesSettings } from './http/face-scope.js';
import { registerFallbackHandlers } from './http/fallback-handlers.js';
import { faceFrameworkErrors } from './http/framework-errors.js';
import { registerTraceHeaders } from './http/trace-hook.js';

/** Options of {@link faceHost}. */
export interface FaceHostInit {
  /** What every face is given. */
  readonly components: FaceComponents;
  /** The largest request body or message, bytes. */
  readonly bodyLimitBytes: number;
  /** The node's readiness (`GET /readyz`). */
  readonly readiness: FaceReadiness;
  /** The node's load shedding; absent = no bounds. */
  readonly admission?: Admission;
  /** TLS certificate and key (PEM): the server then speaks HTTPS / WSS. */
  readonly https?: { readonly cert: Buffer; readonly key: Buffer };
}

/** The faces of a node on their HTTP server. */
export interface FaceHost {
  /** The fastify server (listen on it; close it to stop serving HTTP). */
  readonly app: FastifyInstance;
  /** The registered faces, in registration order. */
  readonly faces: readonly Face[];
  /**
   * Makes a face from `factory` and registers it.
   * @throws PlexusError `INVALID_PARAMS` when a face of that name is registered already; the
   *   face's own errors.
   */
  add(factory: FaceFactory): Promise<Face>;
  /** Starts the registered faces, in order (after the server listens). */
  start(): Promise<void>;
  /**
   * Stops the registered faces in reverse order (a face's failure is logged, the others still
   * stop) and lets go of the server's upgrades. Safe to call twice.
   */
  stop(): Promise<void>;
}

/**
 * The HTTP server of the faces, with nothing registered yet.
 * @throws PlexusError `INVALID_PARAMS` for a bad `bodyLimitBytes`.
 * @example
 * const host = faceHost({ components, bodyLimitBytes: 1 << 20, readiness });
 * for (const face of defaultFaces(init)) await host.add(face);
 * await host.app.listen({ port: 0 });
 * await host.start();
 * // …
 * await host.stop(); await host.app.close();
 */
export function faceHost(init: FaceHostInit): FaceHost {
  const { components, bodyLimitBytes } = init;
  const nodeId = components.nodeId;
  const logger = components.logger ?? silentLogger;
  const root = new FaceScope(components, httpFacesSettings({ bodyLimitBytes }));
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    logger: false,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // A bad URL or an over-long path parameter is answered in its face's form too.
    frameworkErrors: faceFrameworkErrors({ nodeId, bodyLimitBytes }),
    ...(init.https === undefined ? {} : { https: init.https }),
  }) as unknown as FastifyInstance;
  // Load shedding: bounds on work in flight, checked before any face decodes a request.
  if (init.admission !== undefined) registerAdmission(app, init.admission, nodeId);
  registerTraceHeaders(app, components.tracing); // every answer names its trace (W3C traceparent)
  registerFallbackHandlers(app, root);
  const server: OwnedFaceServer = faceServer(app, {
    bodyLimitBytes,
    readiness: init.readiness,
    ...(init.admission === undefined ? {} : { admission: init.admission }),
  });
  const faces: Face[] = [];
  let stopping: Promise<void> | undefined;

  const stopAll = async (): Promise<void> => {
    for (const face of [...faces].reverse()) {
      try {
        await face.stop?.();
      } catch (error) {
        logger.warn({ face: face.name, err: toPlexusError(error).message }, 'a face failed to stop');
      }
    }
    server.closeUpgrades();
  };

  return {
    app,
    faces,
    async add(factory) {
      const face = factory(components);
      if (faces.some((f) => f.name === face.name)) {
        throw new PlexusError('INVALID_PARAMS', `two faces are named ${JSON.stringify(face.name)}`, {
          details: { face: face.name },
        });
      }
      // Listed first: a face that fails half-way through registering is still stopped.
      faces.push(face);
      await face.register(server);
      return face;
    },
    async start() {
      for (const face of faces) await face.start?.();
    },
    stop() {
      stopping ??= stopAll();
      return stopping;
    },
  };
}
