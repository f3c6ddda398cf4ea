/**
 * Revocation over the wire (DESIGN D7; UCAN 0.10 §6.6; docs/capabilities.md):
 * `POST /v1/capabilities/revocations` with the signed revocation `{iss, revoke, challenge}`
 * (what `plexus ucan revoke` and `createRevocation(key, cid)` make). The route needs an
 * authenticated caller like every route of the faces; the revocation itself must be signed by
 * an issuer of the revoked token's chain. It is recorded as a `ucan.revoked` event and the
 * answer comes once the node's revocations hold it: from then on every chain through that
 * token is refused on every face (cached chains too: revocations are checked on each use).
 *
 * Answers: 201 `{revoked, issuer}` (also for a repeat of the same revocation); errors in the
 * plain `{error: {code, message, details?}}` form — 400 malformed, 401 a challenge that does
 * not verify, 403 a revoker outside the token's chain, 404 when the node does not check
 * capabilities.
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import { parseWireText } from '../../wire/registry.js';
import { bodyText, type FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The path of the revocation route. */
export const REVOCATIONS_PATH = '/v1/capabilities/revocations';

/** The route config of the capability routes (plain error form). */
export const CAPABILITY_ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

/** Registers `POST /v1/capabilities/revocations` on `app`. */
export function registerCapabilityRoutes(app: FastifyInstance, scope: FaceScope): void {
  app.post(REVOCATIONS_PATH, CAPABILITY_ROUTE, async (request, reply) => {
    const gate = scope.components.capabilities;
    if (gate === undefined) {
      throw new PlexusError(
        'NOT_FOUND',
        'this node does not check capability tokens (capabilities.enabled is false): there is nothing to revoke here',
      );
    }
    const text = bodyText(request);
    if (text.trim() === '') {
      throw new PlexusError(
        'INVALID_PARAMS',
        'send the signed revocation {iss, revoke, challenge} as the JSON body (see `plexus ucan revoke`)',
      );
    }
    const message = parseWireText(text);
    const revoked = await gate.revoke(message);
    return reply.code(201).send({ revoked: revoked.revoke, issuer: revoked.iss });
  });
}
