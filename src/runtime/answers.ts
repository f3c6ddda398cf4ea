/**
 * Turning jobs into answers: the `encode` step applied to a finished job (live outcome or
 * stored record), and stand-in requests for answering what has no usable request.
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../core/envelope.js';
import { PlexusError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import type { JobOutcome } from './active-job.js';
import type { JobEntry } from './jobs-projection.js';
import type { Observer } from './observer.js';
import { errorEnvelope, responseEnvelope } from './pipeline/encode.js';
import { runStep } from './pipeline/steps.js';

/** What encoding needs from the runtime. */
export interface AnswerComponents {
  readonly observer: Observer;
  readonly now: () => number;
  /** The node's id, `from` of answers not given by one agent. */
  readonly nodeId: string;
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
): Envelope {
  return runStep(c.observer, 'encode', { job: jobId }, () => {
    const meta = {
      from: outcome.agent,
      job: { id: jobId, state: outcome.state },
      timestamp: new Date(c.now()).toISOString(),
    };
    return outcome.state === 'COMPLETED'
      ? responseEnvelope(request, outcome.outputs ?? null, meta)
      : errorEnvelope(
          request,
          (outcome.error ?? new PlexusError('INTERNAL', 'the job failed')).toData(),
          meta,
        );
  });
}

/** The answer envelope of a finished job's stored record. */
export function encodeEntry(c: AnswerComponents, request: Envelope, entry: JobEntry): Envelope {
  const { job } = entry;
  const agents = entry.agents ?? [];
  const outcome: JobOutcome = {
    state: job.state,
    agent: agents.length === 1 && entry.route !== 'broadcast' ? (agents[0] ?? c.nodeId) : c.nodeId,
    ...(job.outputs === undefined ? {} : { outputs: job.outputs }),
    ...(job.error === undefined ? {} : { error: PlexusError.fromData(job.error) }),
  };
  return encodeOutcome(c, request, job.id, outcome);
}
