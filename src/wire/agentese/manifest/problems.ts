/**
 * Manifest problems: what `plexus lint` reports about a manifest, each located by file, line
 * and column (1-based) and by a JSON pointer into the manifest document.
 */

/** How bad a problem is: an `error` fails the lint (exit 1); a `warning` does not. */
export type ManifestSeverity = 'error' | 'warning';

/** One thing wrong with a manifest, located in its file. */
export interface ManifestProblem {
  /** The file as named on the command line (or the name given to the loader). */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** What is wrong and, where it helps, what would be right. */
  readonly message: string;
  /** RFC 6901 pointer into the manifest document (`/verbs/soul.memory.recall/input`). */
  readonly pointer: string;
  /** `error` (fails the lint) or `warning`. */
  readonly severity: ManifestSeverity;
}

/** Formats a problem as one line: `file:line:column: severity: message (pointer)`. */
export function formatManifestProblem(problem: ManifestProblem): string {
  const where = problem.pointer === '' ? '' : ` (${problem.pointer})`;
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.severity}: ${problem.message}${where}`;
}

/** Sorts problems by file, line, column, then message (a stable, reader-friendly order). */
export function sortManifestProblems(problems: readonly ManifestProblem[]): ManifestProblem[] {
  return [...problems].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.column - b.column ||
      a.message.localeCompare(b.message),
  );
}

/** Counts the errors and warnings in `problems`. */
export function countProblems(problems: readonly ManifestProblem[]): { errors: number; warnings: number } {
  let errors = 0;
  for (const p of problems) if (p.severity === 'error') errors++;
  return { errors, warnings: problems.length - errors };
}

/** The closest of `candidates` to `word` by edit distance, when close enough to suggest. */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of list) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.max(1, Math.floor(word.length / 3));
  if (bestDistance <= limit) return best;
  const lower = word.toLowerCase();
  for (const candidate of list) {
    const c = candidate.toLowerCase();
    if (lower.length >= 3 && (c.startsWith(lower) || lower.startsWith(c))) return candidate;
  }
  return undefined;
}

/** `; did you mean X?` when a close candidate exists, else the empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = closestName(word, candidates);
  return near === undefined ? '' : `; did you mean "${near}"?`;
}

/** Optimal string alignment distance: edits, with a swap of two neighbours counted as one. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}
