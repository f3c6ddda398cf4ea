/**
 * A deterministic extractive summariser for the demo `text.summarize` verb: sentences are
 * scored by the frequency of their content words in the whole text, and the best ones are
 * returned in their original order. The same text always gives the same summary: scores
 * are exact integers compared as fractions, and ties go to the earlier sentence.
 */

/** The most sentences a summary may ask for. */
export const MAX_SUMMARY_SENTENCES = 50;

/** Words too common to say what a text is about (English). */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves also may might must shall'
  ).split(' '),
);

const SENTENCE = /[^.!?。！？]+(?:[.!?。！？]+["'”’)\]]*|$)/gu;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** A summary. */
export interface Summary {
  /** The chosen sentences joined by a space. */
  readonly summary: string;
  /** The chosen sentences, in their original order. */
  readonly sentences: readonly string[];
  /** Their 0-based positions in the text. */
  readonly indices: readonly number[];
  /** How many sentences the text has. */
  readonly total: number;
}

/** Splits text into trimmed, non-empty sentences. */
export function splitSentences(text: string): string[] {
  return (text.match(SENTENCE) ?? []).map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => s !== '');
}

function contentWords(sentence: string): string[] {
  return (sentence.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/**
 * Returns the `count` best sentences of `text` in their original order. A sentence's score
 * is the sum of its content words' frequencies divided by its number of content words
 * (compared exactly as fractions); ties go to the earlier sentence; sentences without
 * content words score 0.
 *
 * @example summarize('Cats purr. Cats sleep a lot. Dogs bark.', 1).sentences // ['Cats purr.']
 */
export function summarize(text: string, count: number): Summary {
  const sentences = splitSentences(text);
  const words = sentences.map(contentWords);
  const frequency = new Map<string, number>();
  for (const list of words) for (const w of list) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const scored = sentences.map((sentence, index) => {
    const list = words[index] ?? [];
    const sum = list.reduce((acc, w) => acc + (frequency.get(w) ?? 0), 0);
    return { index, text: sentence, sum, length: Math.max(list.length, 1) };
  });
  // a.sum / a.length > b.sum / b.length  <=>  a.sum * b.length > b.sum * a.length (all integers).
  const ranked = [...scored].sort((a, b) => b.sum * a.length - a.sum * b.length || a.index - b.index);
  const chosen = ranked.slice(0, Math.max(0, count)).sort((a, b) => a.index - b.index);
  return {
    summary: chosen.map((s) => s.text).join(' '),
    sentences: chosen.map((s) => s.text),
    indices: chosen.map((s) => s.index),
    total: sentences.length,
  };
}
