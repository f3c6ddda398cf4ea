/**
 * Strings that match a JSON Schema `pattern` (an ECMAScript regular expression), for the mock
 * server's value generator. A small generator over the regular-expression subset schemas use:
 * literals, escapes (`\d \w \s \D \W \S`, `\n \t \r`, `\xHH`, `\uHHHH`, escaped punctuation),
 * `.`, character classes with ranges and negation, groups (`( )`, `(?: )`, `(?<name> )`),
 * alternation and the quantifiers `* + ? {n} {n,} {n,m}` (lazy or not). `^` and `$` are
 * accepted where they are no-ops for a whole-string sample: `^` at the start and `$` at the end
 * of a top-level alternative. Anchors anywhere else, lookarounds, back-references and word
 * boundaries are not supported: for those the generator gives up (returns `undefined`) rather
 * than guess.
 *
 * Every string is built from the pattern's own grammar, so it matches by construction: the
 * pattern is never run against it. (Running an untrusted pattern with a backtracking engine
 * can take exponential time — `^(?:\w+)+\d{30}$` — and a schema's pattern is untrusted.)
 * A sample is at most about {@link MAX_SAMPLE_LENGTH} characters beyond the pattern's own
 * minimum, and a pattern whose shortest match is longer than that is refused.
 */
import type { SeededRandom } from './seeded-random.js';

type Node =
  | { readonly t: 'alt'; readonly options: readonly (readonly Node[])[] }
  | { readonly t: 'set'; readonly chars: readonly string[] }
  | { readonly t: 'rep'; readonly node: Node; readonly min: number; readonly max: number };

/** How many extra repetitions an open quantifier (`*`, `+`, `{n,}`) adds at most. */
export const OPEN_REPEAT_EXTRA = 3;

/**
 * Past this many characters a sample stops adding optional repetitions; a pattern whose shortest
 * match is longer is refused (`undefined`).
 */
export const MAX_SAMPLE_LENGTH = 4096;

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
const DIGITS = '0123456789'.split('');
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'.split('');
const SPACE = [' '];
const DOT = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');

class Unsupported extends Error {}

function complement(chars: readonly string[]): string[] {
  const excluded = new Set(chars);
  return PRINTABLE.filter((c) => !excluded.has(c));
}

function parser(source: string): { parse(): Node } {
  let i = 0;
  const peek = (): string | undefined => source[i];
  const fail = (): never => {
    throw new Unsupported(source);
  };

  const hexEscape = (length: number): string => {
    const hex = source.slice(i, i + length);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) fail();
    i += length;
    return String.fromCharCode(parseInt(hex, 16));
  };

  /** After a backslash: the characters the escape stands for. */
  const escape = (inClass: boolean): string[] => {
    const c = source[i++];
    switch (c) {
      case undefined:
        return fail();
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement([' ', '\t', '\n', '\r', '\f', '\v']);
      case 'n':
        return ['\n'];
      case 't':
        return ['\t'];
      case 'r':
        return ['\r'];
      case 'f':
        return ['\f'];
      case 'v':
        return ['\v'];
      case '0':
        return ['\0'];
      case 'x':
        return [hexEscape(2)];
      case 'u':
        if (peek() === '{') return fail();
        return [hexEscape(4)];
      case 'b':
        return inClass ? ['\b'] : fail();
      default:
        if (/[A-Za-z0-9]/.test(c)) return fail(); // \B, \1, \k<…>, \p{…}, \c… and the like
        return [c];
    }
  };

  const classItem = (): string[] => {
    const c = source[i++];
    if (c === undefined) return fail();
    if (c === '\\') return escape(true);
    return [c];
  };

  const charClass = (): Node => {
    // at the character after '['
    let negate = false;
    if (peek() === '^') {
      negate = true;
      i++;
    }
    const chars: string[] = [];
    while (peek() !== ']') {
      if (peek() === undefined) fail();
      const start = classItem();
      if (peek() === '-' && source[i + 1] !== ']' && source[i + 1] !== undefined && start.length === 1) {
        i++;
        const end = classItem();
        const [from, to] = [start[0], end[0]];
        if (end.length !== 1 || from === undefined || to === undefined) return fail();
        const lo = from.charCodeAt(0);
        const hi = to.charCodeAt(0);
        if (hi < lo) return fail();
        for (let code = lo; code <= hi && code - lo < 512; code++) chars.push(String.fromCharCode(code));
      } else {
        chars.push(...start);
      }
    }
    i++; // ']'
    const set = negate ? complement(chars) : [...new Set(chars)];
    if (set.length === 0) fail();
    return { t: 'set', chars: set };
  };

  const quantifier = (node: Node): Node => {
    const c = peek();
    let min: number;
    let max: number;
    if (c === '*') {
      i++;
      [min, max] = [0, OPEN_REPEAT_EXTRA];
    } else if (c === '+') {
      i++;
      [min, max] = [1, 1 + OPEN_REPEAT_EXTRA];
    } else if (c === '?') {
      i++;
      [min, max] = [0, 1];
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (m === null) return node; // a literal '{' was already consumed by atom(); not reached
      i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? min + OPEN_REPEAT_EXTRA : Number(m[3]);
      if (max < min) fail();
    } else {
      return node;
    }
    if (peek() === '?') i++; // lazy: same strings
    return { t: 'rep', node, min, max };
  };

  const atom = (): Node | undefined => {
    const c = source[i++];
    switch (c) {
      case '^':
      case '$':
        return undefined;
      case '(': {
        if (peek() === '?') {
          if (source[i + 1] === ':') i += 2;
          else if (source[i + 1] === '<' && source[i + 2] !== '=' && source[i + 2] !== '!') {
            const close = source.indexOf('>', i);
            if (close < 0) fail();
            i = close + 1;
          } else fail(); // lookaround
        }
        const inner = alternation();
        if (source[i++] !== ')') fail();
        return inner;
      }
      case '[':
        return charClass();
      case '.':
        return { t: 'set', chars: DOT };
      case '\\':
        return { t: 'set', chars: escape(false) };
      case '*':
      case '+':
      case '?':
      case ')':
      case '|':
      case undefined:
        return fail();
      case '{':
        if (/^\d+(,\d*)?\}/.test(source.slice(i))) return fail();
        return { t: 'set', chars: ['{'] };
      default:
        return { t: 'set', chars: [c] };
    }
  };

  /** An anchor is a no-op only at the start (`^`) or end (`$`) of a top-level alternative. */
  const anchorIsNoOp = (anchor: string, topLevel: boolean, atStart: boolean): boolean => {
    if (!topLevel) return false;
    if (anchor === '^') return atStart;
    const next = peek();
    return next === undefined || next === '|' || next === '$';
  };

  const sequence = (topLevel: boolean): Node[] => {
    const nodes: Node[] = [];
    while (peek() !== undefined && peek() !== '|' && peek() !== ')') {
      const c = peek();
      const node = atom();
      if (node !== undefined) nodes.push(quantifier(node));
      else if (peek() === '*' || peek() === '+' || peek() === '?' || peek() === '{') fail();
      else if (!anchorIsNoOp(c ?? '', topLevel, nodes.length === 0)) fail();
    }
    return nodes;
  };

  const alternation = (topLevel = false): Node => {
    const options = [sequence(topLevel)];
    while (peek() === '|') {
      i++;
      options.push(sequence(topLevel));
    }
    return { t: 'alt', options };
  };

  return {
    parse(): Node {
      const node = alternation(true);
      if (i !== source.length) fail();
      return node;
    },
  };
}

