/**
 * The content id of an event's hashed body (D9), from its RFC 8785 text: the fast path used
 * when sealing, where the canonical text is already built. It writes the CIDv1 bytes
 * (version 1, `json` codec 0x0200, sha2-256 multihash) and their base32 form directly, which
 * is several times cheaper than going through `multiformats` per event. The result is the
 * same text as the core `eventCid` — verification uses that one, and the tests compare them.
 */
import { createHash } from 'node:crypto';

/** varint(1) ‖ varint(0x0200) ‖ varint(0x12) ‖ varint(32): the bytes before the digest. */
const PREFIX = Uint8Array.of(0x01, 0x80, 0x04, 0x12, 0x20);
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lower case, no padding, with the multibase prefix `b`. */
function base32(bytes: Uint8Array): string {
  let out = 'b';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31] ?? '';
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31] ?? '';
  return out;
}

/** CIDv1 (json codec, sha2-256, base32) of the canonical text of an event's hashed body. */
export function eventCidFromCanonical(canonicalText: string): string {
  const digest = createHash('sha256').update(canonicalText).digest();
  const bytes = new Uint8Array(PREFIX.length + digest.length);
  bytes.set(PREFIX, 0);
  bytes.set(digest, PREFIX.length);
  return base32(bytes);
}
