/**
 * The bytes a signed envelope's signature covers (DESIGN D3, made byte-exact).
 *
 * ```
 * digest = SHA-256( uvarint(len(domain)) ‖ domain
 *                 ‖ ts as 8-byte big-endian unsigned
 *                 ‖ uvarint(len(nonce)) ‖ nonce
 *                 ‖ uvarint(len(from)) ‖ from
 *                 ‖ SHA-256(JCS(d)) )
 * ```
 *
 * `domain` and `from` are UTF-8; `nonce` is the 16 raw bytes (not their base64url text);
 * lengths are in bytes, as unsigned LEB128 varints (the multiformats varint). The Ed25519
 * signature is made over the 32-byte `digest`.
 */
import { canonicalizeJcs } from '../core/canonical/jcs.js';
import { PlexusError } from '../core/errors.js';
import { sha256Bytes } from '../core/hash.js';
import { LruCache } from './lru-cache.js';

/** The prefix of every direct-call signing domain. */
export const RPC_DOMAIN_PREFIX = 'plexus/rpc/';
/** The longest accepted domain, in UTF-8 bytes. */
export const MAX_DOMAIN_BYTES = 1024;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TWO_POW_32 = 0x1_0000_0000;

/**
 * Returns the signing domain of a direct call of `verb`: `plexus/rpc/<verb>`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `verb` is empty or contains whitespace.
 * @example rpcDomain('memory.search') // 'plexus/rpc/memory.search'
 */
export function rpcDomain(verb: string): string {
  if (typeof verb !== 'string' || verb.length === 0 || /\s/.test(verb)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an RPC signing domain needs a non-empty verb without whitespace`,
    );
  }
  return RPC_DOMAIN_PREFIX + verb;
}

/** The number of bytes of `n` as an unsigned LEB128 varint. */
function uvarintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Writes `n` as an unsigned LEB128 varint at `offset`; returns the offset after it. */
function writeUvarint(buf: Buffer, n: number, offset: number): number {
  while (n >= 0x80) {
    buf[offset++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[offset++] = n;
  return offset;
}

const domainPrefixes = new LruCache<string, Buffer>(1024);

/**
 * Returns `uvarint(len(domain)) ‖ domain` (cached per domain).
 *
 * @throws PlexusError `INVALID_PARAMS` when `domain` is not a non-empty, well-formed string of
 *   at most {@link MAX_DOMAIN_BYTES} UTF-8 bytes.
 */
export function domainPrefix(domain: string): Buffer {
  let prefix = domainPrefixes.get(domain);
  if (prefix === undefined) {
    if (typeof domain !== 'string' || domain.length === 0) {
      throw new PlexusError('INVALID_PARAMS', 'a signing domain must be a non-empty string');
    }
    if (LONE_SURROGATE.test(domain)) {
      throw new PlexusError('INVALID_PARAMS', 'a signing domain must not contain a lone surrogate');
    }
    const bytes = Buffer.from(domain, 'utf8');
    if (bytes.byteLength > MAX_DOMAIN_BYTES) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `a signing domain must be at most ${MAX_DOMAIN_BYTES} UTF-8 bytes, got ${bytes.byteLength}`,
      );
    }
    prefix = Buffer.allocUnsafe(uvarintLength(bytes.byteLength) + bytes.byteLength);
    bytes.copy(prefix, writeUvarint(prefix, bytes.byteLength, 0));
    domainPrefixes.set(domain, prefix);
  }
  return prefix;
}

/**
 * Returns SHA-256 of the RFC 8785 (JCS) form of the payload `d`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `d` is not I-JSON (non-finite number, lone
 *   surrogate, a non-JSON value).
 */
export function payloadDigest(d: unknown): Uint8Array {
  return sha256Bytes(canonicalizeJcs(d));
}

/** The parts of a signed envelope that its signature covers. */
export interface SigningInput {
  /** The gossip topic, or `plexus/rpc/<verb>`. */
  readonly domain: string;
  /** Unix milliseconds, a non-negative safe integer. */
  readonly ts: number;
  /** The raw nonce bytes (16 in a valid envelope). */
  readonly nonce: Uint8Array;
  /** The signer's identity string. */
  readonly from: string;
  /** SHA-256 of JCS(d), 32 bytes (see {@link payloadDigest}). */
  readonly payloadDigest: Uint8Array;
}

/**
 * Returns the signed bytes before the outer hash (the preimage of {@link signingDigest}).
 *
 * @throws PlexusError `INVALID_PARAMS` for an invalid domain, a `ts` that is not a
 *   non-negative safe integer, or a payload digest that is not 32 bytes.
 */
export function signingBytes(input: SigningInput): Buffer {
  const prefix = domainPrefix(input.domain);
  const { ts, nonce, from } = input;
  if (!Number.isSafeInteger(ts) || ts < 0) {
    throw new PlexusError('INVALID_PARAMS', `ts must be a non-negative integer (Unix ms), got ${ts}`);
  }
  if (input.payloadDigest.byteLength !== 32) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the payload digest must be 32 bytes, got ${input.payloadDigest.byteLength}`,
    );
  }
  const fromLength = Buffer.byteLength(from, 'utf8');
  const buf = Buffer.allocUnsafe(
    prefix.byteLength +
      8 +
      uvarintLength(nonce.byteLength) +
      nonce.byteLength +
      uvarintLength(fromLength) +
      fromLength +
      32,
  );
  let off = prefix.copy(buf, 0);
  buf.writeUInt32BE(Math.floor(ts / TWO_POW_32), off);
  buf.writeUInt32BE(ts >>> 0, off + 4);
  off = writeUvarint(buf, nonce.byteLength, off + 8);
  buf.set(nonce, off);
  off = writeUvarint(buf, fromLength, off + nonce.byteLength);
  off += buf.write(from, off, 'utf8');
  buf.set(input.payloadDigest, off);
  return buf;
}

