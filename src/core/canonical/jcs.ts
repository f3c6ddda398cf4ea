/**
 * RFC 8785 JSON Canonicalization Scheme (the `jcs` profile of DESIGN D1).
 *
 * Keys are sorted by UTF-16 code units, numbers use the ECMAScript Number-to-String form,
 * strings use the JSON.stringify escaping that RFC 8785 §3.2.2.2 adopts, and there is no
 * whitespace. Input must be I-JSON: no NaN/Infinity, no lone surrogates.
 *
 * How it is fast: RFC 8785's number and string forms are exactly what the native
 * `JSON.stringify` writes, so the only work left to JavaScript is the key order and the
 * I-JSON checks. One walk checks every value and, only where an object's keys are not
 * already in order, builds a copy with the keys inserted in order; then the native
 * serialiser writes the result, and one scan of that output finds any lone surrogate
 * (which the serialiser writes as a `\udXXX` escape). An object whose copy JavaScript would
 * reorder (array-index keys such as `"10"`, or a `__proto__` key) sends the whole value to
 * a plain recursive writer instead. Only after a refusal does a second, slower walk find
 * the offending value and its JSON pointer.
 */
import { PlexusError } from '../errors.js';
import { escapePointerToken } from '../problem.js';

/**
 * Returns the RFC 8785 canonical text of `value`.
 *
 * Object properties whose value is `undefined` are skipped (as `JSON.stringify` does).
 *
 * @throws PlexusError `INVALID_PARAMS` for a non-finite number, a lone surrogate, a value
 *   that is not JSON (undefined in an array, function, symbol, bigint), or an object that
 *   is not a plain object or array (Date, Map, class instance); `details.pointer` locates it.
 */
export function canonicalizeJcs(value: unknown): string {
  resetState();
  let prepared: unknown;
  try {
    prepared = prepare(value);
  } catch (error) {
    if (error === REFUSED) throw locateProblem(value, '');
    throw error;
  }
  const text = state.needsWriter ? write(value) : JSON.stringify(prepared);
  // JSON.stringify writes a lone surrogate as the escape \udXXX (X in 8-f) and a valid pair
  // as itself, so one scan of the output finds every lone surrogate of every key and string.
  if (text.includes('\\ud') && ESCAPED_LONE_SURROGATE.test(text)) throw locateProblem(value, '');
  return text;
}

/** Any surrogate code unit; when present, the exact lone-surrogate test runs. */
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** `\ud8`…`\udf` preceded by an even run of backslashes: a real escape, not escaped text. */
const ESCAPED_LONE_SURROGATE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f]/;
const OBJECT_PROTOTYPE = Object.prototype;

/** Thrown inside the fast walk (made once, so throwing it is cheap); the slow walk then says what and where. */
const REFUSED = new Error('refused by the canonical JSON fast walk');

/** `needsWriter` is set by {@link prepare} when JavaScript's property order cannot express the sorted copy. */
const state = { needsWriter: false };

function resetState(): void {
  state.needsWriter = false;
}

/** True when `s` holds a surrogate code unit that is not part of a pair. */
export function hasLoneSurrogate(s: string): boolean {
  return SURROGATE.test(s) && LONE_SURROGATE.test(s);
}

/**
 * Checks `value` and returns it, or a copy whose objects have their keys in RFC 8785 order
 * where the original's were not. Unchanged subtrees are shared, not copied. Strings are not
 * checked here (see the output scan in {@link canonicalizeJcs}).
 */
function prepare(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw REFUSED;
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return prepareArray(value as unknown[]);
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== OBJECT_PROTOTYPE && proto !== null) throw REFUSED;
      return prepareObject(value as Record<string, unknown>);
    }
    default:
      throw REFUSED;
  }
}

function prepareArray(value: unknown[]): unknown[] {
  let out = value;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (item === undefined) throw REFUSED;
    const prepared = prepare(item);
    if (prepared !== item) {
      if (out === value) out = value.slice();
      out[i] = prepared;
    }
  }
  return out;
}

function prepareObject(value: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(value);
  const n = keys.length;
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sorted = false;
      break;
    }
  }
  if (!sorted) keys.sort();
  let copy: Record<string, unknown> | null = null;
  let digitKey = false;
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) digitKey = true;
    else if (first === 0x5f && key === '__proto__') state.needsWriter = true;
    const item = value[key];
    if (item === undefined) continue;
    const prepared = prepare(item);
    if (copy === null && (prepared !== item || !sorted)) {
      copy = {};
      for (let j = 0; j < i; j++) {
        const earlier = keys[j] as string;
        const v = value[earlier];
        if (v !== undefined) copy[earlier] = v;
      }
    }
    if (copy !== null) copy[key] = prepared;
  }
  if (copy === null) return value;
  // JavaScript enumerates array-index keys ("0", "10") first, in numeric order.
  if (digitKey) state.needsWriter = true;
  return copy;
}

/** The plain recursive writer, for values the fast path cannot express. */
function write(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += write(value[i]);
    }
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = obj[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += JSON.stringify(key) + ':' + write(item);
  }
  return out + '}';
}

/**
 * The slow walk after a refusal: finds the first offending value depth-first and returns a
 * PlexusError naming it and its JSON pointer.
 */
function locateProblem(value: unknown, pointer: string): PlexusError {
  return findProblem(value, pointer) ?? refused('the value is not canonicalisable JSON', pointer);
}

function findProblem(value: unknown, pointer: string): PlexusError | undefined {
  switch (typeof value) {
    case 'string':
      return hasLoneSurrogate(value)
        ? refused(
            `string contains a lone surrogate \\u${loneUnit(value)}; canonical JSON (RFC 8785) requires I-JSON text`,
            pointer,
          )
        : undefined;
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value)
        ? undefined
        : refused(
            `number ${String(value)} is not valid JSON; canonical JSON accepts finite numbers only`,
            pointer,
          );
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const at = `${pointer}/${i}`;
          const found =
            item === undefined ? refused('undefined is not a JSON value', at) : findProblem(item, at);
          if (found !== undefined) return found;
        }
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== OBJECT_PROTOTYPE && proto !== null) {
        const name = (value.constructor as { name?: string } | undefined)?.name ?? 'object';
        return refused(
          `a ${name} is not a plain JSON object; convert it to a plain object or string first`,
          pointer,
        );
      }
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj).sort()) {
        const at = `${pointer}/${escapePointerToken(key)}`;
        if (hasLoneSurrogate(key)) {
          return refused(
            `key contains a lone surrogate \\u${loneUnit(key)}; canonical JSON (RFC 8785) requires I-JSON text`,
            at,
          );
        }
        const item = obj[key];
        const found = item === undefined ? undefined : findProblem(item, at);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    default:
      return refused(
        `${value === undefined ? 'undefined' : `a ${typeof value}`} is not a JSON value`,
        pointer,
      );
  }
}

function loneUnit(s: string): string {
  return s.charCodeAt(s.search(LONE_SURROGATE)).toString(16);
}

function refused(message: string, pointer: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', `${message} (at ${pointer === '' ? '(root)' : pointer})`, {
    details: { pointer },
  });
}
