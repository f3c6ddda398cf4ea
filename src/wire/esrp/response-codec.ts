/**
 * The `esrp-response` codec: an ESRP v1 response ↔ a core Envelope of kind `response`
 * (status `succeeded` or `accepted`) or `error` (status `failed`).
 *
 * Decoding: `id` and `correlationId` = `request_id`; `from`, `to` and `verb` are empty (an
 * ESRP response does not name them; the transport that matched it to its request fills
 * them in); `timestamp` = the latest of `finished_at`, `started_at`, `accepted_at`;
 * `schemaVersion` = `esrp_version`; `timing` under `_x_esrp_timing`.
 * - `response`: `data` = `{status, outputs, artifacts, job?}`.
 * - `error`: `data` = an ErrorData: `code` = the Plexus code of the ESRP code
 *   (`ESRP_TO_PLEXUS`), `message`, `retryable`, and `details.esrp` = the rest of the ESRP
 *   error (`code`, `retry_after_ms`, `retry_strategy`, `max_retries`, `details`); non-empty
 *   `outputs` / `artifacts` and `job` go under `_x_esrp_*` extensions.
 */
import type { Envelope } from '../../core/envelope.js';
import { isPlexusErrorCode, PlexusError } from '../../core/errors.js';
import { ESRP_ERROR_TABLE } from '../../core/esrp/error-table.js';
import { ESRP_ERROR_CODES, type EsrpErrorCode, type EsrpResponse } from '../../core/esrp/model.js';
import { invalidDocument } from '../../core/esrp/request.js';
import { readEsrpResponse } from '../../core/esrp/response.js';
import { esrpVersionProblem } from '../../core/esrp/rules.js';
import { normalizeUuid } from '../../core/esrp/uuid.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import type { WireCodec } from '../codec.js';
import { esrpDecodeError } from './decode-error.js';
import { ESRP_ERRORS, ESRP_TO_PLEXUS } from './error-table.js';
import { ESRP_EXTENSIONS as X } from './extensions.js';
import { recordToJson, toEnvelopeJson } from './json-value.js';

/** The ESRP response codec. */
export const esrpResponseCodec: WireCodec<JsonObject> = {
  format: 'esrp-response',
  validate: (input) => check(input).problems,
  decode: decodeEsrpResponse,
  encode: encodeEsrpResponse,
};

/**
 * Decodes an ESRP response to a `response` or `error` Envelope.
 *
 * @throws PlexusError `VERSION_MISMATCH` when `esrp_version` is not 1.x, otherwise
 *   `INVALID_PARAMS` (ESRP `INVALID_INPUT_SCHEMA`), with `details.problems`.
 */
export function decodeEsrpResponse(input: unknown): Envelope {
  const { envelope, problems } = check(input);
  if (envelope === undefined || problems.length > 0) throw esrpDecodeError('response', problems);
  return envelope;
}

/**
 * Encodes a `response` or `error` Envelope as an ESRP response (plain JSON; `outputs` and
 * `artifacts` always present). A `response` whose `data` is not ESRP-shaped
 * (`{status, outputs, ...}`) becomes one `application/json` output named `result`; an
 * `error` from another face takes the ESRP code of its Plexus code (`ESRP_ERRORS[code]`).
 *
 * @throws PlexusError `INVALID_PARAMS` when the envelope is another kind, neither
 *   `correlationId` nor `id` is a UUID, or a field cannot be written in ESRP (`details.problems`).
 */
export function encodeEsrpResponse(envelope: Envelope): JsonObject {
  if (envelope.kind !== 'response' && envelope.kind !== 'error') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the esrp-response codec encodes response and error envelopes, not '${envelope.kind}'`,
    );
  }
  const ext = envelope.extensions ?? {};
  const answered = envelope.correlationId ?? envelope.id;
  const request_id = normalizeUuid(answered);
  if (request_id === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ESRP needs the UUID of the request answered; ${JSON.stringify(answered)} is not one`,
    );
  }
  const wire: Record<string, unknown> = {
    esrp_version:
      envelope.schemaVersion !== undefined && esrpVersionProblem(envelope.schemaVersion) === undefined
        ? envelope.schemaVersion
        : '1.0',
    request_id,
    timing:
      ext[X.timing] ?? (envelope.timestamp === undefined ? undefined : { finished_at: envelope.timestamp }),
  };
  if (envelope.kind === 'response') Object.assign(wire, responseBody(envelope.data));
  else Object.assign(wire, errorBody(envelope.data, ext));
  const { value, problems } = readEsrpResponse(wire, { rules: false });
  if (value === undefined || problems.length > 0) throw invalidDocument('response', problems);
  const out = recordToJson(value, '', problems);
  if (problems.length > 0) throw invalidDocument('response', problems);
  return out as JsonObject;
}

