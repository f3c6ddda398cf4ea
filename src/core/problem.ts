/**
 * Validation problems: what a validator reports about one input, each located by a JSON
 * Pointer (RFC 6901) so a person can find it.
 */

/** One thing wrong with an input. */
export interface Problem {
  /** RFC 6901 JSON Pointer to the offending value; `''` is the whole document. */
  readonly pointer: string;
  /** What is wrong and, where it helps, what would be right. */
  readonly message: string;
}

/** Escapes one reference token for a JSON Pointer (RFC 6901 §4: `~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  // Most tokens need no escape: return them as they are, with no regex run or copy.
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Joins a parent pointer and one more token. */
export function childPointer(parent: string, token: string | number): string {
  return `${parent}/${escapePointerToken(token)}`;
}

/** Formats a problem as one line: `<pointer or "(root)">: <message>`. */
export function formatProblem(problem: Problem): string {
  return `${problem.pointer === '' ? '(root)' : problem.pointer}: ${problem.message}`;
}
