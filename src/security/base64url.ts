/**
 * Strict base64url (RFC 4648 §5, no padding) for the fixed-length binary fields of keys and
 * signed envelopes.
 *
 * Node's own decoder is lenient: it skips characters outside the alphabet and ignores the
 * unused low bits of the last character, so two different strings can decode to the same
 * bytes. Signed envelopes key their replay cache on these strings, so every decode here
 * accepts exactly one spelling per byte string.
 */
import { PlexusError } from '../core/errors.js';
import type { PlexusErrorCode } from '../core/errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** Returns the unpadded base64url text of `bytes`. */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** The number of unpadded base64url characters that encode `byteLength` bytes. */
export function base64UrlLength(byteLength: number): number {
  return Math.ceil((byteLength * 4) / 3);
}

/**
 * Returns the problem with `text` as the canonical unpadded base64url form of exactly
 * `byteLength` bytes, or `undefined` when it is one.
 */
export function base64UrlProblem(text: string, byteLength: number): string | undefined {
  const expected = base64UrlLength(byteLength);
  if (text.length !== expected) {
    return `must be ${expected} base64url characters (${byteLength} bytes, no padding), got ${text.length}`;
  }
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    last = c < 128 ? (VALUE[c] ?? -1) : -1;
    if (last < 0) return `has a character outside the base64url alphabet at position ${i}`;
  }
  const unusedBits = expected * 6 - byteLength * 8;
  if ((last & ((1 << unusedBits) - 1)) !== 0) {
    return 'is not canonical base64url (the unused bits of the last character must be zero)';
  }
  return undefined;
}

/**
 * Decodes canonical unpadded base64url text of exactly `byteLength` bytes.
 *
 * @param what names the value in the error message (e.g. `"pk"`).
 * @param code the error code to throw; `INVALID_PARAMS` unless told.
 * @throws PlexusError `code` with `details: { field: what }` when `text` is not a string, has
 *   the wrong length, a character outside the alphabet, or non-zero unused bits.
 */
export function fromBase64Url(
  text: unknown,
  byteLength: number,
  what: string,
  code: PlexusErrorCode = 'INVALID_PARAMS',
): Buffer {
  if (typeof text !== 'string') {
    throw new PlexusError(code, `${what} must be a base64url string, got ${typeof text}`, {
      details: { field: what },
    });
  }
  const problem = base64UrlProblem(text, byteLength);
  if (problem !== undefined) {
    throw new PlexusError(code, `${what} ${problem}`, { details: { field: what } });
  }
  return Buffer.from(text, 'base64url');
}
