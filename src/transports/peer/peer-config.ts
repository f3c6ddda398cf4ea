/**
 * How a node names its peer nodes (issue 3 item 5): a base URL, optionally the peer's
 * node identity (its did:key, which also makes the peer a trusted signer) and a bearer
 * token for the peer's faces. Also the trust set the receiving side checks signers against.
 */
import { PlexusError } from '../../core/errors.js';
import { REMOTE_PEER_EXTENSION } from '../../runtime/routing/index.js';
import { didKeyFromPublicKey } from '../../security/did-key.js';
import { publicKeyFromIdentity } from '../../security/identity.js';

/** One peer node as configured (`peers:` in the node config). */
export interface PeerConfig {
  /** The peer's base URL, `http(s)://host:port` (a path prefix is kept; a trailing `/` is dropped). */
  readonly url: string;
  /**
   * The peer node's identity (did:key or PeerId). The node assembly adds it to the trusted
   * signers of `POST /v1/peer/invoke`, so listing a peer with its id admits its calls.
   */
  readonly did?: string;
  /** A bearer token (JWT or API key) the peer issued to this node, sent with every request to it. */
  readonly token?: string;
}

/** The extension key a remote card carries naming the peer it was learned from (the router reads it too). */
export const PEER_EXTENSION = REMOTE_PEER_EXTENSION;

/** The path of the receiving side of node-to-node calls. */
export const PEER_INVOKE_PATH = '/v1/peer/invoke';

/**
 * Where a peer's own cards are listed: the public discovery face, asked for local cards only
 * (the directory also drops any `remote` card a peer lists anyway).
 */
export const PEER_AGENTS_PATH = '/agents?origin=local';

/** The request header carrying the per-attempt timeout, ms (optional). */
export const PEER_TIMEOUT_HEADER = 'plexus-timeout-ms';

/**
 * Returns the peer's URL without a trailing `/`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `url` is not an absolute http(s) URL, or carries a
 *   query, fragment or credentials.
 */
export function normalizePeerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `peer url ${JSON.stringify(url)} is not an absolute URL`, {
      cause,
      details: { url },
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `peer url ${JSON.stringify(url)} must use http or https, not ${parsed.protocol}`,
      { details: { url } },
    );
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `peer url ${JSON.stringify(url)} must not carry a query, fragment or credentials (use "token")`,
      { details: { url } },
    );
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/**
 * Returns the did:key of a did:key or Ed25519 PeerId.
 *
 * @throws PlexusError `INVALID_PARAMS` when `id` is neither.
 */
export function peerDid(id: string): string {
  return didKeyFromPublicKey(publicKeyFromIdentity(id));
}

/** The did:key of `id`, or `undefined` when `id` names no Ed25519 key. */
export function tryPeerDid(id: string): string | undefined {
  try {
    return peerDid(id);
  } catch {
    return undefined;
  }
}

/**
 * Builds the trusted-signer set from did:key / PeerId entries (normalised to did:key).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the first entry that is neither.
 */
export function trustSet(ids: readonly string[]): ReadonlySet<string> {
  const set = new Set<string>();
  for (const id of ids) {
    try {
      set.add(peerDid(id));
    } catch (cause) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `trusted peer ${JSON.stringify(id)} is neither a did:key nor an Ed25519 PeerId`,
        { cause, details: { peer: id } },
      );
    }
  }
  return set;
}