/**
 * Returns the 32-byte digest an envelope signature is made over: SHA-256 of
 * {@link signingBytes}.
 *
 * @throws PlexusError `INVALID_PARAMS` as {@link signingBytes}.
 */
export function signingDigest(input: SigningInput): Uint8Array {
  return sha256Bytes(signingBytes(input));
}

/** Scratch space for {@link envelopeDigest}; digests are computed synchronously, one at a time. */
const scratch = Buffer.allocUnsafe(4096);
/** `uvarint(len(from)) ‖ from` per signer name, as {@link domainPrefix} is per domain. */
const fromPrefixes = new LruCache<string, Buffer>(8192);

function fromPrefix(from: string): Buffer {
  let prefix = fromPrefixes.get(from);
  if (prefix === undefined) {
    const bytes = Buffer.from(from, 'utf8');
    prefix = Buffer.allocUnsafe(uvarintLength(bytes.byteLength) + bytes.byteLength);
    bytes.copy(prefix, writeUvarint(prefix, bytes.byteLength, 0));
    fromPrefixes.set(from, prefix);
  }
  return prefix;
}

/**
 * The verifier's fast path of {@link signingDigest}: the nonce is given as its (already
 * checked, canonical) base64url text and decoded straight into a reused scratch buffer, and
 * the length-prefixed domain and `from` bytes come from small caches, so nothing is
 * allocated but the digest. The caller must have validated `ts`, `nonce` (16 bytes) and
 * `from` (at most 256 characters).
 *
 * @throws PlexusError `INVALID_PARAMS` for an invalid domain.
 */
export function envelopeDigest(
  domain: string,
  ts: number,
  nonceText: string,
  from: string,
  dHash: Uint8Array,
): Uint8Array {
  const dom = domainPrefix(domain);
  const fr = fromPrefix(from);
  const buf = scratch;
  buf.set(dom, 0);
  let off = dom.byteLength;
  const hi = Math.floor(ts / TWO_POW_32);
  const lo = ts >>> 0;
  buf[off] = hi >>> 24;
  buf[off + 1] = (hi >>> 16) & 0xff;
  buf[off + 2] = (hi >>> 8) & 0xff;
  buf[off + 3] = hi & 0xff;
  buf[off + 4] = lo >>> 24;
  buf[off + 5] = (lo >>> 16) & 0xff;
  buf[off + 6] = (lo >>> 8) & 0xff;
  buf[off + 7] = lo & 0xff;
  buf[off + 8] = 16;
  off += 9;
  off += buf.write(nonceText, off, 16, 'base64url');
  buf.set(fr, off);
  off += fr.byteLength;
  buf.set(dHash, off);
  return sha256Bytes(buf.subarray(0, off + 32));
}
