/**
 * The refusal of a `plexus.yaml` that does not match its schema: the first problem, as a
 * `PlexusError` (`INVALID_PARAMS`) whose message names the field in the words of the schema
 * (`plexus.yaml: "limits.bodyLimitBytes" must be a whole number from 1 to 1073741824, got 0`)
 * and whose `cause` is a {@link ConfigProblem}: the JSON pointer and, when the configuration
 * came from YAML text, the line and column (`plexus.yaml:4:19`).
 */
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { PlexusError } from '../core/errors.js';
import { escapePointerToken } from '../core/index.js';

type Path = readonly PropertyKey[];

/** Where a configuration problem is: the field, its JSON pointer and its place in the file. */
export class ConfigProblem extends Error {
  override readonly name = 'ConfigProblem';
  constructor(
    /** The configuration's name (its file path). */
    readonly source: string,
    /** The field, dotted (`auth.apiKeys[0].hash`); `""` for the whole file. */
    readonly field: string,
    /** The field as a JSON pointer (`/auth/apiKeys/0/hash`). */
    readonly pointer: string,
    /** What is wrong with it. */
    readonly problem: string,
    /** The 1-based line and column of the field in the YAML text, when known. */
    readonly position?: { readonly line: number; readonly column: number },
  ) {
    const where = position === undefined ? source : `${source}:${position.line}:${position.column}`;
    super(`${where}: ${pointer === '' ? '(the document)' : pointer} ${problem}`);
  }
}

/** The field as the messages write it: `a.b[0].c`. */
export function fieldOfPath(path: Path): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** The field as a JSON pointer (RFC 6901): `/a/b/0/c`. */
export function pointerOfPath(path: Path): string {
  return path.map((p) => `/${escapePointerToken(String(p))}`).join('');
}

interface Leaf {
  readonly path: Path;
  readonly message: string;
  /** The field is an unknown key: its position is the key's, not its value's. */
  readonly key?: boolean;
}

/** How deep an issue reaches below its own path: an unknown key counts as one level. */
function depth(issue: z.core.$ZodIssue): number {
  return issue.path.length + (issue.code === 'unrecognized_keys' ? 1 : 0);
}

/**
 * The branch of a union that fits the value best: the one whose problem is deepest (it got
 * furthest into the value), then the one with fewest problems; `undefined` when no branch got
 * past the value itself (the union's own message says what is expected).
 */
function bestBranch(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): readonly z.core.$ZodIssue[] | undefined {
  let best: readonly z.core.$ZodIssue[] | undefined;
  let bestDepth = 0;
  for (const issues of branches) {
    const d = Math.max(0, ...issues.map(depth));
    if (d > bestDepth || (d === bestDepth && d > 0 && best !== undefined && issues.length < best.length)) {
      best = issues;
      bestDepth = d;
    }
  }
  return best;
}

/** The problem an issue stands for, with the full path of the field. */
function leafOf(issue: z.core.$ZodIssue, base: Path = []): Leaf {
  const path = [...base, ...issue.path];
  switch (issue.code) {
    case 'invalid_union': {
      const branch = bestBranch(issue.errors);
      const first = branch === undefined ? undefined : firstIssue(branch);
      return first === undefined ? { path, message: issue.message } : leafOf(first, path);
    }
    case 'unrecognized_keys':
      return { path: [...path, String(issue.keys[0])], message: issue.message, key: true };
    case 'invalid_key': {
      const inner = issue.issues[0];
      // The key names the field; the mapping holding it is where the problem is.
      return { path: path.slice(0, -1), message: inner?.message ?? issue.message };
    }
    default:
      return { path, message: issue.message };
  }
}

/** The issue reported: an unknown key first (checked before fields, as a reader would), else the first. */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
}

/** The 1-based line and column of the node at `path` (or of its nearest ancestor) in `doc`. */
export function positionInDocument(
  doc: Document,
  lines: LineCounter,
  path: Path,
  key = false,
): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let found: YamlNode | undefined = doc.contents ?? undefined;
  for (const [i, step] of path.entries()) {
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(step),
      );
      if (pair === undefined) break;
      if (last && key && isScalar(pair.key)) {
        found = pair.key;
        break;
      }
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      node = node.items[step];
    } else break;
    if (node === undefined || node === null || typeof node !== 'object' || !('range' in node)) break;
    found = node as YamlNode;
  }
  const offset = found?.range?.[0];
  if (offset === undefined) return undefined;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** Where the configuration's YAML text is, for positions in messages. */
export interface ConfigText {
  readonly doc: Document;
  readonly lines: LineCounter;
}

/**
 * The `PlexusError` for a configuration refused by its schema: the first problem, named by its
 * field in the message and `details.field`, located by the `ConfigProblem` in `cause`.
 */
export function configError(error: z.ZodError, source: string, text?: ConfigText): PlexusError {
  const issue = firstIssue(error.issues);
  const leaf: Leaf = issue === undefined ? { path: [], message: error.message } : leafOf(issue);
  const field = fieldOfPath(leaf.path);
  const position =
    text === undefined ? undefined : positionInDocument(text.doc, text.lines, leaf.path, leaf.key === true);
  return new PlexusError('INVALID_PARAMS', `${source}: "${field}" ${leaf.message}`, {
    details: { field },
    cause: new ConfigProblem(source, field, pointerOfPath(leaf.path), leaf.message, position),
  });
}
