/**
 * Whether a value can be recorded in the event log as it is: plain JSON (plain objects,
 * arrays, strings, finite numbers, booleans, null), I-JSON text (no lone surrogate in any
 * string or key, which RFC 8785 canonical JSON refuses) and at most {@link MAX_JSON_DEPTH}
 * levels deep. Faces and the runtime refuse what fails here before any handler runs, so a
 * handler's effects can never be recorded without the job that caused them.
 *
 * The walk checks the depth before it recurses, so no input can overflow the stack; after a
 * refusal a second, slower walk names the first offending value and its JSON pointer.
 */
import { isLosslessNumber } from 'lossless-json';
import { PlexusError, type PlexusErrorCode } from './errors.js';
import { escapePointerToken } from './problem.js';

/**
 * The deepest nesting of arrays and objects accepted from any face (a scalar at the root is
 * level 0, `[]` is one level). The event log takes a little more, for the records that wrap a
 * request (`job.submitted` keeps it at `/request`).
 */
export const MAX_JSON_DEPTH = 256;

/** Any surrogate code unit; when present, the exact lone-surrogate test runs. */
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function loneSurrogate(s: string): boolean {
  return SURROGATE.test(s) && LONE_SURROGATE.test(s);
}

/**
 * True when `value` can be recorded in the event log (see the module comment).
 *
 * @param maxDepth - deepest accepted nesting. @default MAX_JSON_DEPTH
 */
export function isRecordable(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return isJsonWithin(value, maxDepth, RECORDABLE);
}

/** What a {@link isJsonWithin} walk accepts beyond plain JSON values. */
export interface JsonWalkRules {
  /** A `lossless-json` number counts as a number (a value read by the lossless parser). */
  readonly losslessNumbers: boolean;
  /** An object member whose value is `undefined` is skipped (as JSON.stringify drops it) instead of refused. */
  readonly skipUndefinedMembers: boolean;
  /** Strings and keys must be I-JSON text (no lone surrogate). */
  readonly iJsonText: boolean;
}

const RECORDABLE: JsonWalkRules = { losslessNumbers: false, skipUndefinedMembers: true, iJsonText: true };
const RECORDABLE_LOSSLESS: JsonWalkRules = { ...RECORDABLE, losslessNumbers: true };

/**
 * The fast walk over a value (no pointers built): true when it is plain JSON (plain objects,
 * arrays without holes or `undefined`, strings, finite numbers, booleans, null) under `rules`,
 * at most `left` levels deep. The depth is checked before recursing, so cycles and hostile
 * nesting end in `false`, never in a stack overflow.
 */
export function isJsonWithin(v: unknown, left: number, rules: JsonWalkRules): boolean {
  switch (typeof v) {
    case 'string':
      return !rules.iJsonText || !loneSurrogate(v);
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object': {
      if (v === null) return true;
      if (left <= 0) return false;
      if (Array.isArray(v)) {
        // A hole reads as undefined, which is refused.
        const a = v as unknown[];
        for (let i = 0; i < a.length; i++) if (!isJsonWithin(a[i], left - 1, rules)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return rules.losslessNumbers && isLosslessNumber(v);
      const o = v as Record<string, unknown>;
      for (const key in o) {
        if (!Object.hasOwn(o, key)) continue;
        const child = o[key];
        if (rules.iJsonText && loneSurrogate(key)) return false;
        if (child === undefined) {
          if (rules.skipUndefinedMembers) continue;
          return false;
        }
        if (!isJsonWithin(child, left - 1, rules)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** What {@link recordableProblem} found: where, and what a person should change. */
export interface RecordableProblem {
  readonly pointer: string;
  readonly message: string;
}

/**
 * The first value (depth first) that keeps `value` from being recorded, or `undefined`.
 *
 * @param pointer - the JSON pointer of `value` itself. @default ''
 * @param losslessNumbers - accept `lossless-json` numbers (a value straight from the lossless
 *   parser, whose numbers the ESRP face judges itself). @default false
 */
export function recordableProblem(
  value: unknown,
  maxDepth: number = MAX_JSON_DEPTH,
  pointer = '',
  losslessNumbers = false,
): RecordableProblem | undefined {
  if (isJsonWithin(value, maxDepth, losslessNumbers ? RECORDABLE_LOSSLESS : RECORDABLE)) return undefined;
  return locate(value, maxDepth, pointer, losslessNumbers);
}

function unit(s: string): string {
  return s.charCodeAt(s.search(LONE_SURROGATE)).toString(16);
}

function locate(v: unknown, left: number, at: string, lossless: boolean): RecordableProblem | undefined {
  const where = at === '' ? '(root)' : at;
  switch (typeof v) {
    case 'string':
      return loneSurrogate(v)
        ? {
            pointer: at,
            message: `the string at ${where} contains a lone surrogate \\u${unit(v)}; send valid Unicode text (I-JSON)`,
          }
        : undefined;
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(v)
        ? undefined
        : {
            pointer: at,
            message: `the number at ${where} is out of range (${String(v)}); send a finite number`,
          };
    case 'object': {
      if (v === null) return undefined;
      if (left <= 0) {
        return {
          pointer: at,
          message: `the data at ${where} nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects; flatten it`,
        };
      }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const found = locate(v[i], left - 1, `${at}/${i}`, lossless);
          if (found !== undefined) return found;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        return lossless && isLosslessNumber(v)
          ? undefined
          : { pointer: at, message: `the value at ${where} is not plain JSON` };
      }
      const o = v as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        const childAt = `${at}/${escapePointerToken(key)}`;
        if (loneSurrogate(key)) {
          return {
            pointer: childAt,
            message: `the key at ${childAt} contains a lone surrogate \\u${unit(key)}; send valid Unicode text (I-JSON)`,
          };
        }
        const child = o[key];
        const found = child === undefined ? undefined : locate(child, left - 1, childAt, lossless);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    default:
      return { pointer: at, message: `the value at ${where} is a ${typeof v}, not JSON` };
  }
}

/** Options of {@link assertRecordable}. */
export interface AssertRecordableOptions {
  /** @default MAX_JSON_DEPTH */
  readonly maxDepth?: number;
  /** The JSON pointer of the value. @default '' */
  readonly pointer?: string;
  /** The code of the refusal. @default 'INVALID_PARAMS' */
  readonly code?: PlexusErrorCode;
}

/**
 * Throws unless `value` can be recorded in the event log.
 *
 * @throws PlexusError `INVALID_PARAMS` (or `options.code`) naming the offending value, with
 *   `details.pointer`; never retryable.
 */
export function assertRecordable(value: unknown, options: AssertRecordableOptions = {}): void {
  const problem = recordableProblem(value, options.maxDepth ?? MAX_JSON_DEPTH, options.pointer ?? '');
  if (problem === undefined) return;
  throw new PlexusError(options.code ?? 'INVALID_PARAMS', problem.message, {
    details: { pointer: problem.pointer },
  });
}
