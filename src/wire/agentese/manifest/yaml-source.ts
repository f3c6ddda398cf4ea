/**
 * A parsed YAML manifest with its positions: the document, a line counter, and a sink for
 * {@link ManifestProblem}s located by YAML node, by offset inside a scalar, or by JSON
 * pointer. Aliases are resolved wherever a node is read.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node, Pair, Scalar, YAMLMap } from 'yaml';
import type { ManifestProblem, ManifestSeverity } from './problems.js';

/** A mapping entry with a string key: the key text, the key node and the value node. */
export interface Entry {
  readonly key: string;
  readonly keyNode: Node | undefined;
  readonly value: Node | undefined;
  /** Offset of the key, or of the mapping when the key has no range. */
  readonly offset: number;
}

/** A YAML manifest being read, and the problems found so far. */
export interface ManifestSource {
  /** The file name problems carry. */
  readonly file: string;
  /** The parsed document. */
  readonly doc: Document.Parsed;
  /** Every problem reported so far (YAML syntax errors first). */
  readonly problems: ManifestProblem[];
  /** Reports a problem at `offset` in the text. */
  report(pointer: string, offset: number, message: string, severity?: ManifestSeverity): void;
  /** Reports a problem at the start of `node` (the start of the document when absent). */
  reportAt(pointer: string, node: Node | undefined, message: string, severity?: ManifestSeverity): void;
  /** Reports a problem at the node a JSON pointer names (the nearest existing ancestor). */
  reportPointer(pointer: string, message: string, severity?: ManifestSeverity): void;
  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number };
  /** The node with aliases resolved. */
  resolve(node: unknown): Node | undefined;
  /** The entries of a mapping node, in order. */
  entries(map: YAMLMap): Entry[];
  /** The offset of the first character of a scalar's value text (inside any quotes). */
  valueStart(node: Scalar): number;
  /** The offset of the node at `pointer` (its key for `prefer: 'key'`), or of its nearest ancestor. */
  offsetOfPointer(pointer: string, prefer?: 'key' | 'value'): number;
}

/** The start offset of a node, or 0. */
export function startOf(node: Node | undefined): number {
  return node?.range?.[0] ?? 0;
}

/**
 * Parses `text` as YAML, keeping positions, and records every YAML syntax error (duplicate
 * keys included) as a problem.
 */
export function readManifestSource(text: string, file: string): ManifestSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: ManifestProblem[] = [];

  const position = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line, column: col };
  };
  const report = (pointer: string, offset: number, message: string, severity: ManifestSeverity = 'error') => {
    problems.push({ file, ...position(offset), message, pointer, severity });
  };
  const resolve = (node: unknown): Node | undefined => {
    let current = node;
    for (let hops = 0; isAlias(current) && hops < 64; hops++) current = current.resolve(doc);
    return isScalar(current) || isMap(current) || isSeq(current) ? current : undefined;
  };
  const entries = (map: YAMLMap): Entry[] =>
    map.items.map((pair: Pair) => {
      const keyNode = resolve(pair.key);
      const key = isScalar(keyNode) ? String(keyNode.value) : String(pair.key);
      return { key, keyNode, value: resolve(pair.value), offset: keyNode?.range?.[0] ?? startOf(map) };
    });

  const offsetOfPointer = (pointer: string, prefer: 'key' | 'value' = 'value'): number => {
    const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken);
    let node = resolve(doc.contents);
    let offset = startOf(node);
    let keyOffset = offset;
    for (const token of tokens) {
      if (isMap(node)) {
        const entry = entries(node).find((e) => e.key === token);
        if (entry === undefined) return prefer === 'key' ? keyOffset : offset;
        keyOffset = entry.offset;
        node = entry.value;
        offset = node === undefined || node.range === undefined ? entry.offset : startOf(node);
      } else if (isSeq(node)) {
        const item = resolve(node.items[Number(token)]);
        if (item === undefined) return offset;
        node = item;
        offset = startOf(item);
        keyOffset = offset;
      } else {
        break;
      }
    }
    return prefer === 'key' ? keyOffset : offset;
  };

  for (const error of doc.errors) {
    report('', error.pos[0], `YAML: ${firstLine(error.message)}`);
  }
  for (const warning of doc.warnings) {
    report('', warning.pos[0], `YAML: ${firstLine(warning.message)}`, 'warning');
  }

  return {
    file,
    doc,
    problems,
    report,
    reportAt: (pointer, node, message, severity) => {
      report(pointer, startOf(node), message, severity);
    },
    reportPointer: (pointer, message, severity) => {
      report(pointer, offsetOfPointer(pointer), message, severity);
    },
    position,
    resolve,
    entries,
    valueStart: (node) =>
      node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? startOf(node) + 1 : startOf(node),
    offsetOfPointer,
  };
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}