const SATURATED = Number.MAX_SAFE_INTEGER;
const minimums = new WeakMap<Node, number>();
const maximums = new WeakMap<Node, number>();

/** The length of the shortest string `node` produces (saturating). */
function minLength(node: Node): number {
  let known = minimums.get(node);
  if (known !== undefined) return known;
  if (node.t === 'set') known = 1;
  else if (node.t === 'rep') known = Math.min(SATURATED, node.min * minLength(node.node));
  else
    known = Math.min(
      ...node.options.map((o) =>
        Math.min(
          SATURATED,
          o.reduce((n, p) => n + minLength(p), 0),
        ),
      ),
    );
  minimums.set(node, known);
  return known;
}

/** The length of the longest string `node` produces (saturating); 0 means it only produces ''. */
function maxLength(node: Node): number {
  let known = maximums.get(node);
  if (known !== undefined) return known;
  if (node.t === 'set') known = 1;
  else if (node.t === 'rep') known = Math.min(SATURATED, node.max * maxLength(node.node));
  else
    known = Math.max(
      ...node.options.map((o) =>
        Math.min(
          SATURATED,
          o.reduce((n, p) => n + maxLength(p), 0),
        ),
      ),
    );
  maximums.set(node, known);
  return known;
}

/**
 * Appends one string of `node`'s language to `out`. Once `out` holds {@link MAX_SAMPLE_LENGTH}
 * characters it takes the shortest way through what is left, so the work and the output stay
 * bounded by that length plus the pattern's minimum.
 */
function generate(node: Node, random: SeededRandom, out: string[]): void {
  const full = (): boolean => out.length >= MAX_SAMPLE_LENGTH;
  switch (node.t) {
    case 'set':
      out.push(random.pick(node.chars));
      return;
    case 'rep': {
      if (maxLength(node.node) === 0) return;
      const n = full() ? node.min : random.int(node.min, node.max);
      const innerMin = minLength(node.node);
      for (let k = 0; k < n; k++) {
        if (full() && (k >= node.min || innerMin === 0)) return;
        generate(node.node, random, out);
      }
      return;
    }
    case 'alt': {
      const options = node.options;
      const chosen = full()
        ? options.reduce((best, o) => (sequenceMin(o) < sequenceMin(best) ? o : best))
        : random.pick(options);
      for (const part of chosen) generate(part, random, out);
    }
  }
}

function sequenceMin(parts: readonly Node[]): number {
  return parts.reduce((n, p) => Math.min(SATURATED, n + minLength(p)), 0);
}

/**
 * A string matching `pattern` (as a `u`-flag regular expression, as Ajv reads it), or
 * `undefined` when `pattern` is not a valid regular expression, uses a construct the generator
 * does not support, or cannot match anything shorter than {@link MAX_SAMPLE_LENGTH}.
 * The pattern is compiled (to check its syntax) but never run.
 *
 * @example
 * samplePattern('^b[a-z2-7]{8,}$', seededRandom('x')); // e.g. 'bq4zkxm2a7'
 */
export function samplePattern(pattern: string, random: SeededRandom): string | undefined {
  let tree: Node;
  try {
    new RegExp(pattern, 'u');
    tree = parser(pattern).parse();
  } catch {
    return undefined;
  }
  if (minLength(tree) > MAX_SAMPLE_LENGTH) return undefined;
  const out: string[] = [];
  generate(tree, random, out);
  return out.join('');
}
