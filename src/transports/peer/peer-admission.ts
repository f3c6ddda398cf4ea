/**
 * Who a signed node-to-node call runs as (issue 11 item 1, docs/decisions/peer-trust.md): the
 * one admission rule of every face that carries D3-signed calls from other nodes — the HTTP
 * peer route (`POST /v1/peer/invoke`) and the mesh's `/plexus/rpc/1.0.0` stream protocol.
 *
 * - a signer in the trust set relays for the tenant its envelope names (as a `peer`
 *   principal) — unless it also presents a bearer credential bound to a tenant, which then
 *   binds the call's tenant like on any other face;
 * - any other signer only on a node whose faces admit anonymous callers (dev mode, no trust
 *   set configured): it can do no more than an anonymous caller of the other faces;
 * - everything else is refused `FORBIDDEN`.
 */
import { PlexusError } from '../../core/errors.js';
import type { Principal } from '../../runtime/index.js';
import { runtimePrincipal, type FaceComponents } from '../face-components.js';

/** The principal kind of a call forwarded by a peer node. */
export const PEER_PRINCIPAL_KIND = 'peer';

/**
 * The principal a verified signer's call runs as (see the module doc); `authorization` is the
 * bearer credential the call came with, if any.
 *
 * @throws PlexusError `FORBIDDEN` for a signer that is not admitted; `UNAUTHORIZED` for a
 *   trusted signer presenting a bearer credential this node refuses.
 */
export async function admitPeerSigner(
  authorization: string | undefined,
  signer: string,
  components: FaceComponents,
  trusted: ReadonlySet<string> | undefined,
): Promise<Principal> {
  const peer: Principal = { id: signer, kind: PEER_PRINCIPAL_KIND };
  if (trusted?.has(signer) === true) {
    if (authorization === undefined || authorization.trim() === '') return peer;
    // A trusted node relaying with a tenant-bound credential acts for that tenant only.
    const bearer = await components.auth.authenticate(authorization);
    return bearer.tenant === undefined ? peer : runtimePrincipal(bearer);
  }
  if (trusted !== undefined) throw untrustedSigner(signer);
  // No trust set: only a node open to anonymous callers admits an unknown signer. The bearer
  // is deliberately not consulted: it never makes an unknown key's tenant claim true.
  const open = await components.auth.authenticate(undefined).then(
    (p) => p.kind === 'anonymous',
    () => false,
  );
  if (!open) throw untrustedSigner(signer);
  return peer;
}

/** The refusal of a signer this node does not admit. */
export function untrustedSigner(signer: string): PlexusError {
  return new PlexusError(
    'FORBIDDEN',
    `signer ${signer} is not a trusted peer of this node; list its did:key in auth.trustedPeers or as the did of one of the node's peers`,
    { details: { reason: 'untrusted-signer', signer } },
  );
}
