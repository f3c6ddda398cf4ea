/**
 * Random bytes drawn from a pool filled 4 KiB at a time, and W3C ids (trace and span ids) as
 * lower-case hex made from them. One `randomFillSync` per id cost ~4% of a traced node's CPU (a
 * sync ESRP call starts 15 spans); the pool makes it one call per 512 span ids. Job ids take
 * their random bits from the same pool.
 */
import { randomFillSync } from 'node:crypto';

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** Two lower-case hex digits of a byte (its low 8 bits; `undefined` as 0). */
export function hexByte(byte: number | undefined): string {
  return HEX[(byte ?? 0) & 0xff] ?? '00';
}

/**
 * `n` (1 to 4,096) fresh random bytes: a view of the pool, valid until the next call (read it
 * at once, or copy it).
 */
export function randomPoolBytes(n: number): Uint8Array {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const bytes = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return bytes;
}

/**
 * `bytes` random bytes (1 to 64) as `2 * bytes` lower-case hex characters, never all zeros
 * (W3C Trace Context forbids all-zero trace and span ids).
 */
export function randomHexId(bytes: number): string {
  for (;;) {
    const random = randomPoolBytes(bytes);
    let hex = '';
    let any = 0;
    for (const byte of random) {
      any |= byte;
      hex += hexByte(byte);
    }
    if (any !== 0) return hex;
  }
}
