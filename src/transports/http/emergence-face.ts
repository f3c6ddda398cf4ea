/**
 * The Emergence face (seed 000, D4) as a node face: `POST /emergence`, every request
 * authenticated (D14), HELLO registrations without an endpoint expiring after `helloTtlMs`.
 */
import type { FaceFactory } from '../face.js';
import { registerEmergenceRoute } from './emergence-route.js';
import { httpFace } from './http-face.js';

/** Options of {@link emergenceFace}. */
export interface EmergenceFaceInit {
  /** How long an agent registered by a HELLO without `_x_endpoint` stays registered, ms. @default 300000 */
  readonly helloTtlMs?: number;
  /** The clock of HELLO expiry, Unix ms (tests inject one). @default Date.now */
  readonly now?: () => number;
}

/**
 * The Emergence face's factory.
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad `helloTtlMs`.
 * @example
 * createNode({ faces: [emergenceFace({ helloTtlMs: 60_000 })] });
 */
export function emergenceFace(init: EmergenceFaceInit = {}): FaceFactory {
  return httpFace('emergence', (context, scope) => {
    registerEmergenceRoute(context, scope, {
      ...(init.helloTtlMs === undefined ? {} : { ttlMs: init.helloTtlMs }),
      ...(init.now === undefined ? {} : { now: init.now }),
    });
  });
}
