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
  ESRP_ERROR_TABLE,
  PlexusError,
  isPlexusErrorCode,
  type ErrorData,
  type PlexusErrorCode,
} from '../../core/errors.js';
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { ESRP_VERSION } from '../../core/esrp/model.js';
import { validateEsrpResponse } from '../../core/esrp/response.js';
import { normalizeUuid } from '../../core/esrp/uuid.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { JOB_STATE_TO_ESRP, isJobState, isTerminalJobState, type Job } from '../../core/records/job.js';
import { JOB_EXTENSION } from '../../runtime/pipeline/encode.js';
import type { Invocation } from '../../runtime/runtime-types.js';

/** The `request_id` of an answer that answers no identifiable ESRP request (the nil UUID). */
export const NIL_REQUEST_ID = '00000000-0000-0000-0000-000000000000';

/** The name of the single output that carries non-ESRP-shaped handler output. */
export const RESULT_OUTPUT_NAME = 'result';

/** An ESRP answer: the HTTP status and the response body. */
export interface EsrpAnswer {
  readonly status: number;
  readonly body: JsonObject;
}

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
    return isJsonObject(details)
      ? { code, message: value['message'], retryable, details }
      : { code, message: value['message'], retryable };
  }
  return { code: 'INTERNAL', message: 'the job failed without an error record', retryable: false };
}

/**
 * The ESRP `error` object of a Plexus error: the ESRP code of its Plexus code
 * (`ERROR_TABLE[code].esrp`), `retryable` as the ESRP table says for that code, and
 * `details` = the error's details plus `plexus_code` (so a client can tell `UNKNOWN_VERB`
 * from `NOT_FOUND`, which share `INVALID_INPUT_SEMANTIC`).
 */
export function esrpErrorOf(error: PlexusError | ErrorData): JsonObject {
  const data = error instanceof PlexusError ? error.toData() : error;
  const code = isPlexusErrorCode(data.code) ? ERROR_TABLE[data.code].esrp : 'UNKNOWN';
  return {
    code,
    message: data.message,
    retryable: ESRP_ERROR_TABLE[code].retryable,
    details: { ...(data.details ?? {}), plexus_code: data.code },
  };
}

/** The HTTP status of a Plexus error on the ESRP face: `ERROR_TABLE[code].http`. */
export function esrpHttpStatus(code: PlexusErrorCode): number {
  return ERROR_TABLE[code].http;
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
  extra: { readonly job?: JsonObject; readonly timing?: JsonObject } = {},
): EsrpAnswer {
  const data = error instanceof PlexusError ? error.toData() : error;
  const code: PlexusErrorCode = isPlexusErrorCode(data.code) ? data.code : 'INTERNAL';
  const body = esrpResponse({
    requestId,
    status: 'failed',
    timing: extra.timing ?? { finished_at: new Date().toISOString() },
    ...(extra.job === undefined ? {} : { job: extra.job }),
    error: esrpErrorOf(data),
  });
  return { status: esrpHttpStatus(code), body };
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
        outputs,
        artifacts,
        ...(jobPart === undefined ? {} : { job: jobPart }),
      }),
    };
  }
  return esrpErrorAnswer(errorDataOf(envelope.data), requestId, {
    timing,
    ...(jobPart === undefined ? {} : { job: jobPart }),
  });
}

/**
 * A job as an ESRP response (`GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}`): `accepted` while
 * it is queued or running, `succeeded` with its outputs, or `failed` with its error (a
 * cancelled job is `failed` with job state `cancelled`).
 */
export function esrpSnapshotOfJob(job: Job): JsonObject {
  const requestId = requestIdOfJob(job);
  const base = { requestId, timing: esrpTimingOf(job), job: esrpJobOf(job) };
  if (!isTerminalJobState(job.state)) return esrpResponse({ ...base, status: 'accepted' });
  if (job.state === 'COMPLETED') {
    return esrpResponse({ ...base, status: 'succeeded', ...esrpOutputsOf(job.outputs) });
  }
  const error: ErrorData =
    job.error ??
    (job.state === 'CANCELED'
      ? { code: 'CANCELLED', message: 'the job was cancelled', retryable: false }
      : { code: 'INTERNAL', message: 'the job failed without an error record', retryable: false });
  return esrpResponse({ ...base, status: 'failed', error: esrpErrorOf(error) });
}

/** The `202 Accepted` answer to an asynchronous submission: status `accepted` with the job. */
export function esrpAcceptedAnswer(job: Job, requestId: string): EsrpAnswer {
  return {
    status: 202,
    body: esrpResponse({
      requestId,
      status: 'accepted',
      timing: { accepted_at: job.timing.createdAt },
      job: esrpJobOf(job),
    }),
  };
}
