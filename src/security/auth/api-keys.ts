/**
 * API keys (DESIGN D14): long-lived bearer secrets configured on the node, each mapped to a
 * principal.
 *
 * A key is `plx_` followed by 32 random bytes in unpadded base64url (47 characters). The
 * node stores only the SHA-256 of each key (64 lower-case hex characters), never the key.
 * A presented key is hashed and looked up by its digest; the stored digest is then compared
 * with `crypto.timingSafeEqual`. Timing can at most reveal something about the SHA-256 of a
 * guess, which an attacker cannot steer, so no bit of a stored key leaks.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import { isSha256Hex, sha256Bytes } from '../../core/hash.js';
import { base64UrlProblem, toBase64Url } from '../base64url.js';
import { authError } from './auth-error.js';
import { assertClaimText, normalizeScopes, type Principal } from './principal.js';

/** The prefix of every Plexus API key. */
export const API_KEY_PREFIX = 'plx_';
/** The number of random bytes in an API key. */
export const API_KEY_BYTES = 32;
/** The length of an API key in characters (prefix + 43 base64url characters). */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + Math.ceil((API_KEY_BYTES * 4) / 3);

/** A new API key: give `key` to its holder once, configure the node with `hash`. */
export interface GeneratedApiKey {
  /** The secret key, `plx_…`. */
  readonly key: string;
  /** Its SHA-256, 64 lower-case hex characters: what the node stores. */
  readonly hash: string;
  /** A short public id of the key (the first 12 hex characters of its hash), for logs and revocation. */
  readonly id: string;
}

/** One configured API key. */
export interface ApiKeyEntry {
  /** The key's SHA-256 as 64 lower-case hex characters (from {@link hashApiKey}). */
  readonly hash: string;
  /** The principal id the key authenticates as. */
  readonly subject: string;
  /** Scopes granted, as a list or a space-separated string. */
  readonly scopes?: string | readonly string[];
  /** The tenant the key is bound to. */
  readonly tenant?: string;
  /**
   * A public id for logs and revocation.
   * @default the first 12 hex characters of `hash`
   */
  readonly id?: string;
  /** When the key stops working, in Unix milliseconds; absent = never. */
  readonly expiresAt?: number;
}

/** Options for {@link apiKeyVerifier}. */
export interface ApiKeyVerifierInit {
  /** The configured keys. */
  readonly keys: readonly ApiKeyEntry[];
  /**
   * The clock, in Unix milliseconds (for keys with `expiresAt`).
   * @default Date.now
   */
  readonly now?: () => number;
}

/** Checks presented API keys against the configured set. */
export interface ApiKeyVerifier {
  /** The ids of the configured keys. */
  readonly ids: readonly string[];
  /**
   * Returns the principal of `key`.
   *
   * @throws PlexusError `UNAUTHORIZED` with `details.reason` `malformed` (not `plx_` + 43
   *   base64url characters), `unknown-key` or `expired`.
   */
  verify(key: string): Principal;
}

/** True when `text` has the shape of a Plexus API key (it says nothing of whether it is configured). */
export function isApiKeyFormat(text: unknown): text is string {
  return (
    typeof text === 'string' &&
    text.length === API_KEY_LENGTH &&
    text.startsWith(API_KEY_PREFIX) &&
    base64UrlProblem(text.slice(API_KEY_PREFIX.length), API_KEY_BYTES) === undefined
  );
}

/**
 * Returns the SHA-256 of an API key as 64 lower-case hex characters: the form the node stores.
 *
 * @throws PlexusError `INVALID_PARAMS` when `key` is not a Plexus API key.
 */
export function hashApiKey(key: string): string {
  if (!isApiKeyFormat(key)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an API key is "${API_KEY_PREFIX}" followed by 43 base64url characters; make one with generateApiKey()`,
    );
  }
  return Buffer.from(sha256Bytes(key)).toString('hex');
}

/** Generates a new random API key (32 bytes from the CSPRNG of `node:crypto`). */
export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_PREFIX + toBase64Url(randomBytes(API_KEY_BYTES));
  const hash = hashApiKey(key);
  return { key, hash, id: hash.slice(0, 12) };
}

interface StoredKey {
  readonly digest: Buffer;
  readonly principal: Principal;
  readonly expiresAt: number | undefined;
}

/**
 * Returns a verifier for the configured API keys. Each key's principal (`kind: 'api-key'`,
 * `id` = `subject`, `tokenId` = the key's id) is built once, here.
 *
 * @throws PlexusError `INVALID_PARAMS` when a hash is not 64 lower-case hex characters, a
 *   hash or id appears twice, or a subject, tenant or scope is not acceptable.
 */
export function apiKeyVerifier(init: ApiKeyVerifierInit): ApiKeyVerifier {
  const byHash = new Map<string, StoredKey>();
  const ids = new Set<string>();
  const now = init.now ?? Date.now;
  init.keys.forEach((entry, index) => {
    const where = `API key #${index}`;
    if (!isSha256Hex(entry.hash)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `${where}: "hash" must be the key's SHA-256 as 64 lower-case hex characters (see hashApiKey); never configure the key itself`,
      );
    }
    if (byHash.has(entry.hash))
      throw new PlexusError('INVALID_PARAMS', `${where}: the same key is configured twice`);
    assertClaimText(entry.subject, `${where} subject`);
    if (entry.tenant !== undefined) assertClaimText(entry.tenant, `${where} tenant`);
    const id = entry.id ?? entry.hash.slice(0, 12);
    assertClaimText(id, `${where} id`);
    if (ids.has(id)) throw new PlexusError('INVALID_PARAMS', `${where}: id "${id}" is used by another key`);
    ids.add(id);
    if (entry.expiresAt !== undefined && !Number.isFinite(entry.expiresAt)) {
      throw new PlexusError('INVALID_PARAMS', `${where}: expiresAt must be a time in Unix milliseconds`);
    }
    const principal: Principal = Object.freeze({
      id: entry.subject,
      kind: 'api-key',
      scopes: Object.freeze(normalizeScopes(entry.scopes, `${where} scope`)),
      ...(entry.tenant === undefined ? {} : { tenant: entry.tenant }),
      ...(entry.expiresAt === undefined ? {} : { expiresAt: entry.expiresAt }),
      tokenId: id,
    });
    byHash.set(entry.hash, {
      digest: Buffer.from(entry.hash, 'hex'),
      principal,
      expiresAt: entry.expiresAt,
    });
  });

  return {
    ids: Object.freeze([...ids]),
    verify(key: string): Principal {
      if (!isApiKeyFormat(key)) {
        throw authError(
          'malformed',
          `malformed API key: expected "${API_KEY_PREFIX}" followed by 43 base64url characters`,
        );
      }
      const digest = sha256Bytes(key);
      const stored = byHash.get(Buffer.from(digest).toString('hex'));
      if (stored === undefined || !timingSafeEqual(stored.digest, digest)) {
        throw authError('unknown-key', 'API key refused: it is not configured on this node (or was removed)');
      }
      if (stored.expiresAt !== undefined && now() >= stored.expiresAt) {
        throw authError(
          'expired',
          `API key ${stored.principal.tokenId ?? ''} expired at ${new Date(stored.expiresAt).toISOString()}`,
        );
      }
      return stored.principal;
    },
  };
}