function check(input: unknown): { envelope: Envelope | undefined; problems: Problem[] } {
  const { value, problems } = readEsrpResponse(input, { rules: true });
  if (value === undefined) return { envelope: undefined, problems };
  return { envelope: toEnvelope(value, problems), problems };
}

function toEnvelope(r: EsrpResponse, problems: Problem[]): Envelope {
  const extensions: JsonObject = {};
  if (r.timing !== undefined) extensions[X.timing] = recordToJson(r.timing, '/timing', problems);
  const outputs = r.outputs.map((o, i) => recordToJson(o, `/outputs/${i}`, problems));
  const artifacts = r.artifacts.map((a, i) => recordToJson(a, `/artifacts/${i}`, problems));
  const job = r.job === undefined ? undefined : recordToJson(r.job, '/job', problems);
  let data: JsonValue;
  if (r.status === 'failed' && r.error !== undefined) {
    const e = r.error;
    const esrp: JsonObject = { code: e.code };
    if (e.retry_after_ms !== undefined) esrp['retry_after_ms'] = e.retry_after_ms;
    if (e.retry_strategy !== undefined) esrp['retry_strategy'] = e.retry_strategy;
    if (e.max_retries !== undefined) esrp['max_retries'] = e.max_retries;
    esrp['details'] = toEnvelopeJson(e.details, '/error/details', problems);
    data = { code: ESRP_TO_PLEXUS[e.code], message: e.message, retryable: e.retryable, details: { esrp } };
    if (outputs.length > 0) extensions[X.outputs] = outputs;
    if (artifacts.length > 0) extensions[X.artifacts] = artifacts;
    if (job !== undefined) extensions[X.job] = job;
  } else {
    data = { status: r.status, outputs, artifacts, ...(job === undefined ? {} : { job }) };
  }
  const timestamp = r.timing?.finished_at ?? r.timing?.started_at ?? r.timing?.accepted_at;
  return {
    id: r.request_id,
    kind: r.status === 'failed' ? 'error' : 'response',
    from: '',
    to: '',
    verb: '',
    data,
    correlationId: r.request_id,
    ...(timestamp === undefined ? {} : { timestamp }),
    schemaVersion: r.esrp_version,
    ...(Object.keys(extensions).length === 0 ? {} : { extensions }),
  };
}

function responseBody(data: JsonValue): Record<string, unknown> {
  if (isJsonObject(data) && (data['status'] === 'succeeded' || data['status'] === 'accepted')) {
    return {
      status: data['status'],
      outputs: data['outputs'],
      artifacts: data['artifacts'],
      job: data['job'],
    };
  }
  return {
    status: 'succeeded',
    outputs: [
      {
        name: 'result',
        content_type: 'application/json',
        data: JSON.stringify(data),
        encoding: 'utf-8',
        metadata: null,
      },
    ],
    artifacts: [],
  };
}

function errorBody(data: JsonValue, ext: JsonObject): Record<string, unknown> {
  const obj = isJsonObject(data) ? data : {};
  const details = isJsonObject(obj['details']) ? obj['details'] : undefined;
  const saved = isJsonObject(details?.['esrp']) ? details['esrp'] : undefined;
  const code = esrpCodeOf(saved?.['code'], obj['code']);
  let esrpDetails: JsonValue | undefined = saved === undefined ? details : saved['details'];
  if (esrpDetails === undefined) esrpDetails = null;
  return {
    status: 'failed',
    outputs: ext[X.outputs] ?? [],
    artifacts: ext[X.artifacts] ?? [],
    job: ext[X.job],
    error: {
      code,
      message: typeof obj['message'] === 'string' ? obj['message'] : `${code} error`,
      retryable: ESRP_ERROR_TABLE[code].retryable,
      retry_after_ms: saved?.['retry_after_ms'],
      retry_strategy: saved?.['retry_strategy'],
      max_retries: saved?.['max_retries'],
      details: esrpDetails,
    },
  };
}

function esrpCodeOf(saved: JsonValue | undefined, plexus: JsonValue | undefined): EsrpErrorCode {
  if (typeof saved === 'string' && (ESRP_ERROR_CODES as readonly string[]).includes(saved))
    return saved as EsrpErrorCode;
  if (isPlexusErrorCode(plexus)) return ESRP_ERRORS[plexus];
  return 'UNKNOWN';
}
