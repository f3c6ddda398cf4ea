/**
 * Verification of a UCAN chain (DESIGN D7; UCAN 0.10 §6), with a cache of verified chains.
 *
 * The token presented (link 0) must be addressed to this node (`aud`) and be inside its time
 * bounds. Then, from the leaf towards the root, every link must: carry a valid EdDSA
 * signature of its `iss`; either be issued by a trusted root (its capabilities are
 * originated there, "parenthood"), or have proofs that hold every capability it grants —
 * resource, ability and caveats, budgets included — (attenuation: a caveat may only gain
 * constraints, see `caveatNarrows`); have proofs (if it names any, a root's link too) that
 * all resolve, are addressed to its issuer (principal alignment) and contain its time bounds
 * (timely delegation); and not be revoked by an issuer of its own chain. A link that lists an
 * ability with an empty caveat array (granted "in no case", UCAN 0.10 §3.2.6.3) is malformed.
 *
 * Verified chains are kept in a bounded LRU keyed by the leaf token (its text, of which its
 * CID is the hash; the leaf's `prf` pins every proof by CID, so the leaf names the whole
 * chain). A cache hit re-checks only the leaf's time bounds and the revocations of every link.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { clip } from '../did-key.js';
import { LruCache } from '../lru-cache.js';
import {
  abilityCovers,
  caveatsCovered,
  capabilityEntries,
  resourceCovers,
  type CapabilityEntry,
} from './capability.js';
import { leafOf, parseCapabilityContainer, type ProofStore } from './chain-container.js';
import { ucanError } from './ucan-error.js';
import { decodeUcan, verifyUcanSignature, type Caveat, type Ucan } from './ucan-token.js';

/** Clock skew allowed on `nbf` / `exp`, seconds (UCAN §3.2.3 recommends ±60). */
export const DEFAULT_UCAN_CLOCK_TOLERANCE_SEC = 60;
/** The deepest chain accepted (links from the leaf to a root). */
export const DEFAULT_MAX_CHAIN_DEPTH = 16;
/** Verified chains kept by default. */
export const DEFAULT_CHAIN_CACHE_SIZE = 4096;

/** What the verifier asks about revocations. */
export interface RevocationCheck {
  /** True when `cid` was revoked by one of `issuers` (the issuers of its own chain). */
  isRevoked(cid: string, issuers: ReadonlySet<string>): boolean;
  /** How many revocations are known (0 lets a cache hit skip the per-link lookups). */
  readonly size: number;
}

/** One link of a verified chain. */
export interface ChainLink {
  readonly cid: string;
  /** 0 for the leaf, 1 for its proofs, … */
  readonly depth: number;
  readonly issuer: string;
  readonly audience: string;
  /** The issuers of this link and of every link it rests on: who may revoke it. */
  readonly issuers: ReadonlySet<string>;
}

/** A verified chain: what the leaf grants, to whom, until when. */
export interface VerifiedChain {
  /** The leaf token. */
  readonly leaf: Ucan;
  /** The leaf's CID. */
  readonly cid: string;
  /** The leaf's issuer: the principal invoking with the token. */
  readonly invoker: string;
  /** The trusted roots the chain rests on. */
  readonly roots: readonly string[];
  /** The leaf's `nbf`, Unix seconds (absent = from the epoch). */
  readonly notBefore?: number;
  /** The leaf's `exp`, Unix seconds (`null` = never). */
  readonly expiresAt: number | null;
  /** The capabilities the leaf grants (every one proven by the chain). */
  readonly capabilities: readonly CapabilityEntry[];
  /** Every link, leaf first. */
  readonly links: readonly ChainLink[];
}

/** Options of {@link ucanVerifier}. */
export interface UcanVerifierInit {
  /** did:keys trusted as roots (the owners of this node's resources): the node's own key and listed roots. */
  readonly roots: readonly string[];
  /** The DID(s) of this node: a presented token's `aud` must be one of them. */
  readonly audience: string | readonly string[];
  /** Resolves proofs the container does not carry; every verified token is added to it. */
  readonly store?: ProofStore;
  /** The revocations to honour. @default none */
  readonly revocations?: RevocationCheck;
  /** Clock skew allowed, seconds. @default 60 */
  readonly clockToleranceSec?: number;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
  /** Verified chains kept. @default 4096 */
  readonly cacheSize?: number;
  /** The deepest chain accepted. @default 16 */
  readonly maxDepth?: number;
}

/** Counters of a verifier (for benchmarks and tests). */
export interface UcanVerifierStats {
  readonly hits: number;
  readonly misses: number;
  readonly signatureChecks: number;
}

/** A verifier of UCAN chains with a cache of verified chains. */
export interface UcanVerifier {
  /** The trusted roots. */
  readonly roots: ReadonlySet<string>;
  /** The accepted audiences. */
  readonly audience: readonly string[];
  /**
   * Verifies a container (see chain-container.ts), from the cache when the leaf was verified
   * before (time bounds and revocations are checked on every call).
   * @throws PlexusError `UNAUTHORIZED` with `details.reason`, `details.link`, `details.cid`.
   */
  verify(container: string): VerifiedChain;
  /** Verifies a container without reading or filling the cache. @throws as {@link verify}. */
  verifyUncached(container: string): VerifiedChain;
  /** Drops every cached chain. */
  clear(): void;
  readonly stats: UcanVerifierStats;
}

