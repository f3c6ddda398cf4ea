/**
 * How an ESRP request's `{inputs, params}` become a verb's plain input. The ESRP face hands
 * them as they are to a verb whose input schema takes them (the demo and SDK agents, which
 * call {@link checkedInput}), and turns them into the plain input itself for every other verb
 * (the Hyperspace primitives; docs/decisions/primitive-names.md):
 *
 * - an input named `input` holding JSON (`application/json`) is the plain input itself — what
 *   `plexus call --data` sends;
 * - every other input becomes one field, named by the input's `name`, holding its `data` as
 *   text (base64 decoded; `application/json` data parsed);
 * - the fields of `params` (an object) are added.
 *
 * So `{"inputs": [{"name": "input", "content_type": "application/json", "data": "{\"expression\":\"1+2\"}"}]}`
 * and `{"inputs": [{"name": "expression", "content_type": "text/plain", "data": "1+2"}]}` both
 * reach `math.evaluate` as `{"expression": "1+2"}`.
 */
import { decodeJsonText } from '../../core/bounded-json.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { schemaValidator, throwIfProblems, type JsonSchema } from '../../core/schema-validator.js';

/** The name of the input that carries the whole plain input as JSON. */
export const WHOLE_INPUT_NAME = 'input';

/** The shape of the data the ESRP face decodes a request to. */
export const ESRP_DATA_SCHEMA = {
  type: 'object',
  required: ['inputs', 'params'],
  additionalProperties: false,
  properties: {
    inputs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'data'],
        properties: { name: { type: 'string' }, data: { type: 'string' } },
      },
    },
    params: true,
  },
} as const;

/**
 * A capability input schema that takes either the plain input (checked by `plain`) or the
 * ESRP request data (checked by the handler after {@link plainInput}).
 */
export function withEsrpInput(plain: JsonSchema): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    if: ESRP_DATA_SCHEMA,
    then: true,
    else: plain,
  };
}

/** True when `value` is the `{inputs, params}` data of an ESRP request. */
export function isEsrpData(
  value: JsonValue,
): value is JsonObject & { inputs: JsonValue[]; params: JsonValue } {
  return (
    isJsonObject(value) &&
    Array.isArray(value['inputs']) &&
    'params' in value &&
    Object.keys(value).length === 2
  );
}

function inputValue(item: JsonObject): JsonValue {
  const raw = typeof item['data'] === 'string' ? item['data'] : '';
  const text = item['encoding'] === 'base64' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (isJsonInput(item)) {
    try {
      // Bounded like every face's input: too deep or unrecordable is refused, never a crash.
      return decodeJsonText(text) as JsonValue;
    } catch (cause) {
      if (cause instanceof PlexusError && cause.code !== 'PARSE_ERROR') {
        throw new PlexusError('INVALID_PARAMS', `input ${JSON.stringify(item['name'])}: ${cause.message}`, {
          cause,
          details: { pointer: '/inputs' },
        });
      }
      throw new PlexusError(
        'INVALID_PARAMS',
        `input ${JSON.stringify(item['name'])} says application/json but is not JSON`,
        {
          cause,
          details: { pointer: '/inputs' },
        },
      );
    }
  }
  return text;
}

function isJsonInput(item: JsonObject): boolean {
  return typeof item['content_type'] === 'string' && item['content_type'].startsWith('application/json');
}

/**
 * Refuses, before any job exists, an `application/json` input of ESRP `data` whose text is too
 * deep, too large or cannot be recorded in the event log (issue 11 item 5): the same bounded
 * decoding as {@link plainInput}, for a verb that reads the `{inputs, params}` itself. Text that
 * is not JSON at all is left to the verb, which reports it as before.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.pointer` `/inputs`).
 */
export function checkJsonInputs(data: JsonValue): void {
  if (!isEsrpData(data)) return;
  for (const item of data.inputs) {
    if (!isJsonObject(item) || !isJsonInput(item)) continue;
    try {
      inputValue(item);
    } catch (cause) {
      if (!(cause instanceof PlexusError) || !(cause.cause instanceof PlexusError)) continue;
      if (cause.cause.code === 'PARSE_ERROR') continue;
      throw cause;
    }
  }
}

/**
 * The plain input of a request: `input` itself, or for ESRP data the value described in the
 * module comment (a non-object whole input, with no other inputs or params, is returned as is).
 *
 * @throws PlexusError `INVALID_PARAMS` for an `application/json` input that is not JSON.
 */
export function plainInput(input: JsonValue): JsonValue {
  if (!isEsrpData(input)) return input;
  const items = input.inputs.filter(
    (item): item is JsonObject =>
      isJsonObject(item) && typeof item['name'] === 'string' && typeof item['data'] === 'string',
  );
  const whole = items.find((item) => item['name'] === WHOLE_INPUT_NAME && isJsonInput(item));
  const named = items.filter((item) => item !== whole);
  const base = whole === undefined ? undefined : inputValue(whole);
  const params = isJsonObject(input.params) ? input.params : undefined;
  if (base !== undefined && !isJsonObject(base)) {
    if (named.length === 0 && params === undefined) return base;
    throw new PlexusError(
      'INVALID_PARAMS',
      `input "${WHOLE_INPUT_NAME}" must be a JSON object when other inputs or params are given`,
      {
        details: { pointer: '/inputs' },
      },
    );
  }
  const out: JsonObject = { ...(base ?? {}) };
  for (const item of named) out[item['name'] as string] = inputValue(item);
  return params === undefined ? out : { ...out, ...params };
}

/**
 * The plain input of a request, checked against `schema` when it came from ESRP data (the
 * runtime already checked a plain input).
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when it does not match.
 */
export function checkedInput(input: JsonValue, schema: JsonSchema): JsonValue {
  if (!isEsrpData(input)) return input;
  const plain = plainInput(input);
  throwIfProblems(schemaValidator().validate(schema, plain), 'input');
  return plain;
}
