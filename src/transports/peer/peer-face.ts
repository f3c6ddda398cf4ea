/**
 * The node-to-node face (`POST /v1/peer/invoke`) as a node face: signed envelopes from the
 * trusted peers (see `peer-routes.ts`), bodies up to the node's body limit.
 */
import type { Face, FaceFactory } from '../face.js';
import { PEER_FACE, registerPeerRoutes } from './peer-routes.js';

/** Options of {@link peerFace}. */
export interface PeerFaceInit {
  /**
   * The peer nodes whose signed calls are admitted (did:key or PeerId); absent = only a dev
   * node admits signed calls (see `PeerRoutesInit.trustedPeers`). @default undefined
   */
  readonly trustedPeers?: readonly string[];
}

/**
 * The peer face's factory.
 *
 * @throws PlexusError `INVALID_PARAMS` (at `register`) when a trusted peer is neither a
 *   did:key nor a PeerId.
 * @example
 * createNode({ faces: [peerFace({ trustedPeers: ['did:key:z6Mk…'] })] });
 */
export function peerFace(init: PeerFaceInit = {}): FaceFactory {
  return (components): Face => ({
    name: PEER_FACE,
    register: (server) =>
      registerPeerRoutes(server.http, components, {
        bodyLimit: server.options.bodyLimitBytes,
        ...(init.trustedPeers === undefined ? {} : { trustedPeers: init.trustedPeers }),
      }),
  });
}
