/**
 * How a UCAN chain travels (DESIGN D7, UCAN §3.2.7, §7.1): the text a request carries in its
 * envelope's `capability` field, and a store that resolves proof CIDs.
 *
 * The container is either
 * - the leaf token followed by its proofs, comma-separated (`leaf,proof1,proof2`; spaces
 *   around commas are ignored; a bare leaf is a container of one) — the form of the UCAN
 *   bearer-token specification's `ucans` header; or
 * - the UCAN canonical JSON collection `{"/": leaf, "<cid>": proof, …}` (§7.1).
 *
 * Proofs are found by CID: first among the tokens the container carries, then in the
 * {@link ProofStore} (tokens seen before, or put there by the node).
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { LruCache } from '../lru-cache.js';
import { ucanError } from './ucan-error.js';
import { ucanCid, type Ucan } from './ucan-token.js';

/** The longest container accepted, in characters. */
export const MAX_CONTAINER_LENGTH = 131_072;

/** A container split into its leaf and the proofs it carries (token texts, not yet decoded). */
export interface CapabilityContainer {
  readonly leaf: string;
  readonly proofs: readonly string[];
}

/** Finds a token by CID. */
export interface ProofResolver {
  /** The token text whose canonical CID is `cid`, or `undefined`. */
  resolve(cid: string): string | undefined;
}

/** A bounded store of tokens by CID. */
export interface ProofStore extends ProofResolver {
  /** Stores a token and returns its CID. */
  add(jwt: string): string;
  /** How many tokens are held. */
  readonly size: number;
}

/**
 * Returns the leaf token text of a container without splitting the rest (the cache fast path).
 *
 * @throws PlexusError `UNAUTHORIZED` (reason `malformed`) for an empty or oversized container.
 */
export function leafOf(container: string): string {
  if (typeof container !== 'string' || container.trim() === '') {
    throw ucanError('malformed', 'malformed capability: it is empty');
  }
  if (container.length > MAX_CONTAINER_LENGTH) {
    throw ucanError(
      'malformed',
      `malformed capability: it is ${container.length} characters; the limit is ${MAX_CONTAINER_LENGTH}`,
    );
  }
  if (container.trimStart().startsWith('{')) return parseCapabilityContainer(container).leaf;
  const comma = container.indexOf(',');
  return (comma === -1 ? container : container.slice(0, comma)).trim();
}

/**
 * Splits a container into its leaf and proofs.
 *
 * @throws PlexusError `UNAUTHORIZED` (reason `malformed`) when it is empty, oversized, has
 *   an empty entry, or is a JSON collection without `"/"` or with a non-string entry.
 */
export function parseCapabilityContainer(container: string): CapabilityContainer {
  if (typeof container !== 'string' || container.trim() === '') {
    throw ucanError('malformed', 'malformed capability: it is empty');
  }
  if (container.length > MAX_CONTAINER_LENGTH) {
    throw ucanError(
      'malformed',
      `malformed capability: it is ${container.length} characters; the limit is ${MAX_CONTAINER_LENGTH}`,
    );
  }
  const text = container.trim();
  if (text.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw ucanError('malformed', 'malformed capability: it starts with "{" but is not JSON', {}, cause);
    }
    if (!isJsonObject(value) || typeof value['/'] !== 'string') {
      throw ucanError(
        'malformed',
        'malformed capability: a JSON collection must map "/" to the leaf token and CIDs to proofs',
      );
    }
    const proofs: string[] = [];
    for (const [key, jwt] of Object.entries(value)) {
      if (typeof jwt !== 'string') {
        throw ucanError(
          'malformed',
          `malformed capability: collection entry ${JSON.stringify(key)} is not a token`,
        );
      }
      if (key !== '/') proofs.push(jwt);
    }
    return { leaf: value['/'], proofs };
  }
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) {
    throw ucanError('malformed', 'malformed capability: an empty entry between commas');
  }
  const [leaf, ...proofs] = parts as [string, ...string[]];
  return { leaf, proofs };
}

/**
 * Writes a container in the comma form: the leaf, then the proofs (duplicates dropped).
 *
 * @throws PlexusError `INVALID_PARAMS` when a token contains a comma or whitespace.
 */
export function encodeCapabilityContainer(
  leaf: string | Ucan,
  proofs: readonly (string | Ucan)[] = [],
): string {
  const texts = [leaf, ...proofs].map((t) => (typeof t === 'string' ? t : t.jwt));
  for (const t of texts) {
    if (/[\s,]/.test(t) || t === '') {
      throw new PlexusError('INVALID_PARAMS', 'a token in a capability container must be a compact JWT');
    }
  }
  return [...new Set(texts)].join(',');
}

/** Writes a container as the UCAN canonical JSON collection (§7.1). */
export function encodeCapabilityCollection(
  leaf: string | Ucan,
  proofs: readonly (string | Ucan)[] = [],
): string {
  const out: Record<string, string> = { '/': typeof leaf === 'string' ? leaf : leaf.jwt };
  for (const p of proofs) {
    const jwt = typeof p === 'string' ? p : p.jwt;
    out[typeof p === 'string' ? ucanCid(p) : p.cid] = jwt;
  }
  return JSON.stringify(out);
}

/**
 * Creates an in-memory proof store holding up to `capacity` tokens (least recently used
 * dropped first).
 *
 * @throws PlexusError `INVALID_PARAMS` when `capacity` is not an integer ≥ 2.
 */
export function proofStore(capacity = 8192): ProofStore {
  const tokens = new LruCache<string, string>(capacity);
  return {
    add(jwt) {
      const cid = ucanCid(jwt);
      tokens.set(cid, jwt);
      return cid;
    },
    resolve: (cid) => tokens.get(cid),
    get size() {
      return tokens.size;
    },
  };
}
