/**
 * A binary max-heap of (score, node) pairs on typed arrays, reused across searches so the
 * hot path of the vector index allocates nothing. A min-heap is the same heap fed negated
 * scores ({@link ScoreHeap.pushMin} / {@link ScoreHeap.topMin}).
 */

/** A max-heap of scores with an integer payload. */
export interface ScoreHeap {
  /** How many entries it holds. */
  readonly size: number;
  /** Empties it (keeps the storage). */
  clear(): void;
  /** Adds an entry. */
  push(score: number, node: number): void;
  /** The highest score (−Infinity when empty). */
  topScore(): number;
  /** The node of the highest score (−1 when empty). */
  topNode(): number;
  /** Removes the highest entry and returns its node (−1 when empty). */
  pop(): number;
  /** Replaces the highest entry by (score, node) in one sift (same as pop then push; push when empty). */
  replaceTop(score: number, node: number): void;
  /** The score stored at heap position `i` (0 ≤ i < size), in heap order. */
  scoreAt(i: number): number;
  /** The node stored at heap position `i`, in heap order. */
  nodeAt(i: number): number;
}

/**
 * Creates an empty heap that grows as needed. `above(a, b)` orders nodes of equal score: true
 * when node `a` belongs above (nearer the top than) node `b`; without it ties are unordered.
 */
export function scoreHeap(capacity = 64, above?: (a: number, b: number) => boolean): ScoreHeap {
  let scores = new Float64Array(Math.max(4, capacity));
  let nodes = new Int32Array(Math.max(4, capacity));
  let n = 0;
  const grow = (): void => {
    const s = new Float64Array(scores.length * 2);
    s.set(scores);
    scores = s;
    const d = new Int32Array(nodes.length * 2);
    d.set(nodes);
    nodes = d;
  };
  /** Puts (score, node) at the root and sifts it down (n >= 1). */
  const siftDown = (score: number, node: number): void => {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      let ms = scores[l] ?? 0;
      if (r < n) {
        const rs = scores[r] ?? 0;
        if (rs > ms || (rs === ms && above !== undefined && above(nodes[r] ?? 0, nodes[l] ?? 0))) {
          m = r;
          ms = rs;
        }
      }
      if (ms < score || (ms === score && (above === undefined || !above(nodes[m] ?? 0, node)))) break;
      scores[i] = ms;
      nodes[i] = nodes[m] ?? 0;
      i = m;
    }
    scores[i] = score;
    nodes[i] = node;
  };
  const heap: ScoreHeap = {
    get size() {
      return n;
    },
    clear() {
      n = 0;
    },
    push(score, node) {
      if (n === scores.length) grow();
      let i = n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const ps = scores[parent] ?? 0;
        if (ps > score || (ps === score && (above === undefined || !above(node, nodes[parent] ?? 0)))) break;
        scores[i] = ps;
        nodes[i] = nodes[parent] ?? 0;
        i = parent;
      }
      scores[i] = score;
      nodes[i] = node;
    },
    topScore: () => (n === 0 ? -Infinity : (scores[0] ?? -Infinity)),
    topNode: () => (n === 0 ? -1 : (nodes[0] ?? -1)),
    pop() {
      if (n === 0) return -1;
      const top = nodes[0] ?? -1;
      n--;
      if (n > 0) siftDown(scores[n] ?? 0, nodes[n] ?? 0);
      return top;
    },
    replaceTop(score, node) {
      if (n === 0) heap.push(score, node);
      else siftDown(score, node);
    },
    scoreAt: (i) => scores[i] ?? -Infinity,
    nodeAt: (i) => nodes[i] ?? -1,
  };
  return heap;
}
