/**
 * SHA-256 hashing for the core layer: the one place core touches `node:crypto`.
 *
 * Strings are hashed as their UTF-8 bytes. The one-shot `crypto.hash` (Node >= 20.12) is
 * used when the runtime has it; otherwise a `Hash` object.
 */
import * as nodeCrypto from 'node:crypto';

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'hex' | 'buffer') => unknown;

const oneShot = (nodeCrypto as { hash?: OneShot }).hash;

/**
 * Returns the SHA-256 digest of `data` (a string is hashed as UTF-8) as 32 raw bytes.
 *
 * @throws never for string / Uint8Array input.
 */
export function sha256Bytes(data: string | Uint8Array): Uint8Array {
  const buf =
    oneShot === undefined
      ? nodeCrypto.createHash('sha256').update(data).digest()
      : (oneShot('sha256', data, 'buffer') as Buffer);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/**
 * Returns the SHA-256 digest of `data` (a string is hashed as UTF-8) as 64 lower-case hex chars.
 *
 * @throws never for string / Uint8Array input.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot === undefined
    ? nodeCrypto.createHash('sha256').update(data).digest('hex')
    : (oneShot('sha256', data, 'hex') as string);
}

/** True when `value` is a SHA-256 digest written as 64 lower-case hex characters. */
export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && value.length === 64 && /^[0-9a-f]{64}$/.test(value);
}
