/**
 * Verification of signed envelopes (DESIGN D3) with a timestamp window and a replay cache.
 *
 * Checks run cheapest first, each failure with its own code:
 *
 * 1. shape — `MALFORMED_ENVELOPE` naming the field;
 * 2. `dom`, when present, equals the expected domain — `SIGNATURE_DOMAIN_MISMATCH`;
 * 3. `from` is the did:key or PeerId of `pk` — `SIGNER_MISMATCH` (`MALFORMED_ENVELOPE` if
 *    `from` is neither kind of name);
 * 4. `|now − ts| ≤ window` and `ts ≥ notBefore` — `SIGNATURE_EXPIRED`;
 * 5. (from, nonce) not seen inside the window — `SIGNATURE_REPLAYED`;
 * 6. the Ed25519 signature over the signing digest — `SIGNATURE_INVALID` (a changed payload,
 *    or a wrong domain when `dom` is absent);
 * 7. only then is the nonce remembered, so forged envelopes cannot fill the cache.
 */
import { verify as cryptoVerify } from 'node:crypto';
import { PlexusError } from '../core/errors.js';
import { clip } from './did-key.js';
import { identityFromBase64Url, publicKeyFromIdentity, type KeyIdentity } from './identity.js';
import { replayCache, replayKey, type ReplayCache } from './replay-cache.js';
import { assertSignedEnvelopeShape, malformed, type SignedEnvelope } from './signed-envelope.js';
import { envelopeDigest, payloadDigest } from './signing-digest.js';

/** Scratch space for the decoded signature; `crypto.verify` is synchronous. */
const sigScratch = Buffer.alloc(64);

/** The default timestamp window: five minutes either side of now (D3). */
export const DEFAULT_WINDOW_MS = 5 * 60 * 1000;

/** Options for {@link envelopeVerifier}. */
export interface EnvelopeVerifierInit {
  /**
   * How far `ts` may be from now, either way, in ms.
   * @default 300000
   */
  readonly windowMs?: number;
  /**
   * The clock, Unix ms.
   * @default Date.now
   */
  readonly now?: () => number;
  /** The replay cache; a private `replayCache()` (200,000 entries) by default. Share one to share state. */
  readonly replayCache?: ReplayCache;
  /**
   * Refuse (`SIGNATURE_EXPIRED`) every envelope whose `ts` is earlier than this, Unix ms. A node
   * sets it to its start time: the replay cache lives in memory, so a nonce seen before a
   * restart is unknown after it, and an envelope signed before the start is refused instead
   * (docs/decisions/peer-trust.md).
   * @default no bound
   */
  readonly notBefore?: number;
}

/** What a successful verification returns. */
export interface VerifiedEnvelope {
  /** The envelope, unchanged. */
  readonly envelope: SignedEnvelope;
  /** The signer's key and names. */
  readonly signer: KeyIdentity;
  /** The domain the signature was checked against. */
  readonly domain: string;
}

/** Verifies signed envelopes against one clock, window and replay cache. */
export interface EnvelopeVerifier {
  /**
   * Verifies `value` (a parsed JSON value) as an envelope signed for `domain`, and records its
   * nonce. Call it once per received envelope.
   *
   * @throws PlexusError `MALFORMED_ENVELOPE`, `SIGNATURE_DOMAIN_MISMATCH`, `SIGNER_MISMATCH`,
   *   `SIGNATURE_EXPIRED`, `SIGNATURE_REPLAYED` or `SIGNATURE_INVALID` (see the module doc);
   *   `INVALID_PARAMS` when `domain` itself is invalid.
   */
  verify(value: unknown, domain: string): VerifiedEnvelope;
  /** The window in ms. */
  readonly windowMs: number;
}

/**
 * Creates a verifier.
 *
 * @throws PlexusError `INVALID_PARAMS` when `windowMs` is not a non-negative integer.
 * @example
 * const verifier = envelopeVerifier();
 * const { signer } = verifier.verify(JSON.parse(text), 'hyperspace/tasks/web-research');
 */
