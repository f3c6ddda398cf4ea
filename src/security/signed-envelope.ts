/**
 * Signed envelopes (DESIGN D3; Hyperspace v2 made precise): the wire shape, signing, and the
 * field-by-field shape check that verification starts with.
 *
 * ```json
 * { "_v": 2, "ts": 1735689600000, "nonce": "<16 bytes b64url>", "from": "did:key:z6Mk…",
 *   "pk": "<32 bytes b64url>", "sig": "<64 bytes b64url>", "dom": "hyperspace/tasks/x", "d": … }
 * ```
 *
 * `dom` is a Plexus addition (see docs/decisions/security.md): the domain the signer signed
 * for, carried so a verifier can tell a wrong-domain envelope from a tampered one. It is
 * covered by the signature through the domain itself, so it adds no trust.
 */
import { randomBytes } from 'node:crypto';
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import { base64UrlProblem, toBase64Url } from './base64url.js';
import { sign, type Ed25519KeyPair } from './ed25519.js';
import { identityFromPublicKey, identityName, type IdentityForm } from './identity.js';
import { payloadDigest, signingDigest } from './signing-digest.js';

/** The signed-envelope format version. */
export const SIGNED_ENVELOPE_VERSION = 2;
/** Bytes of randomness in a nonce. */
export const NONCE_LENGTH = 16;
/** The longest accepted `from`, in characters (a did:key is 56, a PeerId 52). */
export const MAX_FROM_LENGTH = 256;

/** A signed envelope as it travels (JSON). */
export interface SignedEnvelope {
  /** Format version; always 2. */
  readonly _v: 2;
  /** Signing time, Unix milliseconds. */
  readonly ts: number;
  /** 16 random bytes, unpadded base64url. */
  readonly nonce: string;
  /** The signer: the did:key or the PeerId of `pk`. */
  readonly from: string;
  /** The signer's 32-byte Ed25519 public key, unpadded base64url. */
  readonly pk: string;
  /** The 64-byte Ed25519 signature over the signing digest, unpadded base64url. */
  readonly sig: string;
  /** The domain signed for (a Plexus addition; optional). */
  readonly dom?: string;
  /** The payload. */
  readonly d: JsonValue;
}

/** Options for {@link signEnvelope}. */
export interface SignEnvelopeInit {
  /** The signing key. */
  readonly key: Ed25519KeyPair;
  /** The domain: the gossip topic, or `rpcDomain(verb)` for a direct call. */
  readonly domain: string;
  /**
   * Which name of the key goes in `from`.
   * @default 'did'
   */
  readonly from?: IdentityForm;
  /**
   * The clock, Unix ms.
   * @default Date.now
   */
  readonly now?: () => number;
  /** A fixed 16-byte nonce (tests only); random by default. */
  readonly nonce?: Uint8Array;
  /**
   * Whether to carry the signed-for domain in `dom`.
   * @default true
   */
  readonly includeDomain?: boolean;
}

/**
 * Signs the payload `d` for `domain` and returns the signed envelope.
 *
 * @throws PlexusError `INVALID_PARAMS` when `d` is not I-JSON, the domain is invalid, the
 *   clock gives a negative or non-integer time, or a given nonce is not 16 bytes.
 * @example signEnvelope({ hello: 'mesh' }, { key, domain: 'hyperspace/tasks/web-research' })
 */
export function signEnvelope(d: JsonValue, init: SignEnvelopeInit): SignedEnvelope {
  const identity = identityFromPublicKey(init.key.publicKey);
  const from = identityName(identity, init.from ?? 'did');
  const ts = (init.now ?? Date.now)();
  const nonce = init.nonce ?? randomBytes(NONCE_LENGTH);
  if (nonce.byteLength !== NONCE_LENGTH) {
    throw new PlexusError('INVALID_PARAMS', `a nonce must be ${NONCE_LENGTH} bytes, got ${nonce.byteLength}`);
  }
  const digest = signingDigest({ domain: init.domain, ts, nonce, from, payloadDigest: payloadDigest(d) });
  const base = {
    _v: SIGNED_ENVELOPE_VERSION,
    ts,
    nonce: toBase64Url(nonce),
    from,
    pk: identity.publicKeyBase64Url,
    sig: toBase64Url(sign(digest, init.key)),
  } as const;
  return init.includeDomain === false ? { ...base, d } : { ...base, dom: init.domain, d };
}

