/**
 * The `esrp-request` codec: an ESRP v1 request ↔ a core Envelope of kind `request`.
 *
 * Decoding: `id` = `request_id`; `verb` = `service.operation`; `from` = `caller.agent_id`
 * (or `caller.system`); `to` = `target.service`; `data` = `{inputs, params}`;
 * `scopeId` / `causationId` from `scope_id` / `causation_id`; `traceparent` from `context`;
 * `timestamp`; `schemaVersion` = `esrp_version`; everything else under `_x_esrp_*`
 * extensions. Encoding inverts this, so `encode(decode(r))` is the typed-parsed `r`.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { ESRP_DEFAULT_TIMEOUT_MS, type EsrpContext, type EsrpRequest } from '../../core/esrp/model.js';
import { invalidDocument, readEsrpRequest } from '../../core/esrp/request.js';
import { esrpVersionProblem } from '../../core/esrp/rules.js';
import { normalizeTimestamp, timestampToMillis } from '../../core/esrp/timestamp.js';
import { normalizeUuid } from '../../core/esrp/uuid.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import type { WireCodec } from '../codec.js';
import { esrpDecodeError } from './decode-error.js';
import { ESRP_EXTENSIONS as X } from './extensions.js';
import { recordToJson, toEnvelopeJson } from './json-value.js';
import { contextFromTraceparent, traceparentFromContext } from './trace.js';

/** The ESRP request codec. */
export const esrpRequestCodec: WireCodec<JsonObject> = {
  format: 'esrp-request',
  validate: (input) => check(input).problems,
  decode: decodeEsrpRequest,
  encode: encodeEsrpRequest,
};

/**
 * Decodes an ESRP request (parsed JSON; from `parseJsonLossless` numbers are judged on their
 * source text) to a request Envelope.
 *
 * @throws PlexusError `VERSION_MISMATCH` when `esrp_version` is not 1.x, otherwise
 *   `INVALID_PARAMS` (ESRP `INVALID_INPUT_SCHEMA`), with `details.problems`.
 */
export function decodeEsrpRequest(input: unknown): Envelope {
  return decodeEsrpRequestTyped(input).envelope;
}

/**
 * {@link decodeEsrpRequest}, also returning the typed request it read (the reference's typed
 * parse, as `parseEsrpRequest` gives it), so a face needs one read of the document, not two.
 *
 * @throws PlexusError as {@link decodeEsrpRequest}.
 */
export function decodeEsrpRequestTyped(input: unknown): {
  readonly envelope: Envelope;
  readonly typed: EsrpRequest;
} {
  const { value, problems } = readEsrpRequest(input, { rules: true });
  const envelope = value === undefined ? undefined : toEnvelope(value, problems);
  if (value === undefined || envelope === undefined || problems.length > 0) {
    throw esrpDecodeError('request', problems);
  }
  return { envelope, typed: value };
}

/**
 * Encodes a request Envelope as an ESRP request (plain JSON, typed-parse normal form).
 *
 * @throws PlexusError `INVALID_PARAMS` when the envelope is not a request, its `id` is not a
 *   UUID, it has no `timestamp`, its verb is not `service.operation`, `data` is not
 *   `{inputs, params}`, or another field cannot be written in ESRP (`details.problems`).
 */
export function encodeEsrpRequest(envelope: Envelope): JsonObject {
  if (envelope.kind !== 'request') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the esrp-request codec encodes request envelopes, not '${envelope.kind}'`,
    );
  }
  const ext = envelope.extensions ?? {};
  const request_id = normalizeUuid(envelope.id);
  if (request_id === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ESRP needs a UUID request_id; envelope id ${JSON.stringify(envelope.id)} is not one`,
    );
  }
  const timestamp = envelope.timestamp === undefined ? undefined : normalizeTimestamp(envelope.timestamp);
  if (timestamp === undefined) {
    throw new PlexusError('INVALID_PARAMS', 'ESRP needs a timestamp; set the envelope timestamp (RFC 3339)');
  }
  if (!isJsonObject(envelope.data) || !Array.isArray(envelope.data['inputs'])) {
    throw new PlexusError('INVALID_PARAMS', 'an ESRP request envelope needs data {inputs: [...], params}');
  }
  const wire: Record<string, unknown> = {
    esrp_version:
      envelope.schemaVersion !== undefined && esrpVersionProblem(envelope.schemaVersion) === undefined
        ? envelope.schemaVersion
        : '1.0',
    request_id,
    idempotency_key: ext[X.idempotencyKey],
    timestamp,
    scope_id: optionalUuid(envelope.scopeId, 'scopeId'),
    causation_id: optionalUuid(envelope.causationId, 'causationId'),
    payload_hash: ext[X.payloadHash],
    caller: callerFor(envelope),
    target: targetFor(envelope),
    mode: ext[X.mode] ?? { type: 'sync', timeout_ms: timeoutFromDeadline(envelope, timestamp) },
    context: contextFor(envelope),
    inputs: envelope.data['inputs'],
    params: envelope.data['params'] ?? null,
    params_schema_ref: ext[X.paramsSchemaRef],
  };
  const { value, problems } = readEsrpRequest(wire, { rules: false });
  if (value === undefined || problems.length > 0) throw invalidDocument('request', problems);
  const out = recordToJson(value, '', problems);
  if (problems.length > 0) throw invalidDocument('request', problems);
  return out as JsonObject;
}

