import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSentences, summarize } from '../../src/node/demo/summarize.js';

const TEXT =
  'Plexus is an agent mesh. The mesh links agents across processes and machines. ' +
  'Lunch was good today. Agents on the mesh call each other through the mesh faces! ' +
  'Is the weather nice? Every call on the mesh is recorded in an event log.';

describe('splitSentences', () => {
  it('splits on . ! ? and keeps the punctuation and closing quotes', () => {
    expect(splitSentences('One. Two!  Three?\n"Four."  five')).toEqual([
      'One.',
      'Two!',
      'Three?',
      '"Four."',
      'five',
    ]);
  });

  it('returns nothing for blank text', () => {
    expect(splitSentences('  \n ')).toEqual([]);
  });
});

describe('summarize', () => {
  it('picks the sentences made of the most frequent words, in their original order', () => {
    const s = summarize(TEXT, 2);
    expect(s.total).toBe(6);
    // mesh ×5, agents ×2, call ×2: sentence 3 scores 15/5, sentence 0 scores 7/3, the rest less.
    expect(s.indices).toEqual([0, 3]);
    expect(s.sentences).toEqual([
      'Plexus is an agent mesh.',
      'Agents on the mesh call each other through the mesh faces!',
    ]);
    expect(s.summary).toBe(s.sentences.join(' '));
  });

  it('returns every sentence when asked for more than there are', () => {
    expect(summarize('A b. C d.', 10).indices).toEqual([0, 1]);
  });

  it('breaks ties by position', () => {
    expect(summarize('Alpha beta. Gamma delta. Epsilon zeta.', 2).indices).toEqual([0, 1]);
  });

  it('is deterministic and returns indices in increasing order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,6}( [a-z]{1,6}){0,6}[.!?]$/), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        (sentences, n) => {
          const text = sentences.join(' ');
          const a = summarize(text, n);
          expect(summarize(text, n)).toEqual(a);
          expect(a.indices.length).toBe(Math.min(n, a.total));
          expect([...a.indices].sort((x, y) => x - y)).toEqual(a.indices);
        },
      ),
    );
  });
});
