/**
 * ESRP v1 responses built from what the runtime answers: a synchronous invocation, a job
 * record (GET / DELETE `/v1/jobs/{id}`), an accepted submission, or a refusal. Every body
 * written here passes the ESRP response rules (`validateEsrpResponse`).
 *
 * How handler output reads on the ESRP face: an object whose only keys are `outputs` (an
 * array of ESRP outputs) and optionally `artifacts` (ESRP artifacts) is used as the response's
 * outputs and artifacts; any other JSON becomes one output named `result`
 * (`application/json`, `utf-8`, `data` = the output's RFC 8785 canonical JSON text, so a
 * replayed answer is byte for byte the first one).
 */
import type { Envelope } from '../../core/envelope.js';
import {
  ERROR_TABLE,
  PlexusError,
  isPlexusErrorCode,
  type ErrorData,
  type PlexusErrorCode,
} from '../../core/errors.js';
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { errorHintsOf, recoveryFields } from '../../core/error-recovery.js';
import { agenteseRefusalOf, type AgenteseRefusal } from '../../core/refusal.js';
import { ESRP_VERSION } from '../../core/esrp/model.js';
import { validateEsrpResponse } from '../../core/esrp/response.js';
import { normalizeUuid } from '../../core/esrp/uuid.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { JOB_STATE_TO_ESRP, isJobState, isTerminalJobState, type Job } from '../../core/records/job.js';
import { JOB_EXTENSION } from '../../runtime/pipeline/encode.js';
import { eraWarnings, warningsOf, type EraWarning } from '../../runtime/pipeline/era.js';
import type { Registry } from '../../runtime/agents/registry.js';
import type { Invocation } from '../../runtime/runtime-interface.js';
import { deprecationHeaders, retryAfterHeader } from './http-deprecation.js';
import { ESRP_ERROR_TABLE } from '../../core/esrp/error-table.js';
import { ESRP_ERRORS } from '../../wire/esrp/error-table.js';
import { HTTP_STATUS } from './http-status.js';

/** The `request_id` of an answer that answers no identifiable ESRP request (the nil UUID). */
export const NIL_REQUEST_ID = '00000000-0000-0000-0000-000000000000';

/** The name of the single output that carries non-ESRP-shaped handler output. */
export const RESULT_OUTPUT_NAME = 'result';

