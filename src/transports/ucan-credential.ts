/**
 * Where a capability token travels on the HTTP and WebSocket faces (docs/capabilities.md,
 * docs/decisions/capabilities.md), and how a face turns a request's credential into a principal
 * and a capability container:
 *
 * - `Authorization: Bearer <ucan>` — the UCAN-as-Bearer-Token convention (ucan-http-bearer-token
 *   v0.3): the entry-point UCAN is the credential *and* the capability; its proofs travel in
 *   one `ucans` header (comma-separated JWTs; `ucan` is read as the same header, after the
 *   spec's ABNF). Proofs the node has seen before may be left out.
 * - `Plexus-Capability: <container>` — a capability container (leaf, then proofs) beside
 *   another credential (a node JWT or an API key in `Authorization`).
 * - A capability in the message itself (an envelope's `capability`, Emergence `_x_capability`,
 *   JSON-RPC `params._x_capability`) wins over both: the face applies it.
 */
import { decodeUnverifiedToken } from '../security/auth/jwt-verifier.js';
import type { Principal as AuthPrincipal } from '../security/auth/principal.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FaceComponents } from './face-components.js';

/** The header carrying the proofs of a bearer UCAN (ucan-http-bearer-token v0.3 §2.2). */
export const UCANS_HEADER = 'ucans';
/** Read as {@link UCANS_HEADER} (the spelling of the spec's ABNF). */
export const UCAN_HEADER_ALIAS = 'ucan';
/** The header carrying a capability container beside a non-UCAN credential. */
export const CAPABILITY_HEADER = 'plexus-capability';

/** What a request carried: its `Authorization` value and the capability headers. */
export interface CarriedCredential {
  /** The `Authorization` header value (`Bearer …`), if any. */
  readonly authorization: string | undefined;
  /** The proofs of a bearer UCAN (the `ucans` header), comma-separated. */
  readonly proofs?: string | undefined;
  /** A capability container beside the credential (`Plexus-Capability`). */
  readonly capability?: string | undefined;
}

/** The principal a credential proved, and the capability container the request carries. */
export interface AuthenticatedCredential {
  readonly principal: AuthPrincipal;
  /** The container to put in the request envelope's `capability` (absent: none carried). */
  readonly capability?: string;
}

/** One header's value as text: several values joined with `, ` (`undefined` when absent or empty). */
export function headerText(value: string | readonly string[] | undefined): string | undefined {
  const text = typeof value === 'string' ? value : value === undefined ? undefined : value.join(', ');
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/**
 * The token of `Authorization: Bearer <token>` when it is a UCAN (a JWT with `ucv`: in the
 * payload since UCAN 0.10, in the header before), else `undefined` (another credential, or none).
 */
export function ucanBearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  const token = match?.[1];
  if (token === undefined || token.split('.').length !== 3) return undefined;
  try {
    const { header, payload } = decodeUnverifiedToken(token);
    return header['ucv'] === undefined && payload['ucv'] === undefined ? undefined : token;
  } catch {
    return undefined;
  }
}

/** The capability container of a bearer UCAN and its proofs (`leaf,proof1,proof2`). */
export function bearerContainer(leaf: string, proofs: string | undefined): string {
  return proofs === undefined ? leaf : `${leaf},${proofs}`;
}

/**
 * Authenticates a request's credential: a bearer UCAN through the node's capability gate
 * (when the node checks capabilities), anything else through the authenticator.
 *
 * @throws PlexusError `UNAUTHORIZED` — from the authenticator (`details.reason`), or for a
 *   UCAN the broken link (`details.reason`, `details.link`, `details.cid`).
 */
export async function authenticateCredential(
  components: Pick<FaceComponents, 'auth' | 'capabilities'>,
  carried: CarriedCredential,
): Promise<AuthenticatedCredential> {
  const explicit = carried.capability;
  const leaf = components.capabilities === undefined ? undefined : ucanBearerToken(carried.authorization);
  if (leaf !== undefined && components.capabilities !== undefined) {
    const container = bearerContainer(leaf, carried.proofs);
    const principal = components.capabilities.authenticate(container);
    return { principal, capability: explicit ?? container };
  }
  const principal = await components.auth.authenticate(carried.authorization);
  return explicit === undefined ? { principal } : { principal, capability: explicit };
}

/**
 * Authenticates the credential an HTTP request carries in its headers: `Authorization` (a node
 * JWT, an API key, or a UCAN with its proofs in `ucans` / `ucan`) and `Plexus-Capability`.
 * @throws PlexusError `UNAUTHORIZED`, as {@link authenticateCredential}.
 */
export function authenticateHeaders(
  components: Pick<FaceComponents, 'auth' | 'capabilities'>,
  headers: IncomingHttpHeaders,
): Promise<AuthenticatedCredential> {
  return authenticateCredential(components, {
    authorization: headers.authorization,
    proofs: headerText(headers[UCANS_HEADER]) ?? headerText(headers[UCAN_HEADER_ALIAS]),
    capability: headerText(headers[CAPABILITY_HEADER]),
  });
}
