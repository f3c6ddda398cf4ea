/**
 * The ESRP response: the reference's typed parse, its validation rules, and the plain JSON
 * form Plexus writes.
 *
 * Responses are not hashed by ESRP, so they are not held to the no-float rule: `duration_ms`
 * may have a fraction (the reference types it f64) and free-form `metadata` / `details` may
 * hold any finite number.
 */
import { ESRP_ERROR_TABLE } from './error-table.js';
import { childPointer, type Problem } from '../problem.js';
import { isSha256Hex } from '../hash.js';
import {
  ESRP_ARTIFACT_KINDS,
  ESRP_ERROR_CODES,
  ESRP_JOB_STATES,
  ESRP_RETENTIONS,
  ESRP_RETRY_STRATEGIES,
  ESRP_STATUSES,
  type EsrpArtifact,
  type EsrpError,
  type EsrpJob,
  type EsrpResponse,
  type EsrpTiming,
} from './model.js';
import { FieldReader, type ObjectAt } from './reader.js';
import { invalidDocument, readInputs, readObjectField, type EsrpReadResult } from './request.js';
import { checkDataItem, esrpVersionProblem } from './rules.js';
import { WORKSPACE_URI_PREFIX, workspaceUriProblem } from './workspace-uri.js';

const U32_MAX = 4294967295;

/**
 * Reads a response. With `rules: false` only what the reference's typed parse refuses is a
 * problem; with `rules: true` the validation rules are checked too (version 1.x, `error`
 * exactly when failed, `job` when accepted, artifact URIs / sha256 / size, `retryable` as
 * the ESRP error table says, non-negative `duration_ms`).
 */
export function readEsrpResponse(
  value: unknown,
  options: { readonly rules: boolean },
): EsrpReadResult<EsrpResponse> {
  const r = new FieldReader();
  const root = r.object(value, '', 'an ESRP response');
  if (root === undefined) return { value: undefined, problems: r.problems };

  const esrp_version = r.string(root, 'esrp_version');
  const request_id = r.uuid(root, 'request_id');
  const status = r.oneOf(root, 'status', ESRP_STATUSES, true);
  const timingObj = readObjectField(r, root, 'timing', false);
  const timing = timingObj === undefined ? undefined : readTiming(r, timingObj);
  const outputs = readInputs(r, root, 'outputs', 'any', []);
  const artifacts = readArtifacts(r, root);
  const jobObj = readObjectField(r, root, 'job', false);
  const job = jobObj === undefined ? undefined : readJob(r, jobObj);
  const errorObj = readObjectField(r, root, 'error', false);
  const error = errorObj === undefined ? undefined : readError(r, errorObj);

  if (options.rules) {
    if (esrp_version !== undefined) {
      const why = esrpVersionProblem(esrp_version);
      if (why !== undefined) r.problem('/esrp_version', why);
    }
    if (status === 'failed' && errorObj === undefined) {
      r.problem('/error', 'error is required when status is "failed"');
    }
    if (status !== undefined && status !== 'failed' && errorObj !== undefined) {
      r.problem('/error', `error is only allowed when status is "failed", not "${status}"`);
    }
    if (status === 'accepted' && jobObj === undefined) {
      r.problem('/job', 'job is required when status is "accepted"');
    }
    outputs?.forEach((output, i) => {
      if (output !== undefined) checkDataItem(r, output, `/outputs/${i}`);
    });
    artifacts?.forEach((artifact, i) => {
      if (artifact !== undefined) checkArtifact(r, artifact, `/artifacts/${i}`);
    });
    if (error !== undefined) {
      const expected = ESRP_ERROR_TABLE[error.code].retryable;
      if (error.retryable !== expected) {
        r.problem('/error/retryable', `retryable must be ${expected} for ${error.code} (ESRP error table)`);
      }
    }
    if (timing?.duration_ms !== undefined && timing.duration_ms < 0) {
      r.problem('/timing/duration_ms', 'duration_ms must not be negative');
    }
  }

  if (
    esrp_version === undefined ||
    request_id === undefined ||
    status === undefined ||
    outputs === undefined ||
    !outputs.every((o) => o !== undefined) ||
    artifacts === undefined ||
    !artifacts.every((a) => a !== undefined) ||
    (timingObj !== undefined && timing === undefined) ||
    (jobObj !== undefined && job === undefined) ||
    (errorObj !== undefined && error === undefined)
  ) {
    return { value: undefined, problems: r.problems };
  }
  const response: EsrpResponse = {
    esrp_version,
    request_id,
    status,
    ...(timing === undefined ? {} : { timing }),
    outputs,
    artifacts,
    ...(job === undefined ? {} : { job }),
    ...(error === undefined ? {} : { error }),
  };
  return { value: response, problems: r.problems };
}

/**
 * The reference's typed parse of a response value.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when a field is missing or mistyped.
 */
