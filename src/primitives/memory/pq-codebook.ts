/**
 * The product-quantised codes of a vector index under one trained quantiser, kept in step with
 * the index's slots while entries are added, replaced and removed.
 *
 * Invariant: slots `[0, coded)` hold the codes of their current vectors; slots from `coded` on
 * have none yet (a search scores them exactly). A codebook that has caught up (`coded` = size)
 * codes each new entry at once; one still being filled in the background leaves new entries
 * to the filler. Removal moves the last slot into the freed one, as the index does.
 */
import type { ProductQuantizer } from './product-quantizer.js';

/** Codes of an index under one quantiser. */
export interface Codebook {
  readonly quantizer: ProductQuantizer;
  /** Entries in the index when its training started. */
  readonly trainedOn: number;
  /** `subspaces` bytes a slot, row-major (capacity rows). */
  readonly codes: Uint8Array;
  /** Slots `[0, coded)` are coded. */
  readonly coded: number;
  /** Makes room for `capacity` slots (keeps the codes). */
  grow(capacity: number): void;
  /** Codes slots from `coded` up to `min(size, coded + max)`; answers how many it coded. */
  encodeNext(vectors: Float32Array, size: number, max: number): number;
  /** Entry `slot` (= the size before) was appended. */
  appended(vectors: Float32Array, slot: number): void;
  /** The vector of `slot` was replaced. */
  replaced(vectors: Float32Array, slot: number): void;
  /** The entry of `slot` was removed and the one of `last` moved into it (vectors already moved). */
  removed(vectors: Float32Array, slot: number, last: number): void;
}

/** Creates an empty codebook (nothing coded) for an index of `capacity` slots. */
export function codebook(quantizer: ProductQuantizer, trainedOn: number, capacity: number): Codebook {
  const dim = quantizer.dimensions;
  const ms = quantizer.subspaces;
  let codes = new Uint8Array(capacity * ms);
  let coded = 0;
  const encode = (vectors: Float32Array, slot: number): void => {
    quantizer.encode(vectors, slot * dim, codes, slot * ms);
  };
  return {
    quantizer,
    trainedOn,
    get codes() {
      return codes;
    },
    get coded() {
      return coded;
    },
    grow(capacity) {
      if (capacity * ms <= codes.length) return;
      const c = new Uint8Array(capacity * ms);
      c.set(codes);
      codes = c;
    },
    encodeNext(vectors, size, max) {
      const end = Math.min(size, coded + max);
      const from = coded;
      for (; coded < end; coded++) encode(vectors, coded);
      return end - from;
    },
    appended(vectors, slot) {
      if (slot !== coded) return; // behind: the filler will get there
      encode(vectors, slot);
      coded++;
    },
    replaced(vectors, slot) {
      if (slot < coded) encode(vectors, slot);
    },
    removed(vectors, slot, last) {
      if (last < coded) {
        // everything was coded: the last code follows its vector
        codes.copyWithin(slot * ms, last * ms, last * ms + ms);
        coded = last;
      } else if (slot < coded) {
        encode(vectors, slot); // an uncoded vector moved into the coded part
      }
    },
  };
}
