/**
 * Random W3C ids (trace and span ids) as lower-case hex, drawn from a pool of random bytes
 * filled 4 KiB at a time. One `randomFillSync` per id cost ~4% of a traced node's CPU (a
 * sync ESRP call starts 15 spans); the pool makes it one call per 512 span ids.
 */
import { randomFillSync } from 'node:crypto';

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/**
 * `bytes` random bytes (1 to 64) as `2 * bytes` lower-case hex characters, never all zeros
 * (W3C Trace Context forbids all-zero trace and span ids).
 */
export function randomHexId(bytes: number): string {
  for (;;) {
    if (poolAt + bytes > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    let hex = '';
    let any = 0;
    for (let i = poolAt; i < poolAt + bytes; i++) {
      const byte = pool[i] ?? 0;
      any |= byte;
      hex += HEX[byte] ?? '00';
    }
    poolAt += bytes;
    if (any !== 0) return hex;
  }
}
