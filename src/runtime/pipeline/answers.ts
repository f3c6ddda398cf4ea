/**
 * Turning jobs into answers: the `encode` step applied to a finished job (live outcome or
 * stored record), and stand-in requests for answering what has no usable request.
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../../core/envelope.js';
import { traceIdOfTraceparent } from '../../core/error-recovery.js';
import { PlexusError, type ErrorData, type ErrorHints } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JobOutcome } from '../jobs/active-job.js';
import type { JobEntry } from '../jobs/jobs-projection.js';
import type { Observer } from '../observer.js';
import { errorEnvelope, responseEnvelope } from './encode.js';
import { eraWarnings, warningsOf, withWarnings, type EraWarning } from './era.js';
import { runStep } from './steps.js';
import type { Registry } from '../agents/registry.js';
import type { Invocation } from '../runtime-interface.js';

/** What encoding needs from the runtime. */
export interface AnswerComponents {
  readonly observer: Observer;
  readonly now: () => number;
  /** The node's id, `from` of answers not given by one agent. */
  readonly nodeId: string;
  /** The registry, to find the era that answered (deprecation warnings); none: no warnings. */
  readonly registry?: Registry;
}

/**
 * `error` with the context hints (seed 002 §8.2) of the request it answers: the verb called
 * and the request's trace id, unless the error already names them.
 */
export function withRequestHints(error: ErrorData, request: Envelope): ErrorData {
  const hints: { -readonly [K in keyof ErrorHints]: ErrorHints[K] } = { ...(error.hints ?? {}) };
  if (hints.verb === undefined && request.verb !== '') hints.verb = request.verb;
  if (hints.traceId === undefined) {
    const traceId = traceIdOfTraceparent(request.traceparent);
    if (traceId !== undefined) hints.traceId = traceId;
  }
  return Object.keys(hints).length === 0 ? error : { ...error, hints };
}

/** The deprecation warnings of `verb` answered by `agentIds`, as an optional `warnings` member. */
export function warningsMember(
  c: AnswerComponents,
  verb: string,
  agentIds: readonly string[] | undefined,
): { warnings?: readonly EraWarning[] } {
  if (c.registry === undefined) return {};
  const warnings = eraWarnings(c.registry, verb, agentIds, c.now());
  return warnings.length === 0 ? {} : { warnings };
}

/** `invocation` with `warnings` set from its envelope's `_x_warnings` extension (when any). */
export function withAnswerWarnings(invocation: Invocation): Invocation {
  const warnings = warningsOf(invocation.envelope);
  return warnings.length === 0 ? invocation : { ...invocation, warnings };
}

/** The answer to a request refused before a job existed: an `error` envelope from the node. */
export function encodeRefusal(c: AnswerComponents, envelope: Envelope, refusal: PlexusError): Envelope {
  const request = requestOf(envelope);
  const traced =
    typeof envelope.traceparent === 'string' ? { ...request, traceparent: envelope.traceparent } : request;
  const meta = { from: c.nodeId, timestamp: new Date(c.now()).toISOString() };
  return errorEnvelope(request, withRequestHints(refusal.toData(), traced), meta);
}

/** A stand-in request for answering something that is not a valid envelope. */
export function requestOf(value: unknown): Envelope {
  const v = isJsonObject(value) ? value : {};
  const text = (key: string, fallback: string): string => {
    const x = v[key];
    return typeof x === 'string' && x !== '' ? x : fallback;
  };
  return {
    id: text('id', randomUUID()),
    kind: 'request',
    from: text('from', 'unknown'),
    to: text('to', 'unknown'),
    verb: text('verb', ''),
    data: null,
  };
}

/** The request a finished job answered, rebuilt from its record (its data is not kept). */
export function requestOfEntry(entry: JobEntry): Envelope {
  const { job } = entry;
  return {
    id: job.correlationId ?? job.id,
    kind: 'request',
    from: job.caller,
    to: entry.to,
    verb: job.verb,
    data: null,
    ...(job.tenantId === undefined ? {} : { tenantId: job.tenantId }),
  };
}

/** Pipeline step `encode`: the answer envelope of a job's outcome. */
export function encodeOutcome(
  c: AnswerComponents,
  request: Envelope,
  jobId: string,
  outcome: JobOutcome,
  parent?: string,
): Envelope {
  // `parent`: the invocation's span, when the observer traces
  return runStep(
    c.observer,
    'encode',
    { job: jobId },
    () => {
      const meta = {
        from: outcome.agent,
        job: { id: jobId, state: outcome.state },
        timestamp: new Date(c.now()).toISOString(),
      };
      const answer =
        outcome.state === 'COMPLETED'
          ? responseEnvelope(request, outcome.outputs ?? null, meta)
          : errorEnvelope(
              request,
              withRequestHints(
                (outcome.error ?? new PlexusError('INTERNAL', 'the job failed')).toData(),
                request,
              ),
              meta,
            );
      const { warnings } = warningsMember(c, request.verb, [outcome.agent]);
      return warnings === undefined ? answer : withWarnings(answer, warnings);
    },
    parent === undefined ? undefined : { parent },
  );
}

/** The answer envelope of a finished job's stored record. */
export function encodeEntry(
  c: AnswerComponents,
  request: Envelope,
  entry: JobEntry,
  parent?: string,
): Envelope {
  const { job } = entry;
  const agents = entry.agents ?? [];
  const outcome: JobOutcome = {
    state: job.state,
    agent: agents.length === 1 && entry.route !== 'broadcast' ? (agents[0] ?? c.nodeId) : c.nodeId,
    ...(job.outputs === undefined ? {} : { outputs: job.outputs }),
    ...(job.error === undefined ? {} : { error: PlexusError.fromData(job.error) }),
  };
  return encodeOutcome(c, request, job.id, outcome, parent);
}