function check(input: unknown): { envelope: Envelope | undefined; problems: Problem[] } {
  const { value, problems } = readEsrpRequest(input, { rules: true });
  if (value === undefined) return { envelope: undefined, problems };
  return { envelope: toEnvelope(value, problems), problems };
}

function toEnvelope(r: EsrpRequest, problems: Problem[]): Envelope {
  const extensions: JsonObject = {
    [X.caller]: recordToJson(r.caller, '/caller', problems),
    [X.target]: recordToJson(r.target, '/target', problems),
    [X.mode]: recordToJson(r.mode, '/mode', problems),
  };
  if (r.context !== undefined) extensions[X.context] = recordToJson(r.context, '/context', problems);
  if (r.idempotency_key !== undefined) extensions[X.idempotencyKey] = r.idempotency_key;
  if (r.payload_hash !== undefined) extensions[X.payloadHash] = r.payload_hash;
  if (r.params_schema_ref !== undefined) extensions[X.paramsSchemaRef] = r.params_schema_ref;
  const traceparent = r.context === undefined ? undefined : traceparentFromContext(r.context);
  const data: JsonObject = {
    inputs: r.inputs.map((input, i) => recordToJson(input, `/inputs/${i}`, problems)),
    params: toEnvelopeJson(r.params, '/params', problems),
  };
  return {
    id: r.request_id,
    kind: 'request',
    from: r.caller.agent_id ?? r.caller.system,
    to: r.target.service,
    verb: `${r.target.service}.${r.target.operation}`,
    data,
    ...(r.causation_id === undefined ? {} : { causationId: r.causation_id }),
    ...(r.scope_id === undefined ? {} : { scopeId: r.scope_id }),
    ...(traceparent === undefined ? {} : { traceparent }),
    timestamp: r.timestamp,
    schemaVersion: r.esrp_version,
    extensions,
  };
}

/** `caller` from the extension, with `from` written into it when they disagree. */
function callerFor(envelope: Envelope): JsonValue {
  const saved = envelope.extensions?.[X.caller];
  const caller: JsonObject = isJsonObject(saved) ? { ...saved } : { system: 'plexus' };
  const agent = caller['agent_id'];
  const shown = typeof agent === 'string' ? agent : caller['system'];
  if (shown !== envelope.from) caller['agent_id'] = envelope.from;
  return caller;
}

/** `target` from the extension when it matches the verb, else split from the verb. */
function targetFor(envelope: Envelope): JsonValue {
  const saved = envelope.extensions?.[X.target];
  if (isJsonObject(saved)) {
    const { service, operation } = saved;
    if (
      typeof service === 'string' &&
      typeof operation === 'string' &&
      `${service}.${operation}` === envelope.verb
    ) {
      return saved;
    }
  }
  const name = envelope.verb.split('@')[0] ?? '';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ESRP needs a verb of the form service.operation, not ${JSON.stringify(envelope.verb)}`,
    );
  }
  return { service: name.slice(0, dot), operation: name.slice(dot + 1) };
}

/** `context` from the extension when it agrees with `traceparent`, else from `traceparent`. */
function contextFor(envelope: Envelope): JsonValue | undefined {
  const saved = envelope.extensions?.[X.context];
  if (isJsonObject(saved)) {
    const derived = traceparentFromContext(saved as unknown as EsrpContext);
    if (envelope.traceparent === undefined || derived === envelope.traceparent) return saved;
  }
  if (envelope.traceparent === undefined) return undefined;
  const context = contextFromTraceparent(envelope.traceparent);
  if (context === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `traceparent ${JSON.stringify(envelope.traceparent)} is not a W3C version-00 traceparent`,
    );
  }
  return { trace_id: context.trace_id, span_id: context.span_id, tags: null };
}

function timeoutFromDeadline(envelope: Envelope, timestamp: string): number {
  if (envelope.deadline === undefined) return ESRP_DEFAULT_TIMEOUT_MS;
  const start = timestampToMillis(timestamp);
  const end = timestampToMillis(envelope.deadline);
  if (start === undefined || end === undefined || end <= start) return ESRP_DEFAULT_TIMEOUT_MS;
  return end - start;
}

function optionalUuid(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const uuid = normalizeUuid(value);
  if (uuid === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ESRP needs a UUID for ${field}; ${JSON.stringify(value)} is not one`,
    );
  }
  return uuid;
}
