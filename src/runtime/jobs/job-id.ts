/**
 * Job ids: UUID version 7 (RFC 9562) — a 48-bit Unix-millisecond timestamp, then a 12-bit
 * counter, then 62 random bits — so ids made later sort later. The log indexes events by
 * their causation (a job's id) to read back finished jobs the jobs projection no longer
 * keeps; with time-ordered ids that index grows at its right edge, which keeps an append as
 * cheap as without it (random v4 ids made every insert ~3x dearer: Perf-P3-003).
 */
import { hexByte as hex, randomPoolBytes } from '../../core/random-hex.js';

let lastMs = -1;
let counter = 0;

/**
 * A new job id: a lower-case hyphenated UUID v7, strictly increasing within this process
 * (ids made in the same millisecond differ in their counter; when 4,096 are made in one
 * millisecond the timestamp moves on by one).
 */
export function newJobId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const r = randomPoolBytes(8); // read at once: the pool's view
  const ms = lastMs;
  const high = Math.floor(ms / 0x10000); // top 32 bits of the 48-bit timestamp
  const low = ms % 0x10000; // bottom 16 bits
  return (
    hex((high >>> 24) & 0xff) +
    hex((high >>> 16) & 0xff) +
    hex((high >>> 8) & 0xff) +
    hex(high & 0xff) +
    '-' +
    hex(low >>> 8) +
    hex(low & 0xff) +
    '-7' +
    (counter >>> 8).toString(16) +
    hex(counter & 0xff) +
    '-' +
    hex(0x80 | ((r[0] ?? 0) & 0x3f)) +
    hex(r[1]) +
    '-' +
    hex(r[2]) +
    hex(r[3]) +
    hex(r[4]) +
    hex(r[5]) +
    hex(r[6]) +
    hex(r[7])
  );
}