/** An ESRP answer: the HTTP status, the response body and extra response headers. */
export interface EsrpAnswer {
  readonly status: number;
  readonly body: JsonObject;
  /** `Deprecation` / `Sunset` / `Link` (warnings), `Retry-After` (retryable errors). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The key under which deprecation warnings appear in output `metadata` and error `details`. */
export const ESRP_WARNINGS_KEY = 'warnings';

/** The parts of an ESRP response; absent parts are left out (outputs/artifacts default to []). */
export interface EsrpResponseParts {
  readonly requestId: string;
  readonly status: 'succeeded' | 'failed' | 'accepted';
  readonly timing?: JsonObject;
  readonly outputs?: readonly JsonValue[];
  readonly artifacts?: readonly JsonValue[];
  readonly job?: JsonObject;
  readonly error?: JsonObject;
}

/** Writes an ESRP response object in the reference's field order. */
export function esrpResponse(parts: EsrpResponseParts): JsonObject {
  const body: JsonObject = {
    esrp_version: ESRP_VERSION,
    request_id: parts.requestId,
    status: parts.status,
  };
  if (parts.timing !== undefined) body['timing'] = parts.timing;
  body['outputs'] = [...(parts.outputs ?? [])];
  body['artifacts'] = [...(parts.artifacts ?? [])];
  if (parts.job !== undefined) body['job'] = parts.job;
  if (parts.error !== undefined) body['error'] = parts.error;
  return body;
}

/** `value` as a lower-case UUID when it is one, else {@link NIL_REQUEST_ID}. */
export function esrpRequestIdOf(value: unknown): string {
  return (typeof value === 'string' ? normalizeUuid(value) : undefined) ?? NIL_REQUEST_ID;
}

/** The `request_id` of the request that created `job` (its correlation id, else the job id). */
export function requestIdOfJob(job: Job): string {
  const fromRequest = job.correlationId === undefined ? undefined : normalizeUuid(job.correlationId);
  return fromRequest ?? esrpRequestIdOf(job.id);
}

/** The RFC 8785 text of `value`; plain JSON text when it cannot be canonicalised (a lone surrogate). */
function jsonText(value: JsonValue): string {
  try {
    return canonicalizeJcs(value);
  } catch {
    return JSON.stringify(value);
  }
}

function withMetadata(item: JsonValue): JsonValue {
  return isJsonObject(item) && !('metadata' in item) ? { ...item, metadata: null } : item;
}

/**
 * The ESRP `outputs` and `artifacts` of a handler's output (see the module comment): used as
 * they are when the output is `{outputs: [...], artifacts?: [...]}` and both pass the ESRP
 * rules (a missing output `metadata` becomes `null`), otherwise one `result` output holding the
 * output's canonical (RFC 8785) JSON text.
 */
export function esrpOutputsOf(output: JsonValue | undefined): {
  outputs: JsonValue[];
  artifacts: JsonValue[];
} {
  if (
    isJsonObject(output) &&
    Array.isArray(output['outputs']) &&
    Object.keys(output).every((k) => k === 'outputs' || k === 'artifacts') &&
    (output['artifacts'] === undefined || Array.isArray(output['artifacts']))
  ) {
    const outputs = output['outputs'].map(withMetadata);
    const artifacts = Array.isArray(output['artifacts']) ? [...output['artifacts']] : [];
    const probe = esrpResponse({ requestId: NIL_REQUEST_ID, status: 'succeeded', outputs, artifacts });
    if (validateEsrpResponse(probe).length === 0) return { outputs, artifacts };
  }
  return {
    outputs: [
      {
        name: RESULT_OUTPUT_NAME,
        content_type: 'application/json',
        data: jsonText(output ?? null),
        encoding: 'utf-8',
        metadata: null,
      },
    ],
    artifacts: [],
  };
}

/** The ESRP `timing` of a job: accepted, started and finished times and `duration_ms`. */
export function esrpTimingOf(job: Job): JsonObject {
  const { timing } = job;
  const out: JsonObject = { accepted_at: timing.createdAt };
  if (timing.startedAt !== undefined) out['started_at'] = timing.startedAt;
  if (timing.finishedAt !== undefined) {
    out['finished_at'] = timing.finishedAt;
    const from = Date.parse(timing.startedAt ?? timing.createdAt);
    const to = Date.parse(timing.finishedAt);
    if (!Number.isNaN(from) && !Number.isNaN(to)) out['duration_ms'] = Math.max(0, to - from);
  }
  return out;
}

/** The ESRP `job` object (`job_id`, `state` as the ESRP face shows it, D8). */
export function esrpJobOf(job: Pick<Job, 'id' | 'state'>): JsonObject {
  return { job_id: job.id, state: JOB_STATE_TO_ESRP[job.state] };
}

/** An ErrorData from anything an error envelope may carry (`INTERNAL` when it is not one). */
export function errorDataOf(value: unknown): ErrorData {
  if (isJsonObject(value) && isPlexusErrorCode(value['code']) && typeof value['message'] === 'string') {
    const code = value['code'];
    const retryable =
      typeof value['retryable'] === 'boolean' ? value['retryable'] : ERROR_TABLE[code].retryable;
    const details = value['details'];
    const hints = errorHintsOf(value['hints']);
    return {
      code,
      message: value['message'],
      retryable,
      ...(isJsonObject(details) ? { details } : {}),
      ...(hints === undefined ? {} : { hints }),
    };
  }
  return { code: 'INTERNAL', message: 'the job failed without an error record', retryable: false };
}

/**
 * The ESRP `error` object of a Plexus error: the ESRP code of its Plexus code
 * (`ESRP_ERRORS[code]`), `retryable` as the ESRP table says for that code,
 * `retry_after_ms` when the error is retryable and has a delay, and `details` = the error's
 * details plus `plexus_code` (so a client can tell `UNKNOWN_VERB` from `NOT_FOUND`, which
 * share `INVALID_INPUT_SEMANTIC`) and the recovery fields of seed 002 §8.2 (`category`,
 * `retry_after`, `fallback_verb`, `suggested_action`, `verb`, `trace_id`); `warnings` lists
 * the deprecation warnings of the era that failed, when there are any.
 */
export function esrpErrorOf(
  error: PlexusError | ErrorData,
  warnings: readonly EraWarning[] = [],
): JsonObject {
  const data = error instanceof PlexusError ? error.toData() : error;
  const code = isPlexusErrorCode(data.code) ? ESRP_ERRORS[data.code] : 'UNKNOWN';
  const retryable = ESRP_ERROR_TABLE[code].retryable;
  // the hints follow what this answer says: ESRP's retryable flag is its code's
  const recovery = recoveryFields({ ...data, retryable });
  const details: JsonObject = { ...(data.details ?? {}), plexus_code: data.code, ...recovery };
  if (warnings.length > 0) details[ESRP_WARNINGS_KEY] = warnings.map((w) => ({ ...w }));
  const out: JsonObject = { code, message: data.message, retryable };
  if (retryable && recovery.retry_after !== undefined) out['retry_after_ms'] = recovery.retry_after * 1000;
  out['details'] = details;
  return out;
}

/** The HTTP status of a Plexus error on the ESRP face: `HTTP_STATUS[code]`. */
export function esrpHttpStatus(code: PlexusErrorCode): number {
  return HTTP_STATUS[code];
}

/**
 * The ESRP answer to a refused or failed request: status `failed`, the ESRP error, and the
 * HTTP status of the Plexus code.
 *
 * @param requestId the request answered; {@link NIL_REQUEST_ID} when none can be named.
 */
export function esrpErrorAnswer(
  error: PlexusError | ErrorData,
  requestId: string = NIL_REQUEST_ID,
  extra: {
    readonly job?: JsonObject;
    readonly timing?: JsonObject;
    readonly warnings?: readonly EraWarning[];
  } = {},
): EsrpAnswer {
  const data = error instanceof PlexusError ? error.toData() : error;
  const code: PlexusErrorCode = isPlexusErrorCode(data.code) ? data.code : 'INTERNAL';
  const warnings = extra.warnings ?? [];
  const body = esrpResponse({
    requestId,
    status: 'failed',
    timing: extra.timing ?? { finished_at: new Date().toISOString() },
    ...(extra.job === undefined ? {} : { job: extra.job }),
    error: esrpErrorOf(data, warnings),
  });
  const headers = { ...deprecationHeaders(warnings), ...retryAfterHeader(data) };
  return { status: esrpHttpStatus(code), body, ...(Object.keys(headers).length === 0 ? {} : { headers }) };
}

/** The key under which a refusal appears, seed-shaped, in the output `metadata`. */
export const ESRP_REFUSAL_KEY = 'refusal';

/**
 * `outputs` with the deprecation warnings (`warnings`) and the seed-shaped refusal
 * (`refusal`, seed 002 §8.3) added to every output's `metadata` (an object `metadata` keeps
 * its members; `null` becomes an object). Unchanged when there is neither.
 */
export function withOutputWarnings(
  outputs: readonly JsonValue[],
  warnings: readonly EraWarning[],
  refusal?: AgenteseRefusal,
): JsonValue[] {
  if (warnings.length === 0 && refusal === undefined) return [...outputs];
  const notes: JsonObject = {};
  if (warnings.length > 0) notes[ESRP_WARNINGS_KEY] = warnings.map((w) => ({ ...w }));
  if (refusal !== undefined) notes[ESRP_REFUSAL_KEY] = { ...refusal };
  return outputs.map((output) => {
    if (!isJsonObject(output)) return output;
    const metadata = isJsonObject(output['metadata']) ? output['metadata'] : {};
    return { ...output, metadata: { ...metadata, ...notes } };
  });
}

/** `headers` as an answer's optional member (absent when empty). */
function headersMember(headers: Readonly<Record<string, string>>): { headers?: Record<string, string> } {
  return Object.keys(headers).length === 0 ? {} : { headers: { ...headers } };
}

function jobFromExtension(envelope: Envelope): JsonObject | undefined {
  const ext = envelope.extensions?.[JOB_EXTENSION];
  if (!isJsonObject(ext) || typeof ext['id'] !== 'string' || !isJobState(ext['state'])) return undefined;
  return esrpJobOf({ id: ext['id'], state: ext['state'] });
}

/**
 * The ESRP answer to a synchronous invocation: `succeeded` (HTTP 200) with the handler's
 * outputs, or `failed` with the error (HTTP status of its Plexus code). The job (`job_id`,
 * `state`) and its timing are included when a job exists.
 */
export function esrpAnswerOfInvocation(invocation: Invocation, requestId: string): EsrpAnswer {
  const { envelope, job } = invocation;
  const warnings = invocation.warnings ?? warningsOf(envelope);
  const jobPart = job === undefined ? jobFromExtension(envelope) : esrpJobOf(job);
  const timing =
    job === undefined ? { finished_at: envelope.timestamp ?? new Date().toISOString() } : esrpTimingOf(job);
  if (envelope.kind === 'response') {
    const { outputs, artifacts } = esrpOutputsOf(envelope.data);
    return {
      status: 200,
      body: esrpResponse({
        requestId,
        status: 'succeeded',
        timing,
        outputs: withOutputWarnings(outputs, warnings, agenteseRefusalOf(envelope.data, envelope.verb)),
        artifacts,
        ...(jobPart === undefined ? {} : { job: jobPart }),
      }),
      ...headersMember(deprecationHeaders(warnings)),
    };
  }
  return esrpErrorAnswer(errorDataOf(envelope.data), requestId, {
    timing,
    warnings,
    ...(jobPart === undefined ? {} : { job: jobPart }),
  });
}

/**
 * A job as an ESRP response (`GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}`): `accepted` while
 * it is queued or running, `succeeded` with its outputs, or `failed` with its error (a
 * cancelled job is `failed` with job state `cancelled`).
 */
export function esrpSnapshotOfJob(job: Job, warnings: readonly EraWarning[] = []): JsonObject {
  const requestId = requestIdOfJob(job);
  const base = { requestId, timing: esrpTimingOf(job), job: esrpJobOf(job) };
  if (!isTerminalJobState(job.state)) return esrpResponse({ ...base, status: 'accepted' });
  if (job.state === 'COMPLETED') {
    const { outputs, artifacts } = esrpOutputsOf(job.outputs);
    return esrpResponse({
      ...base,
      status: 'succeeded',
      outputs: withOutputWarnings(outputs, warnings, agenteseRefusalOf(job.outputs, job.verb)),
      artifacts,
    });
  }
  const error: ErrorData =
    job.error ??
    (job.state === 'CANCELED'
      ? { code: 'CANCELLED', message: 'the job was cancelled', retryable: false }
      : { code: 'INTERNAL', message: 'the job failed without an error record', retryable: false });
  // the stored error names no verb: the job's verb is the context of its recovery fields
  const withVerb: ErrorData = { ...error, hints: { verb: job.verb, ...(error.hints ?? {}) } };
  return esrpResponse({ ...base, status: 'failed', error: esrpErrorOf(withVerb, warnings) });
}

/**
 * A job as the ESRP answer of `GET` / `DELETE /v1/jobs/{id}`: HTTP 200 with
 * {@link esrpSnapshotOfJob}, the deprecation warnings (body and headers) when the era of the
 * job's verb is deprecated now — looked up in `registry` among the agents offering the verb —
 * and `Retry-After` when it failed with a retryable error.
 */
export function esrpJobAnswer(job: Job, registry?: Registry, now: () => number = Date.now): EsrpAnswer {
  const warnings = registry === undefined ? [] : eraWarnings(registry, job.verb, undefined, now());
  const retry = job.state === 'FAILED' && job.error !== undefined ? retryAfterHeader(job.error) : {};
  return {
    status: 200,
    body: esrpSnapshotOfJob(job, warnings),
    ...headersMember({ ...deprecationHeaders(warnings), ...retry }),
  };
}

/** The `202 Accepted` answer to an asynchronous submission: status `accepted` with the job. */
export function esrpAcceptedAnswer(
  job: Job,
  requestId: string,
  warnings: readonly EraWarning[] = [],
): EsrpAnswer {
  return {
    status: 202,
    body: esrpResponse({
      requestId,
      status: 'accepted',
      timing: { accepted_at: job.timing.createdAt },
      job: esrpJobOf(job),
    }),
    ...headersMember(deprecationHeaders(warnings)),
  };
}
