/**
 * The default embedder: offline, no model download, deterministic. A text becomes a bag of
 * features — its words, its word bigrams, and the character trigrams of each word (so
 * `limits` and `limited` share part of their weight) — each weighted by a fixed
 * inverse-document-frequency prior (very common English words count little), hashed into
 * `dimensions` buckets with a hash-derived sign (the "hashing trick", Weinberger et al. 2009),
 * and L2-normalised, so the inner product of two vectors is their cosine similarity.
 *
 * It measures lexical overlap, not meaning: "429 responses" and "rate limiting" are not
 * similar to it. Use `openAiEmbedder` with a real model for semantic search.
 */
import { PlexusError } from '../../core/errors.js';
import type { Embedder } from './embedder.js';
import { normalizeInPlace } from './vector-math.js';

/** Options of {@link hashedEmbedder}. */
export interface HashedEmbedderInit {
  /** Vector length (16…4096). @default 256 */
  readonly dimensions?: number;
}

/** The version in the embedder id: bump it whenever a feature or weight changes. */
export const HASHED_EMBEDDER_VERSION = 1;

/** Function words: IDF weight 0.1 (they occur in nearly every English text). */
const FUNCTION_WORDS =
  'a about all also an and any are as at be been but by can could did do does for from had has have he her his how i if in into is it its may me more most my no not of on or our out she should so some such than that the their them then there these they this those to too up us very was we were what when where which while who why will with would you your';
/** Common words: IDF weight 0.35. */
const COMMON_WORDS =
  'after again against because before being below between both during each few get got here just like make many much must new now off once one only other over own same see two under until use used using way well';

const IDF = new Map<string, number>([
  ...FUNCTION_WORDS.split(' ').map((w): [string, number] => [w, 0.1]),
  ...COMMON_WORDS.split(' ').map((w): [string, number] => [w, 0.35]),
]);

/** The IDF prior of a word: 0.1 function words, 0.35 common words, 0.5 numbers, 1 otherwise. */
export function idfWeight(word: string): number {
  const w = IDF.get(word);
  if (w !== undefined) return w;
  return /^\p{N}+$/u.test(word) ? 0.5 : 1;
}

/** FNV-1a, 32 bits, over UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The words of a text: NFKC, lower case, runs of letters and digits. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Creates the hashed n-gram embedder.
 *
 * Weights: a word `idf(w)`; a bigram `0.5 × min(idf)`; the trigrams of `<word>` share
 * `0.5 × idf(w)` (each `0.5 × idf / √count`), so a long word does not outweigh its neighbours.
 *
 * @throws PlexusError `INVALID_PARAMS` for dimensions outside 16…4096.
 */
export function hashedEmbedder(init: HashedEmbedderInit = {}): Embedder {
  const dims = init.dimensions ?? 256;
  if (!Number.isInteger(dims) || dims < 16 || dims > 4096) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `hashed embedder dimensions must be an integer 16…4096, got ${dims}`,
    );
  }
  const embedSync = (text: string): Float32Array => {
    const v = new Float32Array(dims);
    const add = (feature: string, weight: number): void => {
      const h = fnv1a(feature);
      const i = h % dims;
      v[i] = (v[i] as number) + (h & 0x80000000 ? -weight : weight);
    };
    let prev: string | undefined;
    let prevIdf = 0;
    for (const word of tokenize(text)) {
      const idf = idfWeight(word);
      add(`w:${word}`, idf);
      if (prev !== undefined) add(`b:${prev} ${word}`, 0.5 * Math.min(idf, prevIdf));
      const padded = `<${word}>`;
      const trigrams = padded.length - 2;
      if (trigrams > 1) {
        const weight = (0.5 * idf) / Math.sqrt(trigrams);
        for (let i = 0; i < trigrams; i++) add(`c:${padded.slice(i, i + 3)}`, weight);
      }
      prev = word;
      prevIdf = idf;
    }
    return normalizeInPlace(v);
  };
  return {
    id: `hashed-ngram-v${HASHED_EMBEDDER_VERSION}/${dims}`,
    dimensions: dims,
    deterministic: true,
    embed: (texts) => Promise.resolve(texts.map(embedSync)),
    embedSync,
  };
}
