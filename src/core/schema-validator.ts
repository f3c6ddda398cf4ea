/**
 * JSON Schema (2020-12) validation for every layer: a thin wrapper over Ajv that compiles
 * each schema once and reports what is wrong as {@link Problem}s — one per failure, each
 * with an RFC 6901 JSON pointer and a message a person can act on.
 *
 * Messages read like `/tier: must be one of L0, L1, L2, L3`. A missing required property
 * points at the object that lacks it and names the property; an unknown property points at
 * the property itself.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { AnySchema, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PlexusError } from './errors.js';
import type { PlexusErrorCode } from './errors.js';
import type { JsonValue } from './json.js';
import { childPointer, formatProblem } from './problem.js';
import type { Problem } from './problem.js';

/**
 * A JSON Schema (2020-12): `true`, `false`, or a schema object. Schema objects are usually
 * written `as const` so the literal doubles as the source of the matching TypeScript type.
 */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** The dialect every Plexus schema declares in `$schema`. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Options for {@link createSchemaValidator}. */
export interface SchemaValidatorInit {
  /**
   * Ajv strict mode: reject schemas with unknown keywords, ambiguous types or required
   * properties that are not declared. Plexus's own schemas pass strict mode; schemas
   * written by agent authors are checked leniently by default.
   * @default false
   */
  readonly strict?: boolean;
}

/** Validates values against JSON Schemas, compiling each schema object once. */
export interface SchemaValidator {
  /**
   * Every problem `value` has against `schema`; empty when it is valid.
   * @throws PlexusError `INVALID_PARAMS` when `schema` is not a valid JSON Schema 2020-12.
   */
  validate(schema: JsonSchema, value: unknown): Problem[];
  /**
   * Compiles `schema` (once; later calls with the same object reuse the compiled form) and
   * returns a function giving every problem of a value.
   * @throws PlexusError `INVALID_PARAMS` when `schema` is not a valid JSON Schema 2020-12.
   */
  compile(schema: JsonSchema): (value: unknown) => Problem[];
  /**
   * Returns normally when `value` matches `schema`; `what` names the value in the message.
   * @throws PlexusError with `code` (default `INVALID_PARAMS`) and `details.problems` (each
   *   `{pointer, message}`) listing every problem; the message names the first few.
   */
  check(schema: JsonSchema, value: unknown, what: string, code?: PlexusErrorCode): void;
}

/**
 * ajv-formats is CommonJS and sets `module.exports.default` to the plugin itself, so
 * `.default` is the plugin whether the loader hands us `module.exports` (Node) or a
 * namespace object (bundlers, Vitest).
 */
const addFormats = addFormatsModule.default;

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  'date-time': 'an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
  date: 'an RFC 3339 full-date (YYYY-MM-DD)',
  time: 'an RFC 3339 time with a time zone',
  duration: 'an ISO 8601 duration',
  uri: 'an absolute URI',
  'uri-reference': 'a URI reference',
  uuid: 'a UUID',
  email: 'an email address',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  regex: 'a regular expression',
  'json-pointer': 'an RFC 6901 JSON pointer',
};

function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** Turns one Ajv error into a {@link Problem}. */
function toProblem(error: ErrorObject): Problem {
  const at = error.instancePath;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: at, message: `missing required property "${String(p['missingProperty'])}"` };
    case 'additionalProperties':
      return {
        pointer: childPointer(at, String(p['additionalProperty'])),
        message: `unknown property "${String(p['additionalProperty'])}" is not allowed here`,
      };
    case 'unevaluatedProperties':
      return {
        pointer: childPointer(at, String(p['unevaluatedProperty'])),
        message: `unknown property "${String(p['unevaluatedProperty'])}" is not allowed here`,
      };
    case 'propertyNames':
      return {
        pointer: childPointer(at, String(p['propertyName'])),
        message: `property name "${String(p['propertyName'])}" is not allowed here`,
      };
    case 'enum': {
      const allowed = (p['allowedValues'] as unknown[] | undefined) ?? [];
      return { pointer: at, message: `must be one of ${allowed.map(describeValue).join(', ')}` };
    }
    case 'const':
      return { pointer: at, message: `must be ${JSON.stringify(p['allowedValue'])}` };
    case 'type': {
      const raw = p['type'];
      const types = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
      return { pointer: at, message: `must be ${types.map(article).join(' or ')}` };
    }
    case 'format': {
      const name = String(p['format']);
      return { pointer: at, message: `must be ${FORMAT_NAMES[name] ?? `in the "${name}" format`}` };
    }
    case 'pattern':
      return { pointer: at, message: `must match the pattern ${String(p['pattern'])}` };
    case 'minLength': {
      const limit = Number(p['limit']);
      return {
        pointer: at,
        message: limit === 1 ? 'must not be empty' : `must have at least ${plural(limit, 'character')}`,
      };
    }
    case 'maxLength':
      return { pointer: at, message: `must have at most ${plural(Number(p['limit']), 'character')}` };
    case 'minItems': {
      const limit = Number(p['limit']);
      return {
        pointer: at,
        message: limit === 1 ? 'must not be empty' : `must have at least ${plural(limit, 'item')}`,
      };
    }
    case 'maxItems':
      return { pointer: at, message: `must have at most ${plural(Number(p['limit']), 'item')}` };
    case 'minProperties':
      return { pointer: at, message: `must have at least ${plural(Number(p['limit']), 'property')}` };
    case 'maxProperties':
      return { pointer: at, message: `must have at most ${plural(Number(p['limit']), 'property')}` };
    case 'uniqueItems': {
      const [a, b] = [Number(p['i']), Number(p['j'])].sort((x, y) => x - y);
      return {
        pointer: at,
        message: `must not contain duplicates (items ${String(a)} and ${String(b)} are equal)`,
      };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: at, message: `must be ${String(p['comparison'])} ${String(p['limit'])}` };
    case 'multipleOf':
      return { pointer: at, message: `must be a multiple of ${String(p['multipleOf'])}` };
    case 'anyOf':
      return { pointer: at, message: 'must match one of the allowed shapes' };
    case 'oneOf':
      return { pointer: at, message: 'must match exactly one of the allowed shapes' };
    case 'not':
      return { pointer: at, message: 'must not match the excluded shape' };
    case 'dependentRequired':
      return {
        pointer: at,
        message: `missing property "${String(p['missingProperty'])}", required when "${String(p['property'])}" is present`,
      };
    case 'false schema':
      return { pointer: at, message: 'no value is allowed here' };
    default:
      return { pointer: at, message: error.message ?? `fails the "${error.keyword}" rule` };
  }
}

