/**
 * A small field reader for the ESRP typed parse: it reads one wire value at a time, records
 * every problem with its JSON pointer, and returns `undefined` for a field it could not read
 * so the caller can go on and report the rest.
 */
import { isLosslessNumber } from 'lossless-json';
import { nonIntegerReason, type EsrpJsonObject, type EsrpJsonValue } from '../canonical/esrp.js';
import { hasLoneSurrogate } from '../canonical/jcs.js';
import { childPointer, type Problem } from '../problem.js';
import { normalizeTimestamp } from './timestamp.js';
import { normalizeUuid } from './uuid.js';

/** Whether free-form JSON may hold non-integer numbers (responses) or not (requests). */
export type NumberPolicy = 'integer' | 'any';

/** A plain object being read, with the pointer it sits at. */
export interface ObjectAt {
  readonly value: Readonly<Record<string, unknown>>;
  readonly pointer: string;
}

const U64_MAX = 18446744073709551615n;

/** Collects problems while reading one ESRP document. */
export class FieldReader {
  /** Every problem found so far. */
  readonly problems: Problem[] = [];

  /** Records a problem at `pointer`. */
  problem(pointer: string, message: string): void {
    this.problems.push({ pointer, message });
  }

  /** Reads `value` as a plain object; records a problem and returns `undefined` otherwise. */
  object(value: unknown, pointer: string, what: string): ObjectAt | undefined {
    if (isPlainObject(value)) return { value, pointer };
    this.problem(pointer, `${what} must be a JSON object, not ${describe(value)}`);
    return undefined;
  }

  /** The raw value of an own field, `undefined` when absent (or explicitly `undefined`). */
  raw(obj: ObjectAt, key: string): unknown {
    return Object.prototype.hasOwnProperty.call(obj.value, key) ? obj.value[key] : undefined;
  }

  /** A required string field. */
  string(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    const pointer = childPointer(obj.pointer, key);
    if (value === undefined) {
      this.missing(pointer, key, 'a string');
      return undefined;
    }
    return this.stringValue(value, pointer, key);
  }

  /** An optional string field: absent or `null` is `undefined`. */
  optionalString(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    if (value === undefined || value === null) return undefined;
    return this.stringValue(value, childPointer(obj.pointer, key), key);
  }

  /** A required UUID field, returned lower-case hyphenated. */
  uuid(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    const pointer = childPointer(obj.pointer, key);
    if (value === undefined) {
      this.missing(pointer, key, 'a UUID');
      return undefined;
    }
    return this.uuidValue(value, pointer, key);
  }

  /** An optional UUID field: absent or `null` is `undefined`. */
  optionalUuid(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    if (value === undefined || value === null) return undefined;
    return this.uuidValue(value, childPointer(obj.pointer, key), key);
  }

  /** A required RFC 3339 timestamp field, returned in the reference's UTC form. */
  timestamp(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    const pointer = childPointer(obj.pointer, key);
    if (value === undefined) {
      this.missing(pointer, key, 'an RFC 3339 timestamp');
      return undefined;
    }
    return this.timestampValue(value, pointer, key);
  }

  /** An optional RFC 3339 timestamp field. */
  optionalTimestamp(obj: ObjectAt, key: string): string | undefined {
    const value = this.raw(obj, key);
    if (value === undefined || value === null) return undefined;
    return this.timestampValue(value, childPointer(obj.pointer, key), key);
  }

  /** A field holding one of `allowed`; absent is a problem when `required`. */
  oneOf<T extends string>(
    obj: ObjectAt,
    key: string,
    allowed: readonly T[],
    required: boolean,
  ): T | undefined {
    const value = this.raw(obj, key);
    const pointer = childPointer(obj.pointer, key);
    const list = allowed.map((a) => `"${a}"`).join(', ');
    if (value === undefined || (value === null && !required)) {
      if (required) this.problem(pointer, `${key} is required: one of ${list}`);
      return undefined;
    }
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.problem(pointer, `${key} must be one of ${list}, not ${describe(value)}`);
    return undefined;
  }

  /** An integer field in `[min, max]` (number, bigint or LosslessNumber on the way in). */
  integer(
    obj: ObjectAt,
    key: string,
    bounds: { readonly min: number; readonly max?: number; readonly required: boolean },
  ): number | undefined {
    const value = this.raw(obj, key);
    const pointer = childPointer(obj.pointer, key);
    if (value === undefined || (value === null && !bounds.required)) {
      if (bounds.required) this.problem(pointer, `${key} is required: an integer`);
      return undefined;
    }
    const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
    const n = integerOf(value);
    if (n === undefined) {
      this.problem(pointer, `${key} must be an integer, not ${describe(value)}`);
      return undefined;
    }
    if (n < BigInt(bounds.min) || n > BigInt(max)) {
      const beyond = n > BigInt(max) && n <= U64_MAX && max === Number.MAX_SAFE_INTEGER;
      this.problem(
        pointer,
        beyond
          ? `${key} is ${n} but Plexus holds it as a number and accepts at most 2^53−1 (${max})`
          : `${key} must be an integer from ${bounds.min} to ${max}, not ${n}`,
      );
      return undefined;
    }
    return Number(n);
  }