export function envelopeVerifier(init: EnvelopeVerifierInit = {}): EnvelopeVerifier {
  const windowMs = init.windowMs ?? DEFAULT_WINDOW_MS;
  if (!Number.isSafeInteger(windowMs) || windowMs < 0) {
    throw new PlexusError('INVALID_PARAMS', `windowMs must be a non-negative integer, got ${windowMs}`);
  }
  const now = init.now ?? Date.now;
  const cache = init.replayCache ?? replayCache();
  const notBefore = init.notBefore;

  function verify(value: unknown, domain: string): VerifiedEnvelope {
    const env = assertSignedEnvelopeShape(value);
    if (env.dom !== undefined && env.dom !== domain) {
      throw new PlexusError(
        'SIGNATURE_DOMAIN_MISMATCH',
        `signed envelope field "dom": signed for domain "${clip(env.dom)}", expected "${clip(domain)}"`,
        { details: { field: 'dom' } },
      );
    }
    let signer: KeyIdentity;
    try {
      signer = identityFromBase64Url(env.pk);
    } catch (cause) {
      malformed('pk', 'is not a usable Ed25519 public key', cause);
    }
    const from = env.from;
    if (from !== signer.did && from !== signer.peerId) signerMismatch(from, env.pk);

    const t = now();
    const ts = env.ts;
    if (Math.abs(t - ts) > windowMs) {
      const skew = t - ts;
      throw new PlexusError(
        'SIGNATURE_EXPIRED',
        `signed envelope field "ts": ${ts} is ${Math.abs(skew)} ms ${skew > 0 ? 'in the past' : 'in the future'}; the window is ±${windowMs} ms`,
        { details: { field: 'ts' } },
      );
    }
    if (notBefore !== undefined && ts < notBefore) {
      throw new PlexusError(
        'SIGNATURE_EXPIRED',
        `signed envelope field "ts": ${ts} is before this verifier started (${notBefore}); envelopes signed before a node restart are refused, sign again with a fresh ts`,
        { details: { field: 'ts' } },
      );
    }
    const key = replayKey(from, env.nonce);
    const expiresAt = ts + windowMs + 1;
    const status = cache.check(key, expiresAt, t);
    if (status === 'replayed') {
      throw new PlexusError(
        'SIGNATURE_REPLAYED',
        `signed envelope field "nonce": ${env.nonce} from ${clip(from)} was already seen inside the ${windowMs} ms window`,
        { details: { field: 'nonce' } },
      );
    }
    if (status === 'unverifiable') {
      throw new PlexusError(
        'SIGNATURE_EXPIRED',
        `signed envelope field "ts": ${ts} is older than the replay cache can vouch for (it was full and evicted newer entries); sign again with a fresh ts`,
        { details: { field: 'ts' } },
      );
    }

    let dHash: Uint8Array;
    try {
      dHash = payloadDigest(env.d);
    } catch (cause) {
      malformed('d', `is not I-JSON: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
    }
    const digest = envelopeDigest(domain, ts, env.nonce, from, dHash);
    sigScratch.write(env.sig, 0, 64, 'base64url');
    if (!cryptoVerify(null, digest, signer.keyObject, sigScratch)) {
      throw new PlexusError(
        'SIGNATURE_INVALID',
        `signed envelope field "sig": the signature does not match the payload, header fields and domain "${clip(domain)}"`,
        { details: { field: 'sig' } },
      );
    }
    cache.add(key, expiresAt, t);
    return { envelope: env, signer, domain };
  }

  return { verify, windowMs };
}

function signerMismatch(from: string, pk: string): never {
  try {
    publicKeyFromIdentity(from);
  } catch (cause) {
    malformed('from', `is neither a did:key nor an Ed25519 PeerId: ${(cause as Error).message}`, cause);
  }
  throw new PlexusError(
    'SIGNER_MISMATCH',
    `signed envelope field "from": ${clip(from)} is not the did:key or PeerId of pk ${pk}`,
    { details: { field: 'from' } },
  );
}
