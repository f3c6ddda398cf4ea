/**
 * The {@link FaceScope} of one HTTP face on a node's {@link FaceServer}: the node's body
 * limit and readiness, with the face's own options on top.
 */
import type { FaceComponents, FaceServer } from '../face.js';
import { FaceScope, httpFacesSettings, type HttpFacesInit } from './face-scope.js';

/**
 * The scope of an HTTP face registered on `server`.
 * @throws PlexusError `INVALID_PARAMS` for a bad option (`heartbeatMs`).
 */
export function httpFaceScope(
  components: FaceComponents,
  server: FaceServer,
  init: Pick<HttpFacesInit, 'heartbeatMs'> = {},
): FaceScope {
  const { bodyLimitBytes, readiness } = server.options;
  return new FaceScope(
    components,
    httpFacesSettings({
      bodyLimitBytes,
      ...(init.heartbeatMs === undefined ? {} : { heartbeatMs: init.heartbeatMs }),
      ready: () => readiness.ready(),
      unreadyReason: () => readiness.unreadyReason(),
    }),
  );
}
