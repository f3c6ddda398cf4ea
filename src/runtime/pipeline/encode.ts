/**
 * Pipeline step `encode` (core side): the answer to a request as a core Envelope — kind
 * `response` with the output as `data`, or kind `error` with an `ErrorData`. The answer
 * reuses the request's id (Emergence D4, JSON-RPC, ESRP all answer with the request's id),
 * sets `correlationId` to it, goes back to the sender, and carries the job id in the
 * `_x_job` extension. The face then encodes it to its wire format.
 */
import type { Envelope } from '../../core/envelope.js';
import type { ErrorData } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';

/** The extension key carrying `{id, state}` of the job that produced an answer. */
export const JOB_EXTENSION = '_x_job';

/** Who answered and which job produced the answer. */
export interface AnswerMeta {
  /** The answering agent's id (the node's id for errors before routing). */
  readonly from: string;
  /** The job, when one exists. */
  readonly job?: { readonly id: string; readonly state: string };
  /** The time of the answer, RFC 3339. */
  readonly timestamp: string;
}

function answer(request: Envelope, kind: 'response' | 'error', data: JsonValue, meta: AnswerMeta): Envelope {
  const out: { -readonly [K in keyof Envelope]: Envelope[K] } = {
    id: request.id,
    kind,
    from: meta.from,
    to: request.from,
    verb: request.verb,
    data,
    correlationId: request.id,
    timestamp: meta.timestamp,
  };
  if (request.scopeId !== undefined) out.scopeId = request.scopeId;
  if (request.sessionId !== undefined) out.sessionId = request.sessionId;
  if (request.tenantId !== undefined) out.tenantId = request.tenantId;
  if (request.userId !== undefined) out.userId = request.userId;
  if (request.traceparent !== undefined) out.traceparent = request.traceparent;
  if (request.schemaVersion !== undefined) out.schemaVersion = request.schemaVersion;
  if (meta.job !== undefined) {
    const extensions: JsonObject = { [JOB_EXTENSION]: { id: meta.job.id, state: meta.job.state } };
    out.extensions = extensions;
  }
  return out;
}

/** The `response` envelope answering `request` with `outputs`. */
export function responseEnvelope(request: Envelope, outputs: JsonValue, meta: AnswerMeta): Envelope {
  return answer(request, 'response', outputs, meta);
}

/** The `error` envelope answering `request` with `error`. */
export function errorEnvelope(request: Envelope, error: ErrorData, meta: AnswerMeta): Envelope {
  return answer(request, 'error', error as unknown as JsonValue, meta);
}
