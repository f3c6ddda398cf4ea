/**
 * The content id of an event's hashed body (D9), from its RFC 8785 text: the fast path used
 * when sealing, where the canonical text is already built. It writes the CIDv1 bytes
 * (version 1, `json` codec 0x0200, sha2-256 multihash) and their base32 form directly, which
 * is several times cheaper than going through `multiformats` per event. The result is the
 * same text as the core `eventCid` — verification uses that one, and the tests compare them.
 */
import { sha256Bytes } from '../core/hash.js';

/** The base32 alphabet (RFC 4648, lower case) as character codes. */
const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');

/**
 * `b` + base32 of varint(1) ‖ varint(0x0200) ‖ varint(0x12) ‖ varint(32), the five bytes
 * before the digest. Five bytes are exactly eight base32 characters, so the prefix's text
 * is fixed and the digest's base32 simply follows it.
 */
const PREFIX_TEXT = 'bagaaiera';

/** Characters of a whole CID: the prefix's nine and the digest's 52. */
const CID_LENGTH = PREFIX_TEXT.length + 52;

/** Scratch buffer the CID's characters are written into (one string is made from it). */
const scratch = Buffer.alloc(CID_LENGTH);
scratch.write(PREFIX_TEXT, 0, 'latin1');

/** RFC 4648 base32 (lower case, no padding) of a 32-byte digest, after the fixed prefix. */
function base32Digest(d: Uint8Array): string {
  const a = ALPHABET;
  let o = PREFIX_TEXT.length;
  // Six groups of five bytes: 40 bits, eight characters each.
  for (let i = 0; i < 30; i += 5) {
    const hi = ((d[i] ?? 0) << 12) | ((d[i + 1] ?? 0) << 4) | ((d[i + 2] ?? 0) >>> 4); // 20 bits
    const lo = (((d[i + 2] ?? 0) & 15) << 16) | ((d[i + 3] ?? 0) << 8) | (d[i + 4] ?? 0); // 20 bits
    scratch[o++] = a[hi >>> 15] ?? 0;
    scratch[o++] = a[(hi >>> 10) & 31] ?? 0;
    scratch[o++] = a[(hi >>> 5) & 31] ?? 0;
    scratch[o++] = a[hi & 31] ?? 0;
    scratch[o++] = a[lo >>> 15] ?? 0;
    scratch[o++] = a[(lo >>> 10) & 31] ?? 0;
    scratch[o++] = a[(lo >>> 5) & 31] ?? 0;
    scratch[o++] = a[lo & 31] ?? 0;
  }
  // The last two bytes: 16 bits, three characters and one padded with a zero bit.
  const tail = ((d[30] ?? 0) << 8) | (d[31] ?? 0);
  scratch[o++] = a[tail >>> 11] ?? 0;
  scratch[o++] = a[(tail >>> 6) & 31] ?? 0;
  scratch[o++] = a[(tail >>> 1) & 31] ?? 0;
  scratch[o] = a[(tail & 1) << 4] ?? 0;
  return scratch.toString('latin1', 0, CID_LENGTH);
}

/** CIDv1 (json codec, sha2-256, base32) of the canonical text of an event's hashed body. */
export function eventCidFromCanonical(canonicalText: string): string {
  return base32Digest(sha256Bytes(canonicalText));
}