export function parseEsrpResponse(value: unknown): EsrpResponse {
  const { value: response, problems } = readEsrpResponse(value, { rules: false });
  if (response === undefined || problems.length > 0) throw invalidDocument('response', problems);
  return response;
}

/** Every problem in an ESRP response (typed parse and validation rules), each with its JSON pointer. */
export function validateEsrpResponse(value: unknown): Problem[] {
  return readEsrpResponse(value, { rules: true }).problems;
}

function readTiming(r: FieldReader, obj: ObjectAt): EsrpTiming | undefined {
  const before = r.problems.length;
  const accepted_at = r.optionalTimestamp(obj, 'accepted_at');
  const started_at = r.optionalTimestamp(obj, 'started_at');
  const finished_at = r.optionalTimestamp(obj, 'finished_at');
  const raw = r.raw(obj, 'duration_ms');
  let duration_ms: number | undefined;
  if (raw !== undefined && raw !== null) {
    const n = r.jsonValue(raw, childPointer(obj.pointer, 'duration_ms'), 'any');
    if (typeof n === 'number') duration_ms = n;
    else if (typeof n === 'bigint') duration_ms = Number(n);
    else r.problem(childPointer(obj.pointer, 'duration_ms'), 'duration_ms must be a number of milliseconds');
  }
  if (r.problems.length > before) return undefined;
  return {
    ...(accepted_at === undefined ? {} : { accepted_at }),
    ...(started_at === undefined ? {} : { started_at }),
    ...(finished_at === undefined ? {} : { finished_at }),
    ...(duration_ms === undefined ? {} : { duration_ms }),
  };
}

function readArtifacts(r: FieldReader, root: ObjectAt): (EsrpArtifact | undefined)[] | undefined {
  const value = r.raw(root, 'artifacts');
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    r.problem('/artifacts', 'artifacts must be an array');
    return undefined;
  }
  return value.map((item: unknown, i) => {
    const obj = r.object(item, `/artifacts/${i}`, 'each artifact');
    if (obj === undefined) return undefined;
    const artifact_id = r.uuid(obj, 'artifact_id');
    const kind = r.oneOf(obj, 'kind', ESRP_ARTIFACT_KINDS, true);
    const uri = r.string(obj, 'uri');
    const sha256 = r.string(obj, 'sha256');
    const size_bytes = r.integer(obj, 'size_bytes', { min: 0, required: true });
    const retention = r.oneOf(obj, 'retention', ESRP_RETENTIONS, true);
    if (
      artifact_id === undefined ||
      kind === undefined ||
      uri === undefined ||
      sha256 === undefined ||
      size_bytes === undefined ||
      retention === undefined
    ) {
      return undefined;
    }
    return { artifact_id, kind, uri, sha256, size_bytes, retention };
  });
}

function checkArtifact(r: FieldReader, artifact: EsrpArtifact, pointer: string): void {
  if (artifact.uri.startsWith(WORKSPACE_URI_PREFIX)) {
    const why = workspaceUriProblem(artifact.uri);
    if (why !== undefined) r.problem(childPointer(pointer, 'uri'), `workspace URI ${why}`);
  }
  if (!isSha256Hex(artifact.sha256.toLowerCase())) {
    r.problem(childPointer(pointer, 'sha256'), 'sha256 must be 64 hex characters');
  }
  if (artifact.size_bytes === 0)
    r.problem(childPointer(pointer, 'size_bytes'), 'size_bytes must not be zero');
}

function readJob(r: FieldReader, obj: ObjectAt): EsrpJob | undefined {
  const job_id = r.uuid(obj, 'job_id');
  const state = r.oneOf(obj, 'state', ESRP_JOB_STATES, true);
  if (job_id === undefined || state === undefined) return undefined;
  return { job_id, state };
}

function readError(r: FieldReader, obj: ObjectAt): EsrpError | undefined {
  const code = r.oneOf(obj, 'code', ESRP_ERROR_CODES, true);
  const message = r.string(obj, 'message');
  const retryable = r.boolean(obj, 'retryable', false);
  const retry_after_ms = r.integer(obj, 'retry_after_ms', { min: 0, required: false });
  const retry_strategy = r.oneOf(obj, 'retry_strategy', ESRP_RETRY_STRATEGIES, false);
  const max_retries = r.integer(obj, 'max_retries', { min: 0, max: U32_MAX, required: false });
  const details = r.json(obj, 'details', 'any');
  const badOptional =
    (r.raw(obj, 'retry_after_ms') != null && retry_after_ms === undefined) ||
    (r.raw(obj, 'retry_strategy') != null && retry_strategy === undefined) ||
    (r.raw(obj, 'max_retries') != null && max_retries === undefined);
  if (code === undefined || message === undefined || retryable === undefined || badOptional) return undefined;
  return {
    code,
    message,
    retryable,
    ...(retry_after_ms === undefined ? {} : { retry_after_ms }),
    ...(retry_strategy === undefined ? {} : { retry_strategy }),
    ...(max_retries === undefined ? {} : { max_retries }),
    details,
  };
}
