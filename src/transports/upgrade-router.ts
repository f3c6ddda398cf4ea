/**
 * One `upgrade` listener on a node's HTTP server that hands each WebSocket upgrade to the face
 * that claimed its path ({@link FaceServer.upgrade}), so several faces share the server's
 * `upgrade` event. An upgrade on a path nobody claimed is refused with HTTP 404.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PlexusError } from '../core/errors.js';
import type { UpgradeHandler } from './face.js';
import { traceResponseHeaders } from './trace-headers.js';
import { refuseUpgrade, upgradeUrl } from './ws-jsonrpc/upgrade.js';

/** The upgrade paths of a server and who answers each. */
export interface UpgradeRouter {
  /**
   * Claims `paths` for `handler`.
   * @throws PlexusError `INVALID_PARAMS` when a path is already claimed or does not start with `/`.
   */
  add(paths: readonly string[], handler: UpgradeHandler): void;
  /** Stops listening to the server's `upgrade` event. Safe to call twice. */
  close(): void;
}

/**
 * Routes the `upgrade` events of `server` by path. It listens from the first {@link
 * UpgradeRouter.add} on.
 *
 * @example
 * const router = upgradeRouter(app.server);
 * router.add(['/', '/rpc'], (request, socket, head) => wss.handleUpgrade(…));
 */
export function upgradeRouter(server: Server): UpgradeRouter {
  const routes = new Map<string, UpgradeHandler>();
  let listening = false;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = upgradeUrl(request);
    const handler = routes.get(url.pathname);
    if (handler !== undefined) {
      handler(request, socket, head);
      return;
    }
    refuseUpgrade(
      socket,
      404,
      {
        code: 'NOT_FOUND',
        message: `no WebSocket endpoint at ${url.pathname}; connect to ${[...routes.keys()].join(' or ')}`,
        retryable: false,
      },
      traceResponseHeaders(request),
    );
  };
  return {
    add(paths, handler) {
      for (const path of paths) {
        if (!path.startsWith('/') || routes.has(path)) {
          throw new PlexusError(
            'INVALID_PARAMS',
            routes.has(path)
              ? `the WebSocket path ${path} is claimed by another face`
              : `a WebSocket path must start with "/", got ${JSON.stringify(path)}`,
          );
        }
      }
      for (const path of paths) routes.set(path, handler);
      if (!listening) {
        listening = true;
        server.on('upgrade', onUpgrade);
      }
    },
    close() {
      if (!listening) return;
      listening = false;
      server.off('upgrade', onUpgrade);
    },
  };
}
