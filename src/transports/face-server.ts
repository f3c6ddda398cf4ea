/**
 * A {@link FaceServer} over a fastify instance: its routes, its shared upgrade paths (one
 * `upgrade` listener on the HTTP server, see `upgrade-router.ts`) and the shared options.
 */
import type { FastifyInstance } from 'fastify';
import type { FaceServer, FaceServerOptions } from './face.js';
import { upgradeRouter } from './upgrade-router.js';

/** A {@link FaceServer} and how to let go of the HTTP server's `upgrade` event. */
export interface OwnedFaceServer extends FaceServer {
  /** Stops routing upgrades. Safe to call twice. */
  closeUpgrades(): void;
}

/**
 * The face server over `app` with `options`.
 * @example
 * const server = faceServer(app, { bodyLimitBytes: 1 << 20, readiness });
 * await esrpFace()(components).register(server);
 */
export function faceServer(app: FastifyInstance, options: FaceServerOptions): OwnedFaceServer {
  const router = upgradeRouter(app.server);
  return {
    http: app,
    options,
    upgrade: (paths, handler) => {
      router.add(paths, handler);
    },
    closeUpgrades: () => {
      router.close();
    },
  };
}
