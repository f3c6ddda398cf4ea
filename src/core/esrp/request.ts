/**
 * The ESRP request: the reference's typed parse (defaults filled in, unknown fields dropped,
 * UUIDs lower-cased, timestamps in UTC), its validation rules, and its canonical form.
 */
import { canonicalizeEsrp } from '../canonical/esrp.js';
import { PlexusError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { childPointer, formatProblem, type Problem } from '../problem.js';
import {
  ESRP_DEFAULT_TIMEOUT_MS,
  ESRP_ENCODINGS,
  ESRP_MODE_TYPES,
  type EsrpCaller,
  type EsrpContext,
  type EsrpInput,
  type EsrpMode,
  type EsrpRequest,
  type EsrpTarget,
} from './model.js';
import { payloadHash } from './payload-hash.js';
import { FieldReader, type NumberPolicy, type ObjectAt } from './reader.js';
import { checkDataItem, esrpVersionProblem } from './rules.js';

/** What {@link readEsrpRequest} found: the typed request when it could be built, and every problem. */
export interface EsrpReadResult<T> {
  readonly value: T | undefined;
  readonly problems: Problem[];
}

/**
 * Reads a request. With `rules: false` only what the reference's typed parse refuses is a
 * problem (a missing or mistyped field, a non-integer number); with `rules: true` the ESRP
 * validation rules are checked as well (version 1.x, non-empty inputs and names, workspace
 * URIs, a positive timeout, a matching `payload_hash`).
 */
export function readEsrpRequest(
  value: unknown,
  options: { readonly rules: boolean },
): EsrpReadResult<EsrpRequest> {
  const r = new FieldReader();
  const root = r.object(value, '', 'an ESRP request');
  if (root === undefined) return { value: undefined, problems: r.problems };
  const policy: NumberPolicy = 'integer';

  const esrp_version = r.string(root, 'esrp_version');
  const request_id = r.uuid(root, 'request_id');
  const idempotency_key = r.optionalString(root, 'idempotency_key');
  const timestamp = r.timestamp(root, 'timestamp');
  const scope_id = r.optionalUuid(root, 'scope_id');
  const causation_id = r.optionalUuid(root, 'causation_id');
  const payload_hash = r.optionalString(root, 'payload_hash');
  const caller = readCaller(r, root);
  const target = readTarget(r, root);
  const mode = readMode(r, root);
  const context = readContext(r, root);
  const inputs = readInputs(r, root, 'inputs', policy);
  const params = r.json(root, 'params', policy);
  const params_schema_ref = r.optionalString(root, 'params_schema_ref');

  if (options.rules) {
    if (esrp_version !== undefined) {
      const why = esrpVersionProblem(esrp_version);
      if (why !== undefined) r.problem('/esrp_version', why);
    }
    if (caller?.system === '') r.problem('/caller/system', 'caller.system must not be empty');
    if (target?.service === '') r.problem('/target/service', 'target.service must not be empty');
    if (target?.operation === '') r.problem('/target/operation', 'target.operation must not be empty');
    if (mode !== undefined && mode.timeout_ms <= 0) {
      r.problem('/mode/timeout_ms', 'mode.timeout_ms must be a positive integer');
    }
    if (inputs !== undefined) {
      if (inputs.length === 0)
        r.problem('/inputs', 'inputs must not be empty: at least one input is required');
      inputs.forEach((input, i) => {
        if (input !== undefined) checkDataItem(r, input, `/inputs/${i}`);
      });
    }
  }

  const complete =
    esrp_version !== undefined &&
    request_id !== undefined &&
    timestamp !== undefined &&
    caller !== undefined &&
    target !== undefined &&
    mode !== undefined &&
    inputs !== undefined &&
    inputs.every((i) => i !== undefined) &&
    !(r.raw(root, 'context') != null && context === undefined);
  if (!complete) return { value: undefined, problems: r.problems };

  const request: EsrpRequest = {
    esrp_version,
    request_id,
    ...(idempotency_key === undefined ? {} : { idempotency_key }),
    timestamp,
    ...(scope_id === undefined ? {} : { scope_id }),
    ...(causation_id === undefined ? {} : { causation_id }),
    ...(payload_hash === undefined ? {} : { payload_hash }),
    caller,
    target,
    mode,
    ...(context === undefined ? {} : { context }),
    inputs,
    params,
    ...(params_schema_ref === undefined ? {} : { params_schema_ref }),
  };

  if (options.rules && payload_hash !== undefined) {
    const expected = payloadHashOrUndefined(request);
    if (expected !== undefined && payload_hash !== expected) {
      r.problem(
        '/payload_hash',
        `payload_hash does not match the request's target, inputs and params (expected ${expected})`,
      );
    }
  }
  return { value: request, problems: r.problems };
}

/**
 * The reference's typed parse of a request value (from `JSON.parse` or, to judge numbers on
 * their source text and keep big integers exact, from `parseJsonLossless`).
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` (each `{pointer, message}`)
 *   when a field is missing or mistyped, or a number is not an integer.
 */
export function parseEsrpRequest(value: unknown): EsrpRequest {
  const { value: request, problems } = readEsrpRequest(value, { rules: false });
  if (request === undefined || problems.length > 0) throw invalidDocument('request', problems);
  return request;
}

/** Every problem in an ESRP request (typed parse and validation rules), each with its JSON pointer. */
export function validateEsrpRequest(value: unknown): Problem[] {
  return readEsrpRequest(value, { rules: true }).problems;
}

/**
 * The `esrp` canonical text of a typed request (what the reference hashes).
 *
 * @throws PlexusError `INVALID_PARAMS` when the request holds a value the profile refuses.
 */
export function canonicalizeEsrpRequest(request: EsrpRequest): string {
  return canonicalizeEsrp(request);
}

/** SHA-256 hex of the request's canonical text (the reference's `fixtures/v1/canonical/*.sha256`). */
export function esrpRequestHash(request: EsrpRequest): string {
  return sha256Hex(canonicalizeEsrpRequest(request));
}

/** Builds the PlexusError for a document with problems. */
export function invalidDocument(what: 'request' | 'response', problems: readonly Problem[]): PlexusError {
  const shown = problems.slice(0, 5).map(formatProblem).join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return new PlexusError('INVALID_PARAMS', `invalid ESRP ${what}: ${shown}${more}`, {
    details: { problems: problems.map((p) => ({ pointer: p.pointer, message: p.message })) },
  });
}

function readCaller(r: FieldReader, root: ObjectAt): EsrpCaller | undefined {
  const obj = readObjectField(r, root, 'caller', true);
  if (obj === undefined) return undefined;
  const system = r.string(obj, 'system');
  const agent_id = r.optionalString(obj, 'agent_id');
  const run_id = r.optionalString(obj, 'run_id');
  if (system === undefined) return undefined;
  return {
    system,
    ...(agent_id === undefined ? {} : { agent_id }),
    ...(run_id === undefined ? {} : { run_id }),
  };
}

function readTarget(r: FieldReader, root: ObjectAt): EsrpTarget | undefined {
  const obj = readObjectField(r, root, 'target', true);
  if (obj === undefined) return undefined;
  const service = r.string(obj, 'service');
  const operation = r.string(obj, 'operation');
  const variant = r.optionalString(obj, 'variant');
  if (service === undefined || operation === undefined) return undefined;
  return { service, operation, ...(variant === undefined ? {} : { variant }) };
}

function readMode(r: FieldReader, root: ObjectAt): EsrpMode | undefined {
  if (r.raw(root, 'mode') === undefined) return { type: 'sync', timeout_ms: ESRP_DEFAULT_TIMEOUT_MS };
  const obj = r.object(r.raw(root, 'mode'), '/mode', 'mode');
  if (obj === undefined) return undefined;
  const type = r.oneOf(obj, 'type', ESRP_MODE_TYPES, true);
  const absent = r.raw(obj, 'timeout_ms') === undefined;
  const timeout_ms = absent
    ? ESRP_DEFAULT_TIMEOUT_MS
    : r.integer(obj, 'timeout_ms', { min: 0, required: true });
  if (type === undefined || timeout_ms === undefined) return undefined;
  return { type, timeout_ms };
}

function readContext(r: FieldReader, root: ObjectAt): EsrpContext | undefined {
  const obj = readObjectField(r, root, 'context', false);
  if (obj === undefined) return undefined;
  const trace_id = r.uuid(obj, 'trace_id');
  const span_id = r.uuid(obj, 'span_id');
  const parent_span_id = r.optionalUuid(obj, 'parent_span_id');
  const tags = r.json(obj, 'tags', 'integer');
  if (trace_id === undefined || span_id === undefined) return undefined;
  return { trace_id, span_id, ...(parent_span_id === undefined ? {} : { parent_span_id }), tags };
}

/**
 * Reads the array field `key` of inputs (or outputs). Returns `undefined` when the field is
 * unusable, otherwise one entry per item (`undefined` where an item is unusable).
 */
export function readInputs(
  r: FieldReader,
  root: ObjectAt,
  key: string,
  policy: NumberPolicy,
  fallback?: readonly EsrpInput[],
): (EsrpInput | undefined)[] | undefined {
  const value = r.raw(root, key);
  const pointer = childPointer(root.pointer, key);
  if (value === undefined && fallback !== undefined) return [...fallback];
  if (!Array.isArray(value)) {
    r.problem(pointer, value === undefined ? `${key} is required: an array` : `${key} must be an array`);
    return undefined;
  }
  return value.map((item: unknown, i) => readInput(r, item, childPointer(pointer, i), policy));
}

function readInput(
  r: FieldReader,
  value: unknown,
  pointer: string,
  policy: NumberPolicy,
): EsrpInput | undefined {
  const obj = r.object(value, pointer, 'each item');
  if (obj === undefined) return undefined;
  const name = r.string(obj, 'name');
  const content_type = r.string(obj, 'content_type');
  const data = r.string(obj, 'data');
  const encoding = r.oneOf(obj, 'encoding', ESRP_ENCODINGS, true);
  const metadata = r.json(obj, 'metadata', policy);
  if (name === undefined || content_type === undefined || data === undefined || encoding === undefined) {
    return undefined;
  }
  return { name, content_type, data, encoding, metadata };
}

/** Reads an object-valued field; `null` or absent is `undefined` (a problem when `required`). */
export function readObjectField(
  r: FieldReader,
  root: ObjectAt,
  key: string,
  required: boolean,
): ObjectAt | undefined {
  const value = r.raw(root, key);
  const pointer = childPointer(root.pointer, key);
  if (value === undefined || (value === null && !required)) {
    if (required) r.problem(pointer, `${key} is required: an object`);
    return undefined;
  }
  return r.object(value, pointer, key);
}

function payloadHashOrUndefined(request: EsrpRequest): string | undefined {
  try {
    return payloadHash(request);
  } catch {
    return undefined; // the offending value is already reported at its own pointer
  }
}