  /** A required boolean field, or `fallback` when absent. */
  boolean(obj: ObjectAt, key: string, fallback: boolean): boolean | undefined {
    const value = this.raw(obj, key);
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    this.problem(childPointer(obj.pointer, key), `${key} must be true or false, not ${describe(value)}`);
    return undefined;
  }

  /** A free-form JSON field; absent is `null` (the reference's default). */
  json(obj: ObjectAt, key: string, policy: NumberPolicy): EsrpJsonValue {
    const value = this.raw(obj, key);
    if (value === undefined) return null;
    return this.jsonValue(value, childPointer(obj.pointer, key), policy);
  }

  /** Reads any JSON value, checking numbers against `policy` and strings for lone surrogates. */
  jsonValue(value: unknown, pointer: string, policy: NumberPolicy): EsrpJsonValue {
    switch (typeof value) {
      case 'string':
        if (hasLoneSurrogate(value)) this.problem(pointer, 'the string contains a lone surrogate');
        return value;
      case 'boolean':
        return value;
      case 'bigint':
        return value;
      case 'number':
        return this.numberValue(value, pointer, policy);
      case 'object': {
        if (value === null) return null;
        if (isLosslessNumber(value)) return this.numberText(value.value, pointer, policy);
        if (Array.isArray(value)) {
          return value.map((item: unknown, i) => this.jsonValue(item, childPointer(pointer, i), policy));
        }
        if (!isPlainObject(value)) {
          this.problem(pointer, `${describe(value)} is not a JSON value`);
          return null;
        }
        const out: EsrpJsonObject = {};
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (item === undefined) continue;
          const at = childPointer(pointer, key);
          if (hasLoneSurrogate(key)) this.problem(at, 'the key contains a lone surrogate');
          defineField(out, key, this.jsonValue(item, at, policy));
        }
        return out;
      }
      default:
        this.problem(pointer, `${describe(value)} is not a JSON value`);
        return null;
    }
  }

  private numberValue(n: number, pointer: string, policy: NumberPolicy): EsrpJsonValue {
    if (!Number.isFinite(n)) {
      this.problem(pointer, `number ${String(n)} is not valid JSON`);
      return null;
    }
    if (policy === 'any') return n;
    if (Number.isSafeInteger(n)) return Object.is(n, -0) ? 0 : n;
    if (Number.isInteger(n)) {
      this.problem(
        pointer,
        `integer ${String(n)} is beyond 2^53 and may have lost digits; parse the text losslessly (parseEsrpRequestText) or send it as a string`,
      );
    } else {
      this.problem(
        pointer,
        `number ${String(n)} is not an integer; ESRP forbids non-integer numbers in requests (send it as a string, e.g. "${String(n)}")`,
      );
    }
    return n;
  }

  private numberText(text: string, pointer: string, policy: NumberPolicy): EsrpJsonValue {
    const reason = nonIntegerReason(text);
    if (reason === undefined) {
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : BigInt(text);
    }
    if (policy === 'any') {
      const n = Number(text);
      if (Number.isFinite(n)) return n;
      this.problem(pointer, `number ${text} is too large for a double`);
      return null;
    }
    this.problem(
      pointer,
      `number ${text} ${reason}; ESRP forbids non-integer numbers in requests (send it as a string, e.g. "${text}")`,
    );
    return null;
  }

  private missing(pointer: string, key: string, what: string): void {
    this.problem(pointer, `${key} is required: ${what}`);
  }

  private stringValue(value: unknown, pointer: string, key: string): string | undefined {
    if (typeof value !== 'string') {
      this.problem(pointer, `${key} must be a string, not ${describe(value)}`);
      return undefined;
    }
    if (hasLoneSurrogate(value)) {
      this.problem(pointer, `${key} contains a lone surrogate`);
      return undefined;
    }
    return value;
  }

  private uuidValue(value: unknown, pointer: string, key: string): string | undefined {
    const uuid = typeof value === 'string' ? normalizeUuid(value) : undefined;
    if (uuid === undefined) {
      this.problem(
        pointer,
        `${key} must be a UUID (e.g. 550e8400-e29b-41d4-a716-446655440000), not ${describe(value)}`,
      );
    }
    return uuid;
  }

  private timestampValue(value: unknown, pointer: string, key: string): string | undefined {
    const ts = typeof value === 'string' ? normalizeTimestamp(value) : undefined;
    if (ts === undefined) {
      this.problem(
        pointer,
        `${key} must be an RFC 3339 date-time (e.g. 2025-01-01T00:00:00Z), not ${describe(value)}`,
      );
    }
    return ts;
  }
}

/** The integer a number, bigint or LosslessNumber holds exactly, or `undefined`. */
function integerOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (isLosslessNumber(value) && nonIntegerReason(value.value) === undefined) return BigInt(value.value);
  return undefined;
}

/** True for a plain object (prototype Object.prototype or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (isLosslessNumber(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sets `key` as an own enumerable property, even when it is `__proto__`. */
export function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A short description of a wire value for a problem message. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isLosslessNumber(value)) return `the number ${value.value}`;
  switch (typeof value) {
    case 'string': {
      const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      return `the string ${JSON.stringify(shown)}`;
    }
    case 'number':
    case 'bigint':
      return `the number ${String(value)}`;
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}