/** The fields a signed envelope may carry. */
const FIELDS = new Set(['_v', 'ts', 'nonce', 'from', 'pk', 'sig', 'dom', 'd']);

/** Throws the `MALFORMED_ENVELOPE` error for `field`. */
export function malformed(field: string, message: string, cause?: unknown): never {
  throw new PlexusError('MALFORMED_ENVELOPE', `signed envelope field "${field}" ${message}`, {
    details: { field },
    ...(cause === undefined ? {} : { cause }),
  });
}

function describe(value: unknown): string {
  return typeof value === 'number' ? `number ${value}` : typeName(value);
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Checks the shape of a would-be signed envelope, field by field, and returns it typed. It
 * does not check the signature, the signer, the time or the nonce's freshness.
 *
 * @throws PlexusError `MALFORMED_ENVELOPE` with `details.field` naming the first bad field:
 *   not an object, an unknown field, `_v` not 2, `ts` not a non-negative integer, `nonce` /
 *   `pk` / `sig` not canonical base64url of 16 / 32 / 64 bytes, `from` not a non-empty string
 *   of at most 256 characters, `dom` not a non-empty string, or `d` missing.
 */
export function assertSignedEnvelopeShape(value: unknown): SignedEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlexusError(
      'MALFORMED_ENVELOPE',
      `a signed envelope must be a JSON object, got ${typeName(value)}`,
      {
        details: { field: '' },
      },
    );
  }
  const env = value as Record<string, unknown>;
  if (env._v !== SIGNED_ENVELOPE_VERSION) {
    malformed(
      '_v',
      env._v === undefined ? 'is missing; it must be 2' : `must be 2, got ${JSON.stringify(env._v)}`,
    );
  }
  const ts = env.ts;
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) {
    malformed(
      'ts',
      ts === undefined ? 'is missing' : `must be a non-negative integer (Unix ms), got ${describe(ts)}`,
    );
  }
  checkBinary(env, 'nonce', NONCE_LENGTH);
  const from = env.from;
  if (typeof from !== 'string' || from.length === 0 || from.length > MAX_FROM_LENGTH) {
    malformed(
      'from',
      typeof from === 'string'
        ? `must be 1 to ${MAX_FROM_LENGTH} characters, got ${from.length}`
        : from === undefined
          ? 'is missing'
          : `must be a string (a did:key or PeerId), got ${typeName(from)}`,
    );
  }
  checkBinary(env, 'pk', 32);
  checkBinary(env, 'sig', 64);
  const dom = env.dom;
  if (dom !== undefined && (typeof dom !== 'string' || dom.length === 0)) {
    malformed('dom', `must be a non-empty string when present, got ${typeName(dom)}`);
  }
  if (env.d === undefined) malformed('d', 'is missing (the payload; use null for none)');
  // Every field present was checked above; any further key is an unknown field.
  if (Object.keys(env).length !== (dom === undefined ? 7 : 8)) unknownField(env);
  return env as unknown as SignedEnvelope;
}

function unknownField(env: Record<string, unknown>): never {
  for (const key of Object.keys(env)) {
    if (!FIELDS.has(key)) {
      malformed(key, 'is not a signed-envelope field (allowed: _v, ts, nonce, from, pk, sig, dom, d)');
    }
    if (env[key] === undefined) malformed(key, 'is undefined; omit it or give it a JSON value');
  }
  throw new PlexusError('MALFORMED_ENVELOPE', 'a signed envelope has an unexpected set of fields', {
    details: { field: '' },
  });
}

function checkBinary(env: Record<string, unknown>, field: string, bytes: number): void {
  const text = env[field];
  if (typeof text !== 'string') {
    malformed(field, text === undefined ? 'is missing' : `must be a base64url string, got ${typeName(text)}`);
  }
  const problem = base64UrlProblem(text, bytes);
  if (problem !== undefined) malformed(field, problem);
}
