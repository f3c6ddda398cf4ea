/**
 * A job's events, in log order, each with its `seq` — what the ESRP face streams as SSE
 * (`id:` = seq, so `Last-Event-ID` resumes without loss, D5). Every job event carries the
 * job id as its `causation`, so one filtered read finds them; the read is bounded by the
 * job's first and last `seq` from the jobs projection.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import { isTerminalJobState } from '../../core/records/job.js';
import type { EventLog } from '../../store/event-log.js';
import {
  ESRP_JOB_EVENT_NAMES,
  isJobEventType,
  TERMINAL_JOB_EVENT_TYPES,
  type EsrpJobEventName,
  type JobEventType,
} from '../events.js';
import type { JobEntry } from './jobs-projection.js';

/** One event of a job. */
export interface JobEvent {
  /** The event's position in the log (the SSE `id:`). */
  readonly seq: number;
  /** The runtime's event type (`job.started`, …). */
  readonly type: JobEventType;
  /** The ESRP SSE event name (`job_started`, …). */
  readonly name: EsrpJobEventName;
  readonly jobId: string;
  /** When the log recorded it, RFC 3339. */
  readonly time: string;
  /** The event's data. */
  readonly data: JsonValue;
  /** True for the job's final event. */
  readonly terminal: boolean;
}

/** Options of reading a job's events. */
export interface JobEventsOptions {
  /** Only events with a larger `seq` (SSE `Last-Event-ID`). @default 0 */
  readonly afterSeq?: number;
  /** Most events returned by one read. @default 1000 */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/** The {@link JobEvent} of a log event, or `undefined` when it is not a job event. */
export function toJobEvent(event: Event): JobEvent | undefined {
  if (!isJobEventType(event.type) || typeof event.causation !== 'string') return undefined;
  return {
    seq: event.seq,
    type: event.type,
    name: ESRP_JOB_EVENT_NAMES[event.type],
    jobId: event.causation,
    time: event.time,
    data: event.data,
    terminal: TERMINAL_JOB_EVENT_TYPES.has(event.type),
  };
}

function checkAfter(afterSeq: number | undefined): number {
  const after = afterSeq ?? 0;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new PlexusError('INVALID_PARAMS', `afterSeq must be a whole number ≥ 0, got ${String(afterSeq)}`, {
      details: { pointer: '/afterSeq' },
    });
  }
  return after;
}

/**
 * Reads a job's events after `afterSeq`, in order.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad `afterSeq`; the log's read errors.
 */
export async function readJobEvents(
  log: EventLog,
  entry: JobEntry,
  options: JobEventsOptions = {},
): Promise<readonly JobEvent[]> {
  const after = Math.max(checkAfter(options.afterSeq), entry.firstSeq - 1);
  if (after >= entry.lastSeq) return [];
  const events = await log.read({
    afterSeq: after,
    untilSeq: entry.lastSeq,
    causation: entry.job.id,
    typePrefix: 'job.',
    limit: options.limit ?? 1000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return events.flatMap((e) => toJobEvent(e) ?? []);
}

/**
 * Follows a job's events after `afterSeq`: the stored ones, then new ones as they are
 * committed; ends after the job's final event, or when the signal aborts or the log stops.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad `afterSeq` (from the first `next()`).
 */
export async function* watchJobEvents(
  log: EventLog,
  entry: JobEntry,
  options: Omit<JobEventsOptions, 'limit'> = {},
): AsyncIterable<JobEvent> {
  const after = Math.max(checkAfter(options.afterSeq), entry.firstSeq - 1);
  if (isTerminalJobState(entry.job.state) && after >= entry.lastSeq) return;
  const events = log.subscribe(
    after,
    { causation: entry.job.id, typePrefix: 'job.' },
    options.signal === undefined ? {} : { signal: options.signal },
  );
  for await (const event of events) {
    const jobEvent = toJobEvent(event);
    if (jobEvent === undefined) continue;
    yield jobEvent;
    if (jobEvent.terminal) return;
  }
}