function linkDetails(depth: number, cid: string): JsonObject {
  return { link: depth, cid };
}

function atLink(error: unknown, depth: number, cid: string | undefined): PlexusError {
  const e =
    error instanceof PlexusError ? error : new PlexusError('INTERNAL', String(error), { cause: error });
  if (e.details?.['link'] !== undefined) return e;
  const where = cid === undefined ? `link ${depth}` : `link ${depth} (${cid})`;
  return new PlexusError(e.code, `UCAN chain refused at ${where}: ${e.message}`, {
    cause: e,
    details: { ...(e.details ?? {}), link: depth, ...(cid === undefined ? {} : { cid }) },
  });
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

function describe(entry: CapabilityEntry): string {
  return `${entry.ability} on ${entry.resource}`;
}

/**
 * Creates a UCAN chain verifier (see the module comment for the rules).
 *
 * @throws PlexusError `INVALID_PARAMS` when no root or audience is given, or an option is out of range.
 * @example
 * const verifier = ucanVerifier({ roots: [nodeDid], audience: nodeDid });
 * const chain = verifier.verify(envelope.capability);
 */
export function ucanVerifier(init: UcanVerifierInit): UcanVerifier {
  const roots = new Set(init.roots);
  const audience = typeof init.audience === 'string' ? [init.audience] : [...init.audience];
  if (roots.size === 0)
    throw new PlexusError('INVALID_PARAMS', 'ucanVerifier needs at least one trusted root did:key');
  if (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === '')) {
    throw new PlexusError('INVALID_PARAMS', "ucanVerifier needs this node's DID as audience");
  }
  const tolerance = init.clockToleranceSec ?? DEFAULT_UCAN_CLOCK_TOLERANCE_SEC;
  const maxDepth = init.maxDepth ?? DEFAULT_MAX_CHAIN_DEPTH;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new PlexusError('INVALID_PARAMS', `clockToleranceSec must be >= 0, got ${tolerance}`);
  }
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) {
    throw new PlexusError('INVALID_PARAMS', `maxDepth must be an integer >= 1, got ${maxDepth}`);
  }
  const now = init.now ?? Date.now;
  const cache = new LruCache<string, VerifiedChain>(init.cacheSize ?? DEFAULT_CHAIN_CACHE_SIZE);
  const stats = { hits: 0, misses: 0, signatureChecks: 0 };
  const revocations = init.revocations;

  function checkTime(leaf: { nbf?: number; exp: number | null }, cid: string): void {
    const sec = now() / 1000;
    if (leaf.exp !== null && sec > leaf.exp + tolerance) {
      throw ucanError('expired', `UCAN refused: it expired at ${iso(leaf.exp)}`, linkDetails(0, cid));
    }
    if (leaf.nbf !== undefined && sec < leaf.nbf - tolerance) {
      throw ucanError(
        'not-yet-valid',
        `UCAN refused: it is not valid before ${iso(leaf.nbf)}`,
        linkDetails(0, cid),
      );
    }
  }

  function checkRevoked(links: readonly ChainLink[]): void {
    if (revocations === undefined || revocations.size === 0) return;
    for (const link of links) {
      if (revocations.isRevoked(link.cid, link.issuers)) {
        throw ucanError(
          'revoked',
          `UCAN chain refused at link ${link.depth} (${link.cid}): it was revoked by an issuer of its chain`,
          linkDetails(link.depth, link.cid),
        );
      }
    }
  }

  function full(container: string): VerifiedChain {
    const { leaf: leafText, proofs } = parseCapabilityContainer(container);
    let leaf: Ucan;
    try {
      leaf = decodeUcan(leafText);
    } catch (error) {
      throw atLink(error, 0, undefined);
    }
    if (!audience.includes(leaf.payload.aud)) {
      throw ucanError(
        'audience',
        `UCAN refused: it is addressed to ${clip(leaf.payload.aud)}, not to this node (${audience.join(', ')}); delegate a token to this node's DID`,
        linkDetails(0, leaf.cid),
      );
    }
    checkTime(leaf.payload, leaf.cid);
    const carried = new Map<string, string>();
    for (const p of proofs) {
      try {
        carried.set(decodeUcan(p).cid, p);
      } catch {
        // A carried token that does not decode is ignored unless a link needs it (then: missing).
      }
    }
    const links: ChainLink[] = [];
    const rootsUsed = new Set<string>();

    /** Verifies `ucan` and the chain under it; returns the issuers of that chain. */
    function check(ucan: Ucan, depth: number, path: ReadonlySet<string>): ReadonlySet<string> {
      const { payload, cid } = ucan;
      if (depth >= maxDepth || path.has(cid)) {
        throw ucanError(
          'too-deep',
          `UCAN chain refused: it is deeper than ${maxDepth} links or has a cycle`,
          linkDetails(depth, cid),
        );
      }
      stats.signatureChecks++;
      if (!verifyUcanSignature(ucan)) {
        throw ucanError(
          'signature',
          `UCAN chain refused at link ${depth} (${cid}): its signature does not verify against its issuer ${payload.iss}; it was forged or altered`,
          linkDetails(depth, cid),
        );
      }
      const issuers = new Set([payload.iss]);
      const byRoot = roots.has(payload.iss);
      if (byRoot) {
        rootsUsed.add(payload.iss);
      } else if (payload.prf.length === 0) {
        throw ucanError(
          'untrusted-root',
          `UCAN chain refused at link ${depth} (${cid}): its issuer ${payload.iss} is not a trusted root and it has no proofs`,
          { ...linkDetails(depth, cid), issuer: payload.iss },
        );
      }
      // A root's token needs no proof for what it grants (parenthood), but the proofs it names
      // are held to the same rules as any other (alignment, time bounds, signatures).
      const held: CapabilityEntry[] = [];
      const inner = new Set(path).add(cid);
      for (const proofCid of payload.prf) {
        const text = carried.get(proofCid) ?? init.store?.resolve(proofCid);
        if (text === undefined) {
          throw ucanError(
            'missing-proof',
            `UCAN chain refused at link ${depth} (${cid}): its proof ${proofCid} was not sent with it and is not known here; send the whole chain`,
            { ...linkDetails(depth + 1, proofCid) },
          );
        }
        let proof: Ucan;
        try {
          proof = decodeUcan(text);
        } catch (error) {
          throw atLink(error, depth + 1, proofCid);
        }
        if (proof.payload.aud !== payload.iss) {
          throw ucanError(
            'principal-alignment',
            `UCAN chain refused at link ${depth + 1} (${proofCid}): it was delegated to ${clip(proof.payload.aud)}, but link ${depth} is issued by ${payload.iss}`,
            linkDetails(depth + 1, proofCid),
          );
        }
        const pn = proof.payload.nbf ?? 0;
        const cn = payload.nbf ?? 0;
        const pe = proof.payload.exp;
        const ce = payload.exp;
        if (pn > cn || (pe !== null && (ce === null || pe < ce))) {
          throw ucanError(
            'time-widened',
            `UCAN chain refused at link ${depth} (${cid}): its time bounds reach outside those of its proof ${proofCid}`,
            linkDetails(depth, cid),
          );
        }
        for (const i of check(proof, depth + 1, inner)) issuers.add(i);
        held.push(...capabilityEntries(proof.payload.cap));
      }
      if (!byRoot) {
        for (const entry of capabilityEntries(payload.cap)) {
          const covering = held.filter(
            (h) => resourceCovers(h.resource, entry.resource) && abilityCovers(h.ability, entry.ability),
          );
          const caveats: Caveat[] = covering.flatMap((h) => h.caveats);
          if (covering.length === 0 || !caveatsCovered(caveats, entry.caveats)) {
            throw ucanError(
              'widened',
              covering.length === 0
                ? `UCAN chain refused at link ${depth} (${cid}): it grants ${describe(entry)}, which its proofs do not hold`
                : `UCAN chain refused at link ${depth} (${cid}): its caveats on ${describe(entry)} are wider than its proofs' (a delegation may only add or tighten caveats)`,
              { ...linkDetails(depth, cid), resource: entry.resource, ability: entry.ability },
            );
          }
        }
      }
      links.push({ cid, depth, issuer: payload.iss, audience: payload.aud, issuers });
      if (revocations !== undefined && revocations.size > 0 && revocations.isRevoked(cid, issuers)) {
        throw ucanError(
          'revoked',
          `UCAN chain refused at link ${depth} (${cid}): it was revoked by an issuer of its chain`,
          linkDetails(depth, cid),
        );
      }
      return issuers;
    }

    check(leaf, 0, new Set());
    links.sort((a, b) => a.depth - b.depth);
    if (init.store !== undefined) {
      init.store.add(leaf.jwt);
      for (const link of links) {
        const text = carried.get(link.cid);
        if (text !== undefined) init.store.add(text);
      }
    }
    return {
      leaf,
      cid: leaf.cid,
      invoker: leaf.payload.iss,
      roots: [...rootsUsed],
      ...(leaf.payload.nbf === undefined ? {} : { notBefore: leaf.payload.nbf }),
      expiresAt: leaf.payload.exp,
      capabilities: capabilityEntries(leaf.payload.cap),
      links,
    };
  }

  return {
    roots,
    audience,
    verify(container) {
      // Keyed by the leaf's text, which its CID is a hash of: one string lookup instead of a
      // SHA-256 per request (the same chain either way — the leaf's prf pins every proof).
      const key = leafOf(container);
      const hit = cache.get(key);
      if (hit !== undefined) {
        stats.hits++;
        checkTime(hit.leaf.payload, hit.cid);
        checkRevoked(hit.links);
        return hit;
      }
      stats.misses++;
      const chain = full(container);
      cache.set(key, chain);
      return chain;
    },
    verifyUncached: full,
    clear: () => {
      cache.clear();
    },
    get stats() {
      return { ...stats };
    },
  };
}
