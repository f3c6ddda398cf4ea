/**
 * A small deterministic pseudo-random source for the mock server (seed 002 §12.1): the same
 * seed gives the same sequence on every platform, because it is pure 32-bit integer
 * arithmetic (the sfc32 generator) seeded from the SHA-256 of the seed.
 */
import { PlexusError } from '../../core/errors.js';
import { sha256Bytes } from '../../core/hash.js';

/** A deterministic source of random choices. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [lo, hi] (both inclusive); `lo` when `hi < lo`. */
  int(lo: number, hi: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One item of a non-empty list. @throws PlexusError `INTERNAL` for an empty list. */
  pick<T>(items: readonly T[]): T;
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
  /** `n` lower-case hex characters. */
  hex(n: number): string;
  /** An independent source derived from this one and `label` (so sub-values do not shift each other). */
  fork(label: string): SeededRandom;
}

const TWO_32 = 4_294_967_296;

function words(seed: Uint8Array): [number, number, number, number] {
  const view = new DataView(seed.buffer, seed.byteOffset, seed.byteLength);
  return [view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getUint32(12)];
}

/**
 * Creates a source seeded by `seed` (text is hashed as UTF-8; bytes are hashed as they are).
 *
 * @example
 * const r = seededRandom('atelier.session.start@1 {"mode":"solo"}');
 * r.int(1, 6); // the same number on every run
 */
export function seededRandom(seed: string | Uint8Array): SeededRandom {
  const digest = sha256Bytes(seed);
  let [a, b, c, d] = words(digest);
  const nextUint32 = (): number => {
    // sfc32 (Chris Doty-Humphrey's Small Fast Counting generator).
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) nextUint32();
  const hexOf = Buffer.from(digest).toString('hex');
  const random: SeededRandom = {
    next: () => nextUint32() / TWO_32,
    int(lo: number, hi: number): number {
      if (!(hi > lo)) return lo;
      const span = hi - lo + 1;
      // Two draws give 53 bits, enough for any safe-integer span.
      const x = (nextUint32() * 2 ** 21 + (nextUint32() >>> 11)) / 2 ** 53;
      return lo + Math.min(span - 1, Math.floor(x * span));
    },
    chance: (p) => nextUint32() / TWO_32 < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new PlexusError('INTERNAL', 'pick() needs at least one item');
      return items[Math.floor((nextUint32() / TWO_32) * items.length)] as T;
    },
    bytes(n: number): Uint8Array {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = nextUint32() & 0xff;
      return out;
    },
    hex(n: number): string {
      let out = '';
      while (out.length < n) out += nextUint32().toString(16).padStart(8, '0');
      return out.slice(0, n);
    },
    fork: (label) => seededRandom(`${hexOf}/${String(nextUint32())}/${label}`),
  };
  return random;
}