function article(type: string): string {
  switch (type) {
    case 'null':
      return 'null';
    case 'integer':
    case 'object':
    case 'array':
      return `an ${type}`;
    default:
      return `a ${type}`;
  }
}

/**
 * Turns Ajv errors into problems: one per error, duplicates (same pointer and message)
 * removed, in Ajv's order. `if` errors are dropped (the `then`/`else` error says what is wrong).
 */
export function ajvErrorsToProblems(errors: readonly ErrorObject[] | null | undefined): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const error of errors ?? []) {
    if (error.keyword === 'if') continue;
    const problem = toProblem(error);
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(problem);
  }
  return out;
}

/**
 * Formats a list of problems for an error message: the first `limit` lines joined by `; `,
 * then how many more there are.
 */
export function summarizeProblems(problems: readonly Problem[], limit = 3): string {
  const shown = problems.slice(0, limit).map(formatProblem).join('; ');
  return problems.length > limit ? `${shown}; and ${problems.length - limit} more` : shown;
}

/** The `details` a PlexusError carries for a list of problems. */
export function problemsDetails(problems: readonly Problem[]): { problems: JsonValue[] } {
  return { problems: problems.map((p) => ({ pointer: p.pointer, message: p.message })) };
}

/**
 * Throws a PlexusError listing `problems` when there are any.
 *
 * @throws PlexusError `code` (default `INVALID_PARAMS`) with message `"<what> is invalid: …"`
 *   and `details.problems`.
 */
export function throwIfProblems(
  problems: readonly Problem[],
  what: string,
  code: PlexusErrorCode = 'INVALID_PARAMS',
): void {
  if (problems.length === 0) return;
  throw new PlexusError(code, `${what} is invalid: ${summarizeProblems(problems)}`, {
    details: problemsDetails(problems),
  });
}

/**
 * Replaces every problem reported exactly at `pointer` by one problem with `message` (used
 * when a semantic check explains better than a schema keyword did, e.g. a verb name).
 * Mutates and returns `problems`; the new problem takes the place of the first one removed,
 * or goes last.
 */
export function replaceProblemsAt(problems: Problem[], pointer: string, message: string): Problem[] {
  const first = problems.findIndex((p) => p.pointer === pointer);
  const kept = problems.filter((p) => p.pointer !== pointer);
  kept.splice(first === -1 ? kept.length : first, 0, { pointer, message });
  problems.splice(0, problems.length, ...kept);
  return problems;
}

const TRUE_CHECK = (): Problem[] => [];
const FALSE_CHECK = (): Problem[] => [{ pointer: '', message: 'no value is allowed here' }];

/**
 * Creates a validator with its own Ajv 2020 instance (all errors, formats of ajv-formats,
 * no logging) and compile cache.
 *
 * @example
 * const v = createSchemaValidator();
 * v.validate({ type: 'string' }, 1); // [{ pointer: '', message: 'must be a string' }]
 */
export function createSchemaValidator(init: SchemaValidatorInit = {}): SchemaValidator {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: init.strict ?? false,
    allowUnionTypes: true,
    logger: false,
    addUsedSchema: false,
    validateFormats: true,
  });
  addFormats(ajv);
  const cache = new WeakMap<object, (value: unknown) => Problem[]>();

  const compile = (schema: JsonSchema): ((value: unknown) => Problem[]) => {
    if (schema === true) return TRUE_CHECK;
    if (schema === false) return FALSE_CHECK;
    const hit = cache.get(schema);
    if (hit !== undefined) return hit;
    let fn: ValidateFunction;
    try {
      fn = ajv.compile(schema as AnySchema);
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new PlexusError('INVALID_PARAMS', `the schema is not a valid JSON Schema 2020-12: ${why}`, {
        cause,
      });
    }
    const check = (value: unknown): Problem[] => (fn(value) ? [] : ajvErrorsToProblems(fn.errors));
    cache.set(schema, check);
    return check;
  };

  return {
    compile,
    validate: (schema, value) => compile(schema)(value),
    check(schema: JsonSchema, value: unknown, what: string, code: PlexusErrorCode = 'INVALID_PARAMS'): void {
      throwIfProblems(compile(schema)(value), what, code);
    },
  };
}

let shared: SchemaValidator | undefined;

/** The process-wide lenient validator (created on first use). */
export function schemaValidator(): SchemaValidator {
  shared ??= createSchemaValidator();
  return shared;
}

/**
 * Every problem `value` has against `schema`, using the shared validator.
 * @throws PlexusError `INVALID_PARAMS` when `schema` is not a valid JSON Schema 2020-12.
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown): Problem[] {
  return schemaValidator().validate(schema, value);
}
