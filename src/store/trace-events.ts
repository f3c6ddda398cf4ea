/**
 * The events of one trace in an event log (seed 002 §12.1): the `job.*` events of every job
 * whose request carried the trace, and the other events carrying it. What `plexus trace` and
 * the dashboard's waterfall build the trace's spans from (src/observability/trace-spans.ts).
 */
import { PlexusError } from '../core/errors.js';
import type { Event } from '../core/records/event.js';
import type { EventFilter, EventLog } from './event-log.js';

const PAGE = 1000;

async function readAll(log: EventLog, filter: EventFilter, max: number): Promise<Event[]> {
  const out: Event[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await log.read({ ...filter, afterSeq, limit: PAGE });
    out.push(...page);
    if (out.length > max) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `the trace has more than ${max} events of one kind; too many to draw`,
      );
    }
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) return out;
    afterSeq = last.seq;
  }
}

/**
 * The events of trace `traceId`: its jobs' events in log order, and the other events carrying it.
 * @throws PlexusError `INVALID_PARAMS` when the trace has more than `maxJobs` jobs.
 */
export async function readTraceEvents(
  log: EventLog,
  traceId: string,
  options: { readonly maxJobs: number },
): Promise<{ jobEvents: Event[]; otherEvents: Event[] }> {
  const { maxJobs } = options;
  const traced = await readAll(log, { trace: traceId }, maxJobs * 4);
  const jobIds = [
    ...new Set(
      traced
        .filter((e) => e.type === 'job.submitted' && e.causation !== undefined)
        .map((e) => e.causation as string),
    ),
  ];
  if (jobIds.length > maxJobs) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `trace ${traceId} has ${jobIds.length} jobs; at most ${maxJobs} can be drawn`,
    );
  }
  const jobEvents: Event[] = [];
  for (const id of jobIds)
    jobEvents.push(...(await readAll(log, { causation: id, typePrefix: 'job.' }, PAGE * 10)));
  const otherEvents = traced.filter((e) => !e.type.startsWith('job.'));
  return { jobEvents: jobEvents.sort((a, b) => a.seq - b.seq), otherEvents };
}
